// Package confirm is the handler's authorization decision for every tool
// call a persona makes under its capability stamp, as pure values and rules:
// operations and their normalized targets, boundaries, the egress and
// material tables, fingerprints, confirmations and who may decide them
// (spec: virgo-capability-surface.txt). It reads and writes no store: the
// durable queue of confirmations, the prompt registry of learned exact
// decisions and the reaction outcomes are its book, package confirm/queue.
//
// The flow: Normalize* turn what a persona asked into an Operation; a Policy
// (an index of one stamp) gives Authorize's verdict — allow, confirm with a
// route, or deny naming a boundary; a confirm verdict is queued (queue.Queue)
// to the bound human or the owning lead, whose decision is committed durably,
// with its audit entry, before the caller is told to execute.
package confirm

import "errors"

// Named errors of target normalization. Every refused target wraps one, so a
// caller can tell the trick that was refused.
var (
	ErrEmptyTarget    = errors.New("target is empty")
	ErrAbsolutePath   = errors.New("absolute or home-relative path; workspace paths are relative to the workspace root")
	ErrDotDot         = errors.New("'..' or dot-only segment; workspace paths may not climb out")
	ErrBackslash      = errors.New("backslash in path; use '/'")
	ErrControlChar    = errors.New("NUL or control character in target")
	ErrPercentEncoded = errors.New("percent-encoded character in path; send the plain character")
	ErrNonASCII       = errors.New("non-ASCII character in target (look-alike characters are refused, not folded)")
	ErrUpperCase      = errors.New("upper case in a case-sensitive target; use lower case")
	ErrSymlinkEscape  = errors.New("symbolic link leads outside the workspace")
	ErrTargetSyntax   = errors.New("target does not follow its kind's syntax")
	ErrTargetTooLong  = errors.New("target is too long")
)

// Named errors of operations and tables.
var (
	ErrUnknownShape    = errors.New("unknown operation shape")
	ErrUnknownKind     = errors.New("unknown target kind")
	ErrUnknownBoundary = errors.New("unknown boundary")
	ErrUnknownVerdict  = errors.New("unknown verdict")
	ErrUnknownRoute    = errors.New("unknown route")
	ErrBadPrincipal    = errors.New("principal is neither human:<name> nor a persona address")
	ErrBadRange        = errors.New("read range is negative or past the end")
	// ErrSecretMaterial: bytes of secret or authority material
	// (SecretMaterial) asked to leave where they are kept; Egress names the
	// boundary.
	ErrSecretMaterial = errors.New("secret credential or lease, fence or authority material never leaves its workspace")
)

// Named errors of the confirmation queue.
var (
	// ErrSelfDecision: nobody decides their own request.
	ErrSelfDecision = errors.New("nobody decides their own request")
	// ErrModelDecision: a persona (a model) never decides a confirmation at a
	// global boundary, nor reviews learned choices.
	ErrModelDecision = errors.New("a persona cannot decide a global-boundary confirmation; it is the bound human's")
	// ErrNotAuthority: only the routed authority decides.
	ErrNotAuthority = errors.New("only the routed authority decides this confirmation")
	// ErrUnroutable: the authority seat is empty; the confirmation stays
	// pending until the seat gains an active holder.
	ErrUnroutable = errors.New("the authority seat is empty; the confirmation stays pending and is re-routed to the seat's next active holder")
	// ErrAlreadyDecided: a decision is terminal and single use.
	ErrAlreadyDecided = errors.New("confirmation already decided")
	// ErrWithdrawn: the confirmation was withdrawn when its generation was
	// retired; it is terminal and counts as denied.
	ErrWithdrawn = errors.New("confirmation was withdrawn: the persona generation that asked was retired")
	// ErrExpired: a pending confirmation past its expiry counts as denied.
	ErrExpired = errors.New("confirmation expired and counts as denied")
	// ErrNoConfirmation: no confirmation has that id.
	ErrNoConfirmation = errors.New("no such confirmation")
	// ErrTooManyPending: the requester or the authority has as many
	// confirmations pending as the limits allow.
	ErrTooManyPending = errors.New("too many confirmations pending")
	// ErrCorrelationReuse: a correlation id names exactly one operation.
	ErrCorrelationReuse = errors.New("correlation id already names a different operation")
	// ErrOutcomeUnbound: a reaction's terminal outcome names the item and
	// the reaction it is the outcome of, so that its correlation id answers
	// that reaction alone.
	ErrOutcomeUnbound = errors.New("a reaction outcome must name its item and reaction")
	// ErrNoOutcomeReason: applied: false carries the reason it was not
	// applied (spec: "applied: false with a reason").
	ErrNoOutcomeReason = errors.New("a reaction not applied needs the reason it was not applied")
	// ErrNoCorrelation: a request needs a correlation id so that it can be retried.
	ErrNoCorrelation = errors.New("a correlation id is required")
	// ErrWrongPersona: a persona requests only under its own stamp.
	ErrWrongPersona = errors.New("a persona requests only under its own stamp")
	// ErrNotRememberable: only confirm-level operations of a persona's stamp
	// may be remembered (not activations or retirements).
	ErrNotRememberable = errors.New("this confirmation cannot be remembered")
	// ErrNoReason: a denial carries a reason an operator reads.
	ErrNoReason = errors.New("a denial needs a reason")
	// ErrNoChoice: no learned choice has that key.
	ErrNoChoice = errors.New("no such learned choice")
	// ErrNotStale: carry-forward and drop resolve stale choices only.
	ErrNotStale = errors.New("the learned choice is not stale")
)
