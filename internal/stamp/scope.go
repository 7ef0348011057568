package stamp

// Scope bounds what an exposed tool may touch. The vocabulary is small on
// purpose: the handler (internal/confirm) matches on these values, and the
// schema file enumerates exactly them (a test keeps the two equal).
type Scope = string

// The scope vocabulary of schema v3. Each value names whose records a tool
// reaches; anything outside it is the spec's "cross-workspace, cross-project,
// or cross-persona access outside an explicit binding", which is denied.
const (
	// ScopeOwnWorkspace: the persona's own workspace; writes only to the
	// mutable paths of its workspace binding.
	ScopeOwnWorkspace Scope = "own-workspace"
	// ScopeOwn: records the persona owns or sends as itself (its inbox, its
	// presence, decisions it raised, tasks it owns).
	ScopeOwn Scope = "own"
	// ScopeDirectory: the registry-derived, redacted peer directory.
	ScopeDirectory Scope = "directory"
	// ScopeGraphNamespace: the stamped graph namespace and the persona's own
	// conversation-archive lineage; other personas' archives stay out.
	ScopeGraphNamespace Scope = "graph-namespace"
	// ScopeSubtree: records under the persona's own address path —
	// work/core/** for work/core/lead, work/** for work/coordinator, the
	// whole installation for a root seat.
	ScopeSubtree Scope = "subtree"
	// ScopeAssignedTask: only the task the owning lead assigned (coder-deputy).
	ScopeAssignedTask Scope = "assigned-task"
	// ScopeRelayBoundHuman: a secretary's resolution, only as a durable relay
	// of the bound human authority's explicit decision (footnote ¹).
	ScopeRelayBoundHuman Scope = "relay-bound-human"
	// ScopeLaneApprover: a coordinator's resolution, only when the bound lane
	// approver authorizes it (footnote ²).
	ScopeLaneApprover Scope = "lane-approver"
	// ScopeBoundSurfaces: the human surfaces listed in the stamp's bindings.
	ScopeBoundSurfaces Scope = "bound-surfaces"
	// ScopeGateway: health of the hub's human-surface gateway; no content.
	ScopeGateway Scope = "gateway"
	// ScopeExternal: publication or deployment outside the installation.
	ScopeExternal Scope = "external"
)

// Scopes lists the whole vocabulary in documentation order.
func Scopes() []Scope {
	return []Scope{ScopeOwnWorkspace, ScopeOwn, ScopeDirectory, ScopeGraphNamespace, ScopeSubtree,
		ScopeAssignedTask, ScopeRelayBoundHuman, ScopeLaneApprover, ScopeBoundSurfaces, ScopeGateway, ScopeExternal}
}
