// Package switchboard is the stored book of coordination (internal/coord
// holds messages, senders and fences as values, with their rules): each
// seat's inbox and its bookkeeping, and each generation's latest instance
// fence. Every change is a store.Plan: the use case joins it with the
// admission and fence conditions and its audit entry and commits one
// transaction.
package switchboard

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
