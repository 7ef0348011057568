// Package coord owns addressed coordination between personas: messages
// sent to a seat and delivered to whichever generation holds it until one
// acknowledges them, and instance fences, which keep a stale duplicate of a
// generation (an older runtime still running after a newer one connected)
// from acknowledging, writing or beating.
//
// A message is addressed to a seat, never to a generation: it waits in the
// seat's inbox until acked, so what a retired generation had not acked is
// what the seat's next generation finds. Admission of both ends (an active
// sender, a recipient seat with an active holder) is the caller's condition
// on the registry's seat records, joined to the plans made here, so a
// retirement committed first makes a send conflict and be decided again.
//
// Every change is a store.Plan: the use case joins it with the admission
// and fence conditions and its audit entry and commits one transaction.
package coord

import (
	"time"

	"github.com/virgo-hub/virgo-tui/internal/quota"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// Store key layout. Fence records are under their own prefix so that the
// hub keeps them off every stream and answer meant for anyone but the
// generation itself (the spec denies exporting lease/fence material).
const (
	// PrefixInbox + seat address + "/#" + 20-digit sequence → Message:
	// the messages a seat has not acked, in the order they were admitted.
	PrefixInbox = "coord/inbox/"
	// PrefixSeat + seat address → seatBook: the seat's next sequence and
	// how many messages wait in its inbox.
	PrefixSeat = "coord/seat/"
	// PrefixFence + persona generation id → fenceRecord.
	PrefixFence = "coord/fence/"
)

// Book reads and plans coordination records in a store.
type Book struct {
	st  store.Store
	now func() time.Time
	// inboxBytes is the quota of one seat's unacked message bytes.
	inboxBytes int64
}

// New returns the coordination records over st; now is the clock of the
// records (nil: time.Now); q's InboxBytes bounds each seat's unacked bytes
// (zero: its default).
func New(st store.Store, now func() time.Time, q quota.Limits) *Book {
	if now == nil {
		now = time.Now
	}
	return &Book{st: st, now: now, inboxBytes: q.WithDefaults().InboxBytes}
}
