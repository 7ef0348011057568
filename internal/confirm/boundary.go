package confirm

import "fmt"

// Verdict is what the handler does with one operation.
type Verdict uint8

// The three verdicts of Authorize.
const (
	// Deny: the operation is refused; a remembered choice never turns it into
	// an allow.
	Deny Verdict = iota
	// Allow: recoverable work inside the persona's own declared scope.
	Allow
	// Confirm: the operation waits for a routed authority's decision.
	Confirm
)

// String is the word the CLI and the JSON output print.
func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Confirm:
		return "confirm"
	}
	return "deny"
}

// Route names which authority decides a confirmation.
type Route uint8

// The routes of a confirmation.
const (
	// RouteNone: nothing to route (allow or deny).
	RouteNone Route = iota
	// RouteHuman: the persona's bound human authority (Authority.Human).
	RouteHuman
	// RouteOwningLead: the active holder of the owning lead seat.
	RouteOwningLead
	// RouteLaneApprover: a team coordinator's bound lane approver
	// (Authority.LaneApprover): a human, or the active holder of a seat.
	RouteLaneApprover
)

// String names the route for an operator.
func (r Route) String() string {
	switch r {
	case RouteHuman:
		return "bound-human"
	case RouteOwningLead:
		return "owning-lead"
	case RouteLaneApprover:
		return "lane-approver"
	}
	return "none"
}

// BoundaryID indexes Boundaries. The zero value is "no boundary" (allow).
type BoundaryID uint8

// The boundaries. The six global boundaries of the spec come first, in the
// spec's order; the rest are the handler's own scope refusals and routes.
const (
	BoundaryNone BoundaryID = iota
	BoundaryCredentialOrPermission
	BoundaryDestructive
	BoundaryPublication
	BoundarySecretValues
	BoundaryAuthorityMaterial
	BoundaryCrossScope
	BoundaryNotExposed
	BoundaryStampedScope
	BoundaryToolConfirm
	BoundaryDeputyScope
	BoundaryRememberedDenial
	BoundaryRelayedResolution
	BoundaryLaneApproval
	BoundaryToolShape
	BoundaryNoActiveHolder
)

// Boundary is one row of the boundary table: what an operator reads when an
// operation is refused or routed.
type Boundary struct {
	// Name is the stable identifier printed by the CLI and stored in records.
	Name string
	// Verdict is Confirm or Deny.
	Verdict Verdict
	// Global is true for the spec's six global boundaries. A persona (a
	// model) never decides a confirmation at a global boundary.
	Global bool
	// Route is who decides a Confirm boundary.
	Route Route
	// Text is the sentence an operator reads.
	Text string
	// NotRemembered, for a Confirm boundary, says why a confirmation at it
	// is never remembered (approve and remember is refused with it); empty
	// means it may be (see Confirmation.RememberRule).
	NotRemembered string
}

