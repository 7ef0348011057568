package confirm

import (
	"slices"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// kindSet is a set of target kinds.
type kindSet uint16

func kinds(ks ...TargetKind) kindSet {
	var s kindSet
	for _, k := range ks {
		s |= 1 << k
	}
	return s
}

func (s kindSet) has(k TargetKind) bool { return s&(1<<k) != 0 }

// reaching is the set of the inventory's target kinds rs.
func reaching(rs []stamp.Reach) kindSet {
	var s kindSet
	for i, name := range kindNames {
		if i > 0 && slices.Contains(rs, name) {
			s |= 1 << i
		}
	}
	return s
}

// scopeRule is what a stamp tool's scope lets it reach: the target kinds,
// and whether a run outside the assigned task routes to the owning lead.
// Whether the tool may mutate there is its kind's (stamp.Kind), not its
// scope's.
type scopeRule struct {
	targets  kindSet
	assigned bool
	// deputyTasks: for a persona with an owning lead (a coder-deputy), a
	// task outside its assigned tasks is not its own: it routes to the
	// owning lead, as assigned does for every target.
	deputyTasks bool
	// anySurface: gateway status reads a surface's health, not its
	// content, so it needs no binding to the surface.
	anySurface bool
	// resolveVia: every write through the scope is another authority's
	// decision relayed, so it is confirmed at this boundary (routed to that
	// authority), never allowed on the persona's own word.
	resolveVia BoundaryID
}

// scopeRules is the handler's reading of the stamp's scope vocabulary
// (stamp.Scopes). A tool whose scope is not here reaches nothing.
var scopeRules = map[string]scopeRule{
	stamp.ScopeOwnWorkspace: {targets: kinds(TargetPath)},
	// "own" is the persona's own records, not its subtree: no run (runs are
	// the runs tools' subtree or assigned-task scope), and a deputy owns
	// only the tasks assigned to it.
	stamp.ScopeOwn:             {targets: kinds(TargetAddress, TargetTask, TargetDecision), deputyTasks: true},
	stamp.ScopeDirectory:       {targets: kinds(TargetAddress)},
	stamp.ScopeGraphNamespace:  {targets: kinds(TargetAddress)},
	stamp.ScopeSubtree:         {targets: kinds(TargetAddress, TargetTask, TargetRun, TargetDecision)},
	stamp.ScopeAssignedTask:    {targets: kinds(TargetTask, TargetRun), assigned: true},
	stamp.ScopeRelayBoundHuman: {targets: kinds(TargetDecision), resolveVia: BoundaryRelayedResolution},
	stamp.ScopeLaneApprover:    {targets: kinds(TargetDecision), resolveVia: BoundaryLaneApproval},
	stamp.ScopeBoundSurfaces:   {targets: kinds(TargetSurface)},
	stamp.ScopeGateway:         {targets: kinds(TargetSurface), anySurface: true},
	stamp.ScopeExternal:        {targets: kinds(TargetExternal)},
}
