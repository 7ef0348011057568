package stamp

import (
	"sort"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// ChangeKind is what happened to one tool between two stamps.
type ChangeKind string

// The three kinds of tool change.
const (
	Added   ChangeKind = "added"
	Removed ChangeKind = "removed"
	Changed ChangeKind = "changed"
)

// Change is one tool added, removed, or changed in access or scope. From is
// zero for an added tool, To for a removed one.
type Change struct {
	Kind ChangeKind `json:"kind"`
	Tool string     `json:"tool"`
	From Tool       `json:"from"`
	To   Tool       `json:"to"`
}

// BundleChanges are the changes of one matrix row.
type BundleChanges struct {
	Bundle  string   `json:"bundle"`
	Changes []Change `json:"changes"`
}

// CrossKind is the direction a permission boundary is crossed in.
type CrossKind string

// The boundary crossings a diff reports for review.
const (
	// Gains: a bundle the old side had none of (gains human-surface messaging).
	Gains CrossKind = "gains"
	// Loses: a bundle the new side has none of.
	Loses CrossKind = "loses"
	// GainsWrite: a bundle that was read-only now mutates (runs R -> R/W).
	GainsWrite CrossKind = "gains write in"
	// LosesWrite: a bundle that mutated is now read-only.
	LosesWrite CrossKind = "loses write in"
	// Relaxed: a tool goes from confirm to allow.
	Relaxed CrossKind = "confirm->allow"
	// Tightened: a tool goes from allow to confirm.
	Tightened CrossKind = "allow->confirm"
	// Rescoped: a tool's scope changes.
	Rescoped CrossKind = "rescoped"
)

// Crossing is one boundary crossed, with the bundle's boundary name or the
// tool it concerns.
type Crossing struct {
	Kind     CrossKind `json:"kind"`
	Boundary string    `json:"boundary,omitempty"`
	Tool     string    `json:"tool,omitempty"`
	Detail   string    `json:"detail,omitempty"`
}

// String renders "gains human-surface messaging" or "confirm->allow tool".
func (c Crossing) String() string {
	s := string(c.Kind) + " "
	if c.Boundary != "" {
		s += c.Boundary
	} else {
		s += c.Tool
	}
	if c.Detail != "" {
		s += " (" + c.Detail + ")"
	}
	return s
}

// MatrixDiff is a class-matrix diff between two tool sets, grouped by bundle in
// matrix order, and — between two stamps — the bindings that changed.
type MatrixDiff struct {
	From      string          `json:"from"`
	To        string          `json:"to"`
	Bundles   []BundleChanges `json:"bundles"`
	Crossings []Crossing      `json:"crossings"`
	Bindings  []BindingChange `json:"bindings,omitempty"`
}

// BindingChange is one binding of a stamp that differs between two stamps:
// who decides (authority), what the workspace lets it write, which surfaces
// it reaches. A reviewer needs these beside the tools: binding a repository
// lets the same workspace_write touch a whole worktree.
type BindingChange struct {
	Field string `json:"field"`
	From  string `json:"from"`
	To    string `json:"to"`
}

// Empty reports whether the two sides carry the same tools and bindings.
func (d MatrixDiff) Empty() bool { return len(d.Bundles) == 0 && len(d.Bindings) == 0 }

// Nothing is the label of the empty side: a new seat has no stamp yet.
const Nothing = "nothing"

// unlisted groups tools that are not in the inventory.
const unlisted = "(not in the tool inventory)"

// Diff compares two stamps. A zero Stamp is "nothing": every tool of the
// other side is added (a new seat) or removed.
func Diff(a, b Stamp) MatrixDiff {
	d := DiffTools(label(a.Path.Address), a.Tools, label(b.Path.Address), b.Tools)
	d.Bindings = diffBindings(a, b)
	return d
}

// diffBindings lists the bindings that differ, in a fixed order; an unset
// binding reads "none".
func diffBindings(a, b Stamp) []BindingChange {
	surfaces := func(s Stamp) string {
		parts := make([]string, len(s.HumanSurfaces))
		for i, h := range s.HumanSurfaces {
			parts[i] = h.Surface + "=" + h.Target
		}
		return strings.Join(parts, ", ")
	}
	fields := []struct {
		name string
		get  func(Stamp) string
	}{
		{"authority.human", func(s Stamp) string { return s.Authority.Human }},
		{"authority.owning_lead", func(s Stamp) string { return s.Authority.OwningLead }},
		{"authority.lane_approver", func(s Stamp) string { return s.Authority.LaneApprover }},
		{"workspace.repository", func(s Stamp) string { return s.Workspace.Repository }},
		{"workspace.mutable_paths", func(s Stamp) string { return strings.Join(s.Workspace.MutablePaths, ", ") }},
		{"human_surfaces", surfaces},
		{"graph_namespace", func(s Stamp) string { return s.GraphNamespace }},
	}
	var out []BindingChange
	for _, f := range fields {
		from, to := f.get(a), f.get(b)
		if from == to {
			continue
		}
		if from == "" {
			from = "none"
		}
		if to == "" {
			to = "none"
		}
		out = append(out, BindingChange{Field: f.name, From: from, To: to})
	}
	return out
}

// DiffProfiles compares two classes' matrix rows; an empty profile is
// "nothing".
func DiffProfiles(a, b registry.Profile) MatrixDiff {
	return DiffTools(label(string(a)), ToolsFor(a), label(string(b)), ToolsFor(b))
}

func label(s string) string {
	if s == "" {
		return Nothing
	}
	return s
}

// DiffTools compares two tool lists under the given labels.
func DiffTools(fromLabel string, from []Tool, toLabel string, to []Tool) MatrixDiff {
	d := MatrixDiff{From: fromLabel, To: toLabel}
	groups := map[string][2][]Tool{}
	for side, tools := range [2][]Tool{from, to} {
		for _, t := range tools {
			b := unlisted
			if inv, ok := LookupTool(t.Name); ok {
				b = inv.Bundle
			}
			g := groups[b]
			g[side] = append(g[side], t)
			groups[b] = g
		}
	}
	order := make([]string, 0, len(bundles)+1)
	for _, b := range bundles {
		order = append(order, b.Name)
	}
	order = append(order, unlisted)
	for i, name := range order {
		g, ok := groups[name]
		if !ok {
			continue
		}
		boundary := name
		if i < len(bundles) {
			boundary = bundles[i].Boundary
		}
		changes, crossings := diffBundle(boundary, g[0], g[1])
		if len(changes) > 0 {
			d.Bundles = append(d.Bundles, BundleChanges{Bundle: name, Changes: changes})
		}
		d.Crossings = append(d.Crossings, crossings...)
	}
	return d
}

// diffBundle compares one bundle's tools on both sides.
func diffBundle(boundary string, from, to []Tool) ([]Change, []Crossing) {
	var changes []Change
	var crossings []Crossing
	switch {
	case len(from) == 0 && len(to) > 0:
		crossings = append(crossings, Crossing{Kind: Gains, Boundary: boundary})
	case len(from) > 0 && len(to) == 0:
		crossings = append(crossings, Crossing{Kind: Loses, Boundary: boundary})
	case !writes(from) && writes(to):
		crossings = append(crossings, Crossing{Kind: GainsWrite, Boundary: boundary})
	case writes(from) && !writes(to):
		crossings = append(crossings, Crossing{Kind: LosesWrite, Boundary: boundary})
	}
	old := map[string]Tool{}
	for _, t := range from {
		old[t.Name] = t
	}
	seen := map[string]bool{}
	for _, t := range to {
		seen[t.Name] = true
		o, had := old[t.Name]
		switch {
		case !had:
			changes = append(changes, Change{Kind: Added, Tool: t.Name, To: t})
		case o != t:
			changes = append(changes, Change{Kind: Changed, Tool: t.Name, From: o, To: t})
			crossings = append(crossings, toolCrossings(o, t)...)
		}
	}
	var removed []Change
	for _, t := range from {
		if !seen[t.Name] {
			removed = append(removed, Change{Kind: Removed, Tool: t.Name, From: t})
		}
	}
	sort.SliceStable(removed, func(i, j int) bool { return removed[i].Tool < removed[j].Tool })
	return append(changes, removed...), crossings
}

// toolCrossings are the per-tool boundaries a change crosses.
func toolCrossings(o, t Tool) []Crossing {
	var out []Crossing
	switch {
	case o.Access == AccessConfirm && t.Access == AccessAllow:
		out = append(out, Crossing{Kind: Relaxed, Tool: t.Name})
	case o.Access == AccessAllow && t.Access == AccessConfirm:
		out = append(out, Crossing{Kind: Tightened, Tool: t.Name})
	}
	if o.Scope != t.Scope {
		out = append(out, Crossing{Kind: Rescoped, Tool: t.Name, Detail: o.Scope + " -> " + t.Scope})
	}
	return out
}

// writes reports whether any tool mutates (per the inventory; an unknown tool
// counts as mutating, the cautious reading).
func writes(tools []Tool) bool {
	for _, t := range tools {
		if inv, ok := LookupTool(t.Name); !ok || inv.Kind.Mutates() {
			return true
		}
	}
	return false
}