// Boundaries is the boundary table, indexed by BoundaryID. The first six rows
// after BoundaryNone are the spec's global boundaries ("Only these global
// boundaries exist in v1").
var Boundaries = [...]Boundary{
	BoundaryNone: {Name: "none", Verdict: Allow, Text: "recoverable work inside the persona's own declared scope"},
	BoundaryCredentialOrPermission: {Name: "credential-or-permission-change", Verdict: Confirm, Global: true, Route: RouteHuman,
		Text:          "credential or permission changes need the bound human's confirmation",
		NotRemembered: "a credential or permission change is the bound human's decision each time; remembering it would be a standing grant the stamp does not carry"},
	BoundaryDestructive: {Name: "destructive-or-irreversible", Verdict: Confirm, Global: true, Route: RouteHuman,
		Text: "destructive or materially irreversible operations need the bound human's confirmation"},
	BoundaryPublication: {Name: "external-publication-or-deployment", Verdict: Confirm, Global: true, Route: RouteHuman,
		Text: "consequential external publication or deployment needs the bound human's confirmation"},
	BoundarySecretValues: {Name: "secret-credential-values", Verdict: Deny, Global: true,
		Text: "reading or exporting secret credential values is refused"},
	BoundaryAuthorityMaterial: {Name: "lease-fence-authority-material", Verdict: Deny, Global: true,
		Text: "exporting lease, fence or authority material is refused"},
	BoundaryCrossScope: {Name: "cross-workspace-project-persona", Verdict: Deny, Global: true,
		Text: "cross-workspace, cross-project or cross-persona access outside an explicit binding is refused"},
	BoundaryNotExposed: {Name: "not-exposed", Verdict: Deny,
		Text: "the tool is not exposed on this persona's capability stamp"},
	BoundaryStampedScope: {Name: "outside-stamped-scope", Verdict: Deny,
		Text: "the operation is outside the scope the capability stamp grants; widening it is a new stamp, not a confirmation"},
	BoundaryToolConfirm: {Name: "tool-requires-confirmation", Verdict: Confirm, Route: RouteHuman,
		Text: "the capability stamp exposes this tool only with the bound human's confirmation"},
	BoundaryDeputyScope: {Name: "deputy-scope", Verdict: Confirm, Route: RouteOwningLead,
		Text:          "a deputy acting on runs or artifacts outside its assigned task needs the owning lead's confirmation",
		NotRemembered: "a deputy works outside its assigned tasks only case by case; to grant a task for good, assign it (virgo-tui confirm assign) — a remembered approval would widen the deputy's \"assigned task\" cell"},
	BoundaryRememberedDenial: {Name: "remembered-denial", Verdict: Deny,
		Text: "an authority denied exactly this operation and asked to remember it"},
	// Spec footnotes ¹ and ²: "Neither class self-originates a resolution."
	// The stamp grants the tool; each resolution is the authority's own.
	BoundaryRelayedResolution: {Name: "relayed-resolution", Verdict: Confirm, Route: RouteHuman,
		Text:          "a secretary resolves a decision only as a durable relay of the bound human authority's explicit decision",
		NotRemembered: "a secretary's resolution relays one explicit decision of its bound human (footnote 1); each resolution needs its own decision"},
	BoundaryLaneApproval: {Name: "lane-approved-resolution", Verdict: Confirm, Route: RouteLaneApprover,
		Text:          "a team coordinator resolves only when the bound lane approver authorizes that decision",
		NotRemembered: "a team coordinator's resolution needs its lane approver's authorization of that decision (footnote 2); each resolution needs its own decision"},
	// Spec: "R means read/use, W means mutate within stamped scope": a
	// tool's kind decides the shapes it carries (the inventory's Shapes).
	BoundaryToolShape: {Name: "shape-not-carried-by-tool", Verdict: Deny,
		Text: "the tool's kind does not carry this operation shape; a read tool never mutates"},
	// Admission on both endpoints of a message. The
	// sender's end is its token (a retired generation's is refused); the
	// addressed end is this row.
	BoundaryNoActiveHolder: {Name: "no-active-holder", Verdict: Deny,
		Text: "no active persona holds the addressed seat: a message or other addressed tool reaches only an active holder"},
}

// GlobalBoundaries lists the spec's six global boundaries in its order.
var GlobalBoundaries = []BoundaryID{
	BoundaryCredentialOrPermission, BoundaryDestructive, BoundaryPublication,
	BoundarySecretValues, BoundaryAuthorityMaterial, BoundaryCrossScope,
}

// Info returns the boundary's table row.
func (b BoundaryID) Info() Boundary {
	if int(b) >= len(Boundaries) {
		return Boundaries[BoundaryNotExposed]
	}
	return Boundaries[b]
}

// String is the boundary's stable name.
func (b BoundaryID) String() string { return b.Info().Name }

// BoundaryByName finds a boundary by its stable name (records store names).
func BoundaryByName(name string) (BoundaryID, bool) {
	for i, b := range Boundaries {
		if b.Name == name {
			return BoundaryID(i), true
		}
	}
	return BoundaryNone, false
}

// MarshalText stores a boundary by its stable name.
func (b BoundaryID) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText reads a boundary name back; an unknown name is an error so a
// record from a newer virgo-tui is not silently misread.
func (b *BoundaryID) UnmarshalText(text []byte) error {
	id, ok := BoundaryByName(string(text))
	if !ok {
		return fmt.Errorf("boundary %q: %w", text, ErrUnknownBoundary)
	}
	*b = id
	return nil
}

// MarshalText stores a verdict as its word.
func (v Verdict) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

// UnmarshalText reads a verdict word back.
func (v *Verdict) UnmarshalText(text []byte) error {
	switch string(text) {
	case "allow":
		*v = Allow
	case "confirm":
		*v = Confirm
	case "deny":
		*v = Deny
	default:
		return fmt.Errorf("verdict %q: %w", text, ErrUnknownVerdict)
	}
	return nil
}

// MarshalText stores a route as its name.
func (r Route) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads a route name back.
func (r *Route) UnmarshalText(text []byte) error {
	for _, c := range []Route{RouteNone, RouteHuman, RouteOwningLead, RouteLaneApprover} {
		if c.String() == string(text) {
			*r = c
			return nil
		}
	}
	return fmt.Errorf("route %q: %w", text, ErrUnknownRoute)
}
