package confirm

import (
	"errors"
	"fmt"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// Decision is Authorize's verdict: a small value, so that the allow path
// returns it without allocating. Boundary names why a confirm or deny
// happened (and, for an allow by a remembered approval, which boundary the
// approval covered); Reason is the detail an operator reads.
type Decision struct {
	Verdict  Verdict    `json:"verdict"`
	Boundary BoundaryID `json:"boundary"`
	Reason   string     `json:"reason,omitempty"`
	// Remembered is true when a learned choice of the prompt registry
	// decided instead of asking.
	Remembered bool `json:"remembered,omitempty"`
}

// Route is who decides a confirm verdict.
func (d Decision) Route() Route {
	if d.Verdict != Confirm {
		return RouteNone
	}
	return d.Boundary.Info().Route
}

// String is the one line the CLI prints: verdict, boundary and why.
func (d Decision) String() string {
	if d.Verdict == Allow && d.Boundary == BoundaryNone {
		return "allow: " + Boundaries[BoundaryNone].Text
	}
	b := d.Boundary.Info()
	if d.Verdict == Allow {
		return fmt.Sprintf("allow [%s]: %s", b.Name, d.Reason)
	}
	s := fmt.Sprintf("%s [%s]: %s", d.Verdict, b.Name, b.Text)
	if d.Verdict == Confirm {
		s += " (routed to the " + b.Route.String() + ")"
	}
	if d.Reason != "" {
		s += "; " + d.Reason
	}
	return s
}

// malformedTarget lists the refusals of a target's form, as opposed to
// escapes from the persona's scope.
var malformedTarget = []error{ErrEmptyTarget, ErrTargetSyntax, ErrTargetTooLong, ErrUnknownKind, ErrControlChar}

// MalformedTarget reports whether normalization refused a target for its
// form (empty, bad syntax, too long, unknown kind, control characters):
// such a request is malformed, and answered as an error, not decided.
func MalformedTarget(err error) bool {
	for _, m := range malformedTarget {
		if errors.Is(err, m) {
			return true
		}
	}
	return false
}

// TargetRefusal is the decision for a well-formed target that
// normalization refused: escapes and look-alike tricks (climbing, absolute
// paths, links out, encodings, non-ASCII, case) are cross-workspace
// attempts, denied, never an error to retry differently. The refusal's
// words are the reason. (A malformed target, see MalformedTarget, is not
// decided at all.)
func TargetRefusal(err error) Decision {
	return Decision{Verdict: Deny, Boundary: BoundaryCrossScope, Reason: err.Error()}
}

func deny(b BoundaryID, format string, args ...any) Decision {
	return Decision{Verdict: Deny, Boundary: b, Reason: fmt.Sprintf(format, args...)}
}

func confirmAt(b BoundaryID, reason string) Decision {
	return Decision{Verdict: Confirm, Boundary: b, Reason: reason}
}

// Authorize decides one operation under the indexed stamp, in this order
// (docs/authorization.md lists it with the boundary table):
//
//  1. the operation must be presented under this persona and generation
//     (else cross-persona deny) with a tool on the stamp whose handler
//     action matches (else deny, "not exposed") and a known shape;
//  2. reading or exporting a secret value, and exporting lease, fence or
//     authority material, are denied whatever the tool and target;
//  3. the tool's kind decides the shapes it carries (the inventory's
//     InventoryTool.Shapes): any other shape is denied — a read tool, the
//     only kind an R cell exposes, never mutates;
//  4. the target must lie in the tool's stamped scope and the persona's own
//     declared scope: cross-workspace/project/persona targets, authority
//     material, reads of secret material and writes outside the mutable
//     paths are denied; a write to secret material is a credential change;
//  5. the confirm boundaries of the shape (credential or permission change,
//     destructive, external publication or deployment), then the relayed
//     resolutions and the deputy scope of the target, then a tool the stamp
//     marks confirm, are routed;
//  6. everything else is recoverable work in the persona's own scope: allow.
//
// A confirm verdict whose exact operation has a remembered choice becomes
// that choice, unless its boundary is never remembered (footnote relays,
// credential or permission changes, the deputy scope).
func (p *Policy) Authorize(op Operation) Decision {
	d := p.decide(op)
	if d.Verdict == Confirm && p.learned != nil {
		if c, ok := p.learned[learnedKey{op.HandlerAction, op.Target, op.Shape}]; ok {
			return c.apply(d)
		}
	}
	return d
}

func (p *Policy) decide(op Operation) Decision {
	if op.Persona != p.address || op.Generation != p.generation {
		return deny(BoundaryCrossScope, "the operation is presented as %s#%d under the stamp of %s#%d",
			op.Persona, op.Generation, p.address, p.generation)
	}
	t, ok := p.tools[op.Tool]
	if !ok {
		return deny(BoundaryNotExposed, "tool %q is not on the stamp of %s", op.Tool, p.address)
	}
	if op.HandlerAction != t.action {
		return deny(BoundaryNotExposed, "tool %q maps to handler action %q, not %q", op.Tool, t.action, op.HandlerAction)
	}
	info, ok := shapeTable[op.Shape]
	if !ok {
		return deny(BoundaryStampedScope, "unknown operation shape %q", op.Shape)
	}
	if info.kind == kindBoundary && info.boundary.Info().Verdict == Deny {
		return deny(info.boundary, "%s %s on %s", op.Tool, op.Shape, op.Target)
	}
	if t.shapes&info.bit == 0 {
		return deny(BoundaryToolShape, "%s is a %s tool; it carries %s, not %s", op.Tool, t.kind, t.shapeList, op.Shape)
	}
	target := p.checkTarget(op, t, info)
	if target.Verdict == Deny {
		return target
	}
	if op.Target.Kind == TargetAddress && p.holders != nil && !p.holders.HasActiveHolder(op.Target.Value) {
		return deny(BoundaryNoActiveHolder, "%s to %s: the seat has no active holder", op.Tool, op.Target.Value)
	}
	switch {
	case info.kind == kindBoundary:
		return confirmAt(info.boundary, string(op.Shape)+" on "+op.Target.String())
	case target.Verdict == Confirm:
		return target
	case t.access == stamp.AccessConfirm:
		return confirmAt(BoundaryToolConfirm, "tool "+op.Tool)
	}
	return Decision{Verdict: Allow}
}

// checkTarget binds the target to the tool's stamped scope and to the
// persona's own declared scope: an allow, a deny naming the boundary, or a
// confirm the target alone calls for (a credential write, a relayed
// resolution, the deputy scope).
func (p *Policy) checkTarget(op Operation, tool toolEntry, info shapeInfo) Decision {
	t := op.Target
	if !tool.reach.has(t.Kind) {
		return deny(BoundaryStampedScope, "tool %s addresses %s, not a %s target", op.Tool, tool.reachList(), t.Kind)
	}
	if !tool.rule.targets.has(t.Kind) {
		return deny(BoundaryStampedScope, "tool %s has scope %q, which does not reach a %s target", op.Tool, tool.scope, t.Kind)
	}
	switch t.Kind {
	case TargetPath:
		return p.checkPath(op, info)
	case TargetAddress:
		return p.checkAddress(op, tool, info)
	case TargetTask, TargetRun, TargetDecision:
		return p.checkRecord(op, tool, info)
	case TargetSurface:
		if !p.surfaces[t.Value] && !tool.rule.anySurface {
			return deny(BoundaryCrossScope, "human surface %s is not bound on the stamp", t.Value)
		}
	}
	return Decision{Verdict: Allow}
}

func (p *Policy) checkAddress(op Operation, tool toolEntry, info shapeInfo) Decision {
	t := op.Target
	switch {
	case t.Value == p.address, info.kind == kindMessage:
		return Decision{Verdict: Allow}
	case tool.scope == stamp.ScopeDirectory:
		return Decision{Verdict: Allow} // the redacted peer directory
	}
	return deny(BoundaryCrossScope, "%s is another persona; only messages and the redacted directory cross personas", t.Value)
}

func (p *Policy) checkPath(op Operation, info shapeInfo) Decision {
	t := op.Target
	// The persona's own workspace is the default one, or named by its
	// address (path@work/core/lead:QUEUE.md from work/core/lead).
	own := t.Workspace == "" || t.Workspace == p.workspace || t.Workspace == p.address
	inRepo := t.Workspace == WorkspaceRepository && p.repository != ""
	if !own && !inRepo {
		return deny(BoundaryCrossScope, "workspace %s is not bound on the stamp of %s", t.Workspace, p.address)
	}
	// strings.ToLower returns an all-lower-case path as is: the allow path
	// still does not allocate.
	folded := strings.ToLower(t.Value)
	if m, ok := materialAt(folded); ok {
		return p.checkMaterial(op, info, m)
	}
	switch {
	case info.kind == kindRead:
		return Decision{Verdict: Allow}
	case op.Shape == stamp.ShapeCredentialChange || op.Shape == stamp.ShapePermissionChange:
		return Decision{Verdict: Allow} // confirmed for any target (the shape's boundary)
	case inRepo || p.mutable.match(t.Value):
		return Decision{Verdict: Allow}
	}
	return deny(BoundaryStampedScope, "%s is not among the mutable paths %v", t.Value, p.stamp.Workspace.MutablePaths)
}

// checkMaterial decides a path that holds secret or authority material
// (SecretMaterial): authority material is never touched by a persona's
// tools, since reading it exports it; a secret value is never read; a write
// to a secret is a credential change and removing one is destructive, both
// the bound human's to confirm, whatever the mutable paths say.
func (p *Policy) checkMaterial(op Operation, info shapeInfo, m Material) Decision {
	t := op.Target
	switch {
	case m.Authority, info.kind == kindRead:
		return m.refusal(t.Value) // what Egress answers for the same file
	case info.kind == kindWrite:
		return confirmAt(BoundaryCredentialOrPermission, "writing "+t.Value+" ("+m.What+") changes a credential")
	}
	return Decision{Verdict: Allow} // delete, credential or permission change: the shape's boundary
}

func (p *Policy) checkRecord(op Operation, tool toolEntry, info shapeInfo) Decision {
	t := op.Target
	if !p.rootScope && t.Scope != p.scope {
		return deny(BoundaryCrossScope, "%s belongs to scope %q, not %s's", t, t.Scope, p.address)
	}
	if p.project != "" && t.Project != p.project {
		return deny(BoundaryCrossScope, "%s belongs to project %q, not %s's", t, t.Project, p.address)
	}
	if info.kind == kindMessage {
		return deny(BoundaryStampedScope, "%s does not apply to a %s; records take record:write", op.Shape, t.Kind)
	}
	if tool.rule.resolveVia != BoundaryNone && info.kind != kindRead {
		return confirmAt(tool.rule.resolveVia, fmt.Sprintf("%s %s on %s under scope %q", op.Tool, op.Shape, t, tool.scope))
	}
	task := t.Value
	if t.Kind == TargetRun {
		task = t.Task
	}
	mustBeAssigned := tool.rule.assigned || tool.rule.deputyTasks && p.deputy && t.Kind == TargetTask
	if mustBeAssigned && (p.assignments == nil || !p.assignments.IsAssigned(p.address, task)) {
		return confirmAt(BoundaryDeputyScope, fmt.Sprintf("task %s is not assigned to %s", task, p.address))
	}
	return Decision{Verdict: Allow}
}
