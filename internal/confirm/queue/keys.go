package queue

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
)

// Store key layout of this package. Every key lives under one of these
// prefixes, so a Watch on a prefix sees exactly one kind of record.
const (
	// PrefixConfirmation holds confirmations by id.
	PrefixConfirmation = "confirm/req/"
	// prefixFingerprint maps a fingerprint to the id of its latest request.
	prefixFingerprint = "confirm/fp/"
	// prefixCorrelation maps requester + correlation id to a confirmation id.
	prefixCorrelation = "confirm/corr/"
	// prefixUndecided indexes the confirmations not yet decided, so that
	// finding them costs what is pending, not everything ever decided.
	prefixUndecided = "confirm/undecided/"
	// PrefixPromptsPersona holds learned choices in a persona's experience layer.
	PrefixPromptsPersona = "prompts/persona/"
	// PrefixPromptsClass holds class-common learned choices, by profile.
	PrefixPromptsClass = "prompts/class/"
	// PrefixReactions holds human-surface reaction outcomes by requester and
	// correlation id.
	PrefixReactions = "reactions/"
	// PrefixAudit holds the audit log, in time order.
	PrefixAudit = "audit/"
)

func keyConfirmation(id string) string { return PrefixConfirmation + id }

// ConfirmationKey is the store key of confirmation id's record, whose value
// is the confirmation's JSON.
func ConfirmationKey(id string) string { return keyConfirmation(id) }
func keyFingerprint(fp string) string  { return prefixFingerprint + fp }
func keyUndecided(id string) string    { return prefixUndecided + id }
func keyCorrelation(requester confirm.Principal, corr string) string {
	return prefixCorrelation + requester.String() + "/" + corr
}

// keyReaction: a correlation id has no '/', so the last segment is the id
// and the rest the requester.
func keyReaction(requester confirm.Principal, corr string) string {
	return PrefixReactions + requester.String() + "/" + corr
}

// auditKey orders entries by time; the id, event and a random suffix keep
// two entries of one nanosecond apart.
func auditKey(at time.Time, id, event string) string {
	return fmt.Sprintf("%s%020d/%s/%s/%s", PrefixAudit, at.UnixNano(), id, event, randomHex(4))
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

// newID is the id of a confirmation created at now: "c-", the time in
// Unix milliseconds as 11 hex digits, then 6 random hex digits. Ids sort
// in creation order, so a new confirmation's record and undecided entry
// append at the right edge of the store's B+tree, where a group commit's
// requests share leaf pages, instead of each dirtying a random leaf (as
// the 12 random hex digits of older ids do: those stay valid, ids are
// opaque). Ids are not secrets (every read and decision is authorized);
// the random digits keep ids made in one millisecond apart, and a
// collision fails the new record's absent-condition, so the request is
// planned again under a new id.
func newID(now time.Time) string { return fmt.Sprintf("c-%011x%s", now.UnixMilli(), randomHex(3)) }
