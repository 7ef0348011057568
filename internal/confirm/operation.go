package confirm

import (
	"fmt"
	"slices"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

// TargetKind is what an operation's target names.
type TargetKind uint8

// The target kinds.
const (
	// TargetPath: a workspace-relative clean path (in the persona's own
	// workspace unless Target.Workspace names another).
	TargetPath TargetKind = iota + 1
	// TargetAddress: a persona address.
	TargetAddress
	// TargetTask: a task id within its scope and project.
	TargetTask
	// TargetRun: a run (or its artifacts) within its task.
	TargetRun
	// TargetSurface: a bound human surface (surface/target).
	TargetSurface
	// TargetExternal: a destination outside the installation (a URL).
	TargetExternal
	// TargetDecision: a decision record within its scope and project.
	TargetDecision
)

// kindNames are the inventory's names of what a tool reaches (stamp.Reach).
var kindNames = [...]stamp.Reach{TargetPath: stamp.ReachPath, TargetAddress: stamp.ReachAddress, TargetTask: stamp.ReachTask,
	TargetRun: stamp.ReachRun, TargetSurface: stamp.ReachSurface, TargetExternal: stamp.ReachExternal, TargetDecision: stamp.ReachDecision}

// String is the kind's prefix in a target's text form.
func (k TargetKind) String() string {
	if k == 0 || int(k) >= len(kindNames) {
		return "invalid"
	}
	return string(kindNames[k])
}

// MarshalText stores the kind by name.
func (k TargetKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind name back.
func (k *TargetKind) UnmarshalText(text []byte) error {
	for i, n := range kindNames {
		if i > 0 && string(n) == string(text) {
			*k = TargetKind(i)
			return nil
		}
	}
	return fmt.Errorf("target kind %q: %w", text, ErrUnknownKind)
}

// WorkspaceRepository selects the persona's bound repository worktree as a
// path target's workspace. Workspace roots are ids or addresses, so it
// cannot name another workspace.
const WorkspaceRepository = "repository"

// normalizeWorkspace accepts a workspace selector: an id or an address.
func normalizeWorkspace(ws string) (string, error) {
	if strings.Contains(ws, "/") {
		return NormalizeAddress(ws)
	}
	return NormalizeID(ws)
}

// Target is a normalized operation target. Build one with ParseTarget or
// the Normalize functions; a Target built by hand skips normalization and
// is only as safe as its builder. Target is comparable, so it can key maps.
type Target struct {
	Kind TargetKind `json:"kind"`
	// Value is the normalized path, address, id, surface target or URL.
	Value string `json:"value"`
	// Workspace names the workspace of a path target: empty for the
	// persona's own, WorkspaceRepository for its bound repository worktree,
	// else another workspace's root (an id or a persona address).
	Workspace string `json:"workspace,omitempty"`
	// Scope and Project own a task or run (filled by the handler from the
	// record, never from the model's arguments).
	Scope   string `json:"scope,omitempty"`
	Project string `json:"project,omitempty"`
	// Task is the task a run belongs to.
	Task string `json:"task,omitempty"`
}

// String is the target's canonical text form, the one ParseTarget reads:
//
//	path:memory/notes.md          path@repository:cmd/main.go
//	path@work/other/lead:QUEUE.md (another workspace: cross-workspace)
//	address:work/core/lead        task:work/core/t-12
//	run:work/core/t-12/r-3        decision:work/core/d-4
//	surface:virgo-channel/human:henry
//	external:https://example.org/release
//
// It is what fingerprints and the prompt registry key on.
func (t Target) String() string {
	switch t.Kind {
	case TargetPath:
		if t.Workspace != "" {
			return "path@" + t.Workspace + ":" + t.Value
		}
		return "path:" + t.Value
	case TargetTask, TargetDecision:
		return t.Kind.String() + ":" + t.Scope + "/" + t.Project + "/" + t.Value
	case TargetRun:
		return "run:" + t.Scope + "/" + t.Project + "/" + t.Task + "/" + t.Value
	}
	return t.Kind.String() + ":" + t.Value
}

// ParseTarget reads a target's text form (see Target.String) and normalizes
// it strictly: every trick the Normalize functions refuse is refused here.
func ParseTarget(s string) (Target, error) {
	kind, rest, ok := strings.Cut(s, ":")
	if !ok {
		return Target{}, fmt.Errorf("target %q: want kind:value with kind one of path, address, task, run, decision, surface, external: %w", s, ErrUnknownKind)
	}
	if ws, isPath := strings.CutPrefix(kind, "path@"); isPath {
		id, err := normalizeWorkspace(ws)
		if err != nil {
			return Target{}, err
		}
		p, err := NormalizePath(rest)
		return Target{Kind: TargetPath, Value: p, Workspace: id}, err
	}
	var k TargetKind
	if err := k.UnmarshalText([]byte(kind)); err != nil {
		return Target{}, err
	}
	switch k {
	case TargetPath:
		p, err := NormalizePath(rest)
		return Target{Kind: k, Value: p}, err
	case TargetAddress:
		a, err := NormalizeAddress(rest)
		return Target{Kind: k, Value: a}, err
	case TargetTask, TargetRun, TargetDecision:
		return parseRecordTarget(k, rest)
	case TargetSurface:
		v, err := NormalizeSurface(rest)
		return Target{Kind: k, Value: v}, err
	default:
		d, err := NormalizeDestination(rest)
		return Target{Kind: k, Value: d}, err
	}
}

func parseRecordTarget(k TargetKind, rest string) (Target, error) {
	parts := strings.Split(rest, "/")
	want := 3
	if k == TargetRun {
		want = 4
	}
	if len(parts) != want {
		return Target{}, fmt.Errorf("%s target %q: want %s: %w", k, rest, recordForm(k), ErrTargetSyntax)
	}
	for _, p := range parts {
		if _, err := NormalizeID(p); err != nil {
			return Target{}, err
		}
	}
	t := Target{Kind: k, Scope: parts[0], Project: parts[1], Value: parts[want-1]}
	if k == TargetRun {
		t.Task = parts[2]
	}
	return t, nil
}

func recordForm(k TargetKind) string {
	if k == TargetRun {
		return "scope/project/task/run"
	}
	return "scope/project/" + k.String()
}

// Operation is one normalized tool call of a persona.
type Operation struct {
	// Persona is the canonical address of the persona acting, and
	// Generation its generation: the stamp it runs under.
	Persona    string `json:"persona"`
	Generation int    `json:"generation"`
	// Tool is the exposed tool name; HandlerAction the action it maps to.
	Tool          string `json:"tool"`
	HandlerAction string `json:"handler_action"`
	// Target is absent (zero) only in the answer to a call whose target
	// normalization refused (a denied escape): there is no target to name,
	// and a zero kind has no name a reader could take back.
	Target Target      `json:"target,omitzero"`
	Shape  stamp.Shape `json:"shape"`
	// Arguments are the call's bound arguments: every argument that
	// changes what the call does (tools.Tool.Bound), in the tool's
	// parameter order. They are part of the fingerprint, so an approval
	// binds exactly what the decider was shown, and a retry under the
	// same correlation id that differs in any of them is refused
	// (ErrCorrelationReuse).
	Arguments []Argument `json:"arguments,omitempty"`
}

// Argument is one bound argument of an operation.
type Argument struct {
	Name string `json:"name"`
	// Value is the argument as text: a string as it is, a number or a
	// list as canonical JSON, a file's content by its digest
	// ("sha256:<hex>, <n> bytes").
	Value string `json:"value"`
}

// String renders the argument for a terminal in one line: name=value,
// a line break written as \n, cleaned (a persona wrote the value).
func (a Argument) String() string {
	return termtext.Clean(a.Name + "=" + strings.ReplaceAll(a.Value, "\n", `\n`))
}

// String renders the operation for an operator in one line (without its
// arguments: see ArgumentLines).
func (op Operation) String() string {
	return fmt.Sprintf("%s#%d %s (%s) %s on %s", op.Persona, op.Generation, op.Tool, op.HandlerAction, op.Shape, op.Target)
}

// ArgumentLines are the operation's bound arguments, one terminal-safe
// line each (Argument.String): what is decided, shown in full.
func (op Operation) ArgumentLines() []string {
	out := make([]string, len(op.Arguments))
	for i, a := range op.Arguments {
		out[i] = a.String()
	}
	return out
}

// Equal reports whether op and o are the same operation, arguments
// included.
func (op Operation) Equal(o Operation) bool {
	return op.Persona == o.Persona && op.Generation == o.Generation && op.Tool == o.Tool &&
		op.HandlerAction == o.HandlerAction && op.Target == o.Target && op.Shape == o.Shape &&
		slices.Equal(op.Arguments, o.Arguments)
}

// argumentsKey is the bound arguments as one fingerprint part: names and
// values, which hold no NUL (a persona's text is refused with controls).
func (op Operation) argumentsKey() string {
	var b strings.Builder
	for _, a := range op.Arguments {
		b.WriteString(a.Name)
		b.WriteByte(0)
		b.WriteString(a.Value)
		b.WriteByte(0)
	}
	return b.String()
}
