package hub

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// DefaultPresenceLease is how long the presence a hub reported outlives
// the hub on a store shared by several hubs (etcd): a hub that dies takes
// its personas offline everywhere within about this long.
const DefaultPresenceLease = 10 * time.Second

// stopRevoke bounds the revoke of a stopping hub's leases: a store that
// does not answer by then lets them expire.
const stopRevoke = 2 * time.Second

// presenceRecord is a stored presence entry: the presence, and on a store
// shared by several hubs the id of the hub that reported it (its stream
// epoch), so that a hub tells another's report from its own.
type presenceRecord struct {
	hubapi.Presence
	Hub string `json:"hub,omitempty"`
}

// presenceShare is a hub's part in presence shared by several hubs on one
// store with leases: the lease its presence records live on, granted anew
// (and the records written again) when it is lost.
type presenceShare struct {
	leaser store.Leaser
	ttl    time.Duration
	// hub is this hub's id in its records.
	hub string
	log *slog.Logger
	// granted is called with each new lease before it is used (the hub
	// announces itself on it); a lease it fails is revoked, and the next
	// call grants another.
	granted func(context.Context, store.Lease) error

	mu    sync.Mutex
	lease store.Lease
}

// current is the live lease, granted anew (and passed to granted) when
// there is none or it was lost.
func (ps *presenceShare) current(ctx context.Context) (store.LeaseID, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.lease != nil {
		select {
		case <-ps.lease.Done():
			ps.log.Error("presence lease lost: the presence this hub reports is gone from the other hubs until it is written on a new lease",
				"lease", fmt.Sprintf("%x", ps.lease.ID()))
			ps.lease = nil
		default:
			return ps.lease.ID(), nil
		}
	}
	lease, err := ps.leaser.Grant(ctx, ps.ttl)
	if err != nil {
		return 0, fmt.Errorf("grant the presence lease: %w", err)
	}
	if err := ps.granted(ctx, lease); err != nil {
		lease.Revoke(context.WithoutCancel(ctx))
		return 0, err
	}
	ps.lease = lease
	return lease.ID(), nil
}

// revoke ends the lease as the hub stops: the presence it reported goes
// offline everywhere at once. A revoke that fails (the store unavailable)
// is no failure of the stop: the lease then expires within its TTL.
func (ps *presenceShare) revoke(ctx context.Context) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.lease == nil {
		return
	}
	if err := ps.lease.Revoke(ctx); err != nil {
		ps.log.Warn("revoking the presence lease failed; what this hub reported goes offline when the lease expires",
			"ttl", ps.lease.TTL(), "err", err)
	}
	ps.lease = nil
}

// followPresence takes a presence record's change from the store watch on
// a shared store: another hub's report updates the tracker as a remote
// entry (never written back from here), and a record's end — its hub's
// lease gone — turns its generation offline. This hub's own records are
// already in its tracker.
func (h *Hub) followPresence(id string, ev store.Event) {
	if ev.Delete {
		h.presence.DropRemote(id)
		return
	}
	var rec presenceRecord
	if err := strictjson.DecodeOpen(ev.Value, &rec); err != nil || rec.ID != id {
		h.log.Warn("skipping an unreadable presence record", "key", ev.Key, "err", err)
		return
	}
	if rec.Hub == "" || rec.Hub == h.share.hub {
		return
	}
	if err := checkRemote(rec.Presence); err != nil {
		h.log.Warn("skipping a presence record another hub wrote", "key", ev.Key, "hub", rec.Hub, "err", err)
		return
	}
	h.presence.ApplyRemote(rec.Hub, rec.Presence)
}

// checkRemote holds another hub's report to the limits this hub's intake
// applies: what reaches the stream from the store is checked as what
// reaches it from a runtime.
func checkRemote(p hubapi.Presence) error {
	if err := checkText("activity", p.ID, p.Activity); err != nil {
		return err
	}
	return checkText("summary", p.ID, p.Summary)
}
