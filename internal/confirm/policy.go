package confirm

import (
	"fmt"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// Assignments answers whether a task is assigned to a persona. The hub's
// task records implement it; the policy asks it only for a deputy's runs
// and tasks.
type Assignments interface {
	IsAssigned(persona, task string) bool
}

// Holders tells whether a seat has an active holder (the registry, through
// the hub): an addressed tool reaches only an active persona.
type Holders interface {
	HasActiveHolder(address string) bool
}

// Options are what a Policy needs besides the stamp.
type Options struct {
	// Holders admits the addressed end of an operation on an address
	// target; nil admits every address (no registry at hand).
	Holders Holders
	// Assignments tells a deputy's assigned tasks; nil means none.
	Assignments Assignments
	// Learned are remembered choices (queue.Prompts.Active); only those keyed by
	// this policy's stamp hash (persona layer) or class key (class overlay)
	// are used.
	Learned []Choice
}

// toolEntry is one indexed stamp tool.
type toolEntry struct {
	action string
	access stamp.Access
	scope  string
	rule   scopeRule
	// kind and shapes are the inventory's: what the tool does and the
	// shapes it carries; shapeList names them for a refusal.
	kind      stamp.Kind
	shapes    shapeSet
	shapeList []stamp.Shape
	// reach is the target kinds the inventory says the tool addresses.
	reach kindSet
}

// learnedKey is a prompt key without the stamp hash, which is the policy's.
type learnedKey struct {
	action string
	target Target
	shape  stamp.Shape
}

// Policy is the handler's index of one stamp: everything Authorize needs,
// precomputed so that the allow path neither allocates nor scans.
type Policy struct {
	stamp      *stamp.Stamp
	keys       Keys
	address    string
	generation int
	scope      string
	project    string
	rootScope  bool
	// deputy: the stamp binds an owning lead, so tasks outside the assigned
	// ones route to it (scopeRule.deputyTasks).
	deputy     bool
	workspace  string
	repository string
	tools      map[string]toolEntry
	mutable    globSet
	surfaces   map[string]bool
	learned    map[learnedKey]Choice
	// readsAssignments: a tool of the stamp must be assigned its task
	// (Authorize's mustBeAssigned), so Options.Assignments is consulted.
	readsAssignments bool
	assignments      Assignments
	holders          Holders
}

// NewPolicy indexes a stamp whose canonical hash is hash. It refuses a stamp
// the handler could not enforce exactly: a non-canonical address, duplicate
// tool names or handler actions, an access other than allow or confirm, a
// scope outside the stamp's vocabulary, a bad mutable-path pattern.
func NewPolicy(st *stamp.Stamp, hash string, opts Options) (*Policy, error) {
	addr, err := registry.ParseAddress(st.Path.Address)
	if err != nil {
		return nil, fmt.Errorf("stamp address: %w", err)
	}
	mutable, err := compileGlobs(st.Workspace.MutablePaths)
	if err != nil {
		return nil, fmt.Errorf("stamp of %s: %w", addr, err)
	}
	keys, err := KeysOf(st, hash)
	if err != nil {
		return nil, err
	}
	p := &Policy{
		stamp: st, keys: keys, address: addr.String(), generation: st.Persona.Generation,
		scope: addr.Scope, project: addr.Project, rootScope: addr.IsRoot(), deputy: st.Authority.OwningLead != "",
		workspace: st.Workspace.Root, repository: st.Workspace.Repository,
		tools: make(map[string]toolEntry, len(st.Tools)), mutable: mutable,
		surfaces: make(map[string]bool, len(st.HumanSurfaces)), assignments: opts.Assignments, holders: opts.Holders,
	}
	actions := make(map[string]bool, len(st.Tools))
	for _, t := range st.Tools {
		if _, dup := p.tools[t.Name]; dup {
			return nil, fmt.Errorf("stamp of %s: duplicate tool %q", addr, t.Name)
		}
		if actions[t.HandlerAction] {
			return nil, fmt.Errorf("stamp of %s: duplicate handler action %q", addr, t.HandlerAction)
		}
		if t.Access != stamp.AccessAllow && t.Access != stamp.AccessConfirm {
			return nil, fmt.Errorf("stamp of %s: tool %q has access %q, want allow or confirm", addr, t.Name, t.Access)
		}
		rule, ok := scopeRules[t.Scope]
		if !ok {
			return nil, fmt.Errorf("stamp of %s: tool %q has unknown scope %q", addr, t.Name, t.Scope)
		}
		inv, ok := stamp.LookupTool(t.Name)
		if !ok {
			return nil, fmt.Errorf("stamp of %s: tool %q is not in the tool inventory, so the shapes it carries are unknown", addr, t.Name)
		}
		actions[t.HandlerAction] = true
		p.readsAssignments = p.readsAssignments || rule.assigned || rule.deputyTasks && p.deputy
		p.tools[t.Name] = toolEntry{action: t.HandlerAction, access: t.Access, scope: t.Scope, rule: rule,
			kind: inv.Kind, shapes: shapesOf(inv.Shapes), shapeList: inv.Shapes, reach: reaching(inv.Reaches)}
	}
	for _, b := range st.HumanSurfaces {
		p.surfaces[b.Surface+"/"+b.Target] = true
	}
	p.learned = indexLearned(keys, opts.Learned)
	return p, nil
}

// With is the policy of the same stamp under other options. The stamp's
// index is shared, read-only once built, so a caller that keeps a stamp's
// policy indexes the stamp (address, tools, globs, class key) once rather
// than on every request, and applies each request's learned choices,
// assignments and holders here.
func (p *Policy) With(opts Options) *Policy {
	q := *p
	q.assignments, q.holders = opts.Assignments, opts.Holders
	q.learned = indexLearned(p.keys, opts.Learned)
	return &q
}

// indexLearned indexes the learned choices current under keys.
func indexLearned(keys Keys, learned []Choice) map[learnedKey]Choice {
	var m map[learnedKey]Choice
	for _, c := range learned {
		if !c.Current(keys) {
			continue
		}
		if m == nil {
			m = make(map[learnedKey]Choice)
		}
		k := learnedKey{c.Key.HandlerAction, c.Key.Target, c.Key.Shape}
		if prev, ok := m[k]; ok && prev.Where != RememberClass {
			continue // the persona's own choice comes before a class-common one
		}
		m[k] = c
	}
	return m
}

// ReadsAssignments reports whether Authorize consults Options.Assignments
// for any of the stamp's tools (a tool scoped to assigned tasks, or a
// deputy's own-scope tasks). When it does not, a caller need not read the
// persona's assigned tasks to build its policy.
func (p *Policy) ReadsAssignments() bool { return p.readsAssignments }

// Stamp is the indexed stamp.
func (p *Policy) Stamp() *stamp.Stamp { return p.stamp }

// Hash is the stamp's canonical hash.
func (p *Policy) Hash() string { return p.keys.StampHash }

// Keys are the keys the persona's learned choices match under: the stamp
// hash and the class key.
func (p *Policy) Keys() Keys { return p.keys }

// Address is the persona's canonical address.
func (p *Policy) Address() string { return p.address }

// Profile is the persona's capability profile.
func (p *Policy) Profile() string { return p.stamp.Path.Profile }

// Tool returns the stamp's tool by name, for building an Operation.
func (p *Policy) Tool(name string) (handlerAction string, ok bool) {
	t, ok := p.tools[name]
	return t.action, ok
}

// reachList names the target kinds the tool addresses, for a refusal.
func (t toolEntry) reachList() string {
	var names []string
	for i, name := range kindNames {
		if i > 0 && t.reach.has(TargetKind(i)) {
			names = append(names, string(name))
		}
	}
	return strings.Join(names, ", ")
}
