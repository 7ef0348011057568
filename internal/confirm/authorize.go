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

// Authorize decides one operation under the indexed stamp:
//
//  1. the operation must be presented under this persona and generation
//     (else cross-persona deny) with a tool on the stamp whose handler
//     action matches (else deny, "not exposed");
//  2. the deny boundaries (secret credential values, lease/fence/authority
//     material, cross-workspace/project/persona targets) and targets outside
//     the stamped scope are refused;
//  3. the confirm boundaries (credential or permission change, destructive,
//     external publication or deployment), then the deputy scope, then a
//     tool the stamp marks confirm, are routed;
//  4. everything else is recoverable work in the persona's own scope: allow.
//
// A confirm verdict whose exact operation has a remembered choice becomes
// that choice. Decisions on writes outside the mutable paths: deny, not
// confirm — the stamp is the grant, and widening it is a new stamp.
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
	target := p.checkTarget(op, t, info)
	if target.Verdict == Deny {
		return target
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
// persona's own declared scope: an allow, a deny naming the boundary, or the
// deputy-scope confirm.
func (p *Policy) checkTarget(op Operation, tool toolEntry, info shapeInfo) Decision {
	t := op.Target
	if !tool.rule.targets.has(t.Kind) {
		return deny(BoundaryStampedScope, "tool %s has scope %q, which does not reach a %s target", op.Tool, tool.scope, t.Kind)
	}
	if tool.rule.readOnly && info.kind != kindRead {
		return deny(BoundaryStampedScope, "tool %s has scope %q, which only reads", op.Tool, tool.scope)
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
		if info.kind == kindWrite {
			return deny(BoundaryStampedScope, "%s does not apply to a human surface", op.Shape)
		}
		return Decision{Verdict: Allow}
	}
	if info.kind != kindBoundary {
		return deny(BoundaryStampedScope, "an external destination is only published or deployed to, not %s", op.Shape)
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
	bound := t.Workspace == "" || t.Workspace == p.workspace
	inRepo := t.Workspace == WorkspaceRepository && p.repository != ""
	if !bound && !inRepo {
		return deny(BoundaryCrossScope, "workspace %s is not bound on the stamp of %s", t.Workspace, p.address)
	}
	// strings.ToLower returns an all-lower-case path as is: the allow path
	// still does not allocate.
	folded := strings.ToLower(t.Value)
	if authorityPaths.match(folded) {
		return deny(BoundaryAuthorityMaterial, "%s holds lease, fence or authority material", t.Value)
	}
	if secretPaths.match(folded) {
		if info.kind == kindWrite {
			return confirmAt(BoundaryCredentialOrPermission, "writing "+t.Value+" changes a credential")
		}
		return deny(BoundarySecretValues, "%s holds secret credential values", t.Value)
	}
	switch info.kind {
	case kindRead, kindBoundary:
		return Decision{Verdict: Allow}
	case kindWrite:
		if inRepo || p.mutable.match(t.Value) {
			return Decision{Verdict: Allow}
		}
		return deny(BoundaryStampedScope, "%s is not among the mutable paths %v", t.Value, p.stamp.Workspace.MutablePaths)
	}
	return deny(BoundaryStampedScope, "%s does not apply to a workspace path", op.Shape)
}

func (p *Policy) checkRecord(op Operation, tool toolEntry, info shapeInfo) Decision {
	t := op.Target
	if !p.rootScope && t.Scope != p.scope {
		return deny(BoundaryCrossScope, "%s belongs to scope %q, not %s's", t, t.Scope, p.address)
	}
	if p.project != "" && t.Project != p.project {
		return deny(BoundaryCrossScope, "%s belongs to project %q, not %s's", t, t.Project, p.address)
	}
	if info.kind == kindWrite || info.kind == kindMessage {
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
