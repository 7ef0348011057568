// Package quota owns the byte quotas that bound the database against one
// persona: every per-item limit holds on its own, and a quota bounds what
// the items add up to for one holder (a seat's inbox, a human's channel).
//
// A quota is counted in the holder's own bookkeeping record, which every
// write to that holder already reads and rewrites in its one transaction,
// so counting adds no record that writes to different holders would
// contend on. The installation's total is bounded by the holders' count
// (seats a human activated, humans an operator enrolled) times the quota.
package quota

import (
	"errors"
	"fmt"
)

// Default quotas, the limits table's defaults (hubapi.Limits).
const (
	// DefaultInboxBytes bounds the bytes of the messages one seat has not
	// acked: 2,048 messages of the largest body.
	DefaultInboxBytes = 32 << 20
	// DefaultUnreadBytes bounds the bytes of what personas sent one human
	// that the human has not acked (texts and files): 256 files of the
	// largest size.
	DefaultUnreadBytes = 256 << 20
)

// Names of the quotas, as the limits table, the refusals and the docs
// name them.
const (
	InboxBytes  = "inbox_bytes"
	UnreadBytes = "unread_bytes"
)

// Limits are the quotas a store's books enforce; a zero field takes its
// default.
type Limits struct {
	// InboxBytes bounds one seat's unacked message bytes.
	InboxBytes int64
	// UnreadBytes bounds one human's unacked channel bytes.
	UnreadBytes int64
}

// WithDefaults is l with each zero (or negative) field at its default.
func (l Limits) WithDefaults() Limits {
	if l.InboxBytes <= 0 {
		l.InboxBytes = DefaultInboxBytes
	}
	if l.UnreadBytes <= 0 {
		l.UnreadBytes = DefaultUnreadBytes
	}
	return l
}

// ErrExceeded is the sentinel every refusal by a quota wraps.
var ErrExceeded = errors.New("quota exceeded")

// Exceeded is a write refused by a quota: it names the quota, its holder
// and its limit, so that an operator knows which one to raise or what to
// ack.
type Exceeded struct {
	// Quota is the quota's name (InboxBytes, UnreadBytes).
	Quota string
	// Holder is whose quota it is: a seat's address or a human.
	Holder string
	// Used is what the holder holds, Adding what the write would add.
	Used, Adding int64
	// Limit is the quota.
	Limit int64
	// Free says what frees it.
	Free string
}

// Error is the sentence an operator reads.
func (e *Exceeded) Error() string {
	return fmt.Sprintf("%v: %s of %s: %d bytes held + %d would pass the limit of %d bytes; %s",
		ErrExceeded, e.Quota, e.Holder, e.Used, e.Adding, e.Limit, e.Free)
}

// Unwrap makes errors.Is(err, ErrExceeded) hold.
func (e *Exceeded) Unwrap() error { return ErrExceeded }

// Check refuses adding bytes to used under limit with an *Exceeded naming
// quota, holder and what frees it.
func Check(quota, holder string, used, adding, limit int64, free string) error {
	if used+adding > limit {
		return &Exceeded{Quota: quota, Holder: holder, Used: used, Adding: adding, Limit: limit, Free: free}
	}
	return nil
}
