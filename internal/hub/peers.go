package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// peersPrefix is where every hub on a store shared by several hubs
// announces itself, on its lease: the keys under it are the live hubs (a
// dead hub's went with its lease). `store status` lists them.
const peersPrefix = "hubs/"

// Peer is one live hub's announcement.
type Peer struct {
	// Hub is its id: the epoch of its change stream.
	Hub  string `json:"hub"`
	Host string `json:"host"`
	PID  int    `json:"pid"`
	// LeaseID is its lease's id, and TTLSeconds the TTL as granted.
	LeaseID    int64     `json:"lease_id"`
	TTLSeconds int64     `json:"ttl_seconds"`
	Since      time.Time `json:"since"`
}

// announce puts this hub's Peer record on lease (a new one: the hub
// started, or its last lease was lost).
func (h *Hub) announce(ctx context.Context, lease store.Lease) error {
	b, err := json.Marshal(Peer{Hub: h.stream.Epoch(), Host: h.cfg.Host, PID: os.Getpid(),
		LeaseID:    int64(lease.ID()),
		TTLSeconds: int64(lease.TTL() / time.Second), Since: h.cfg.Clock.Now().UTC()})
	if err != nil {
		return fmt.Errorf("announce this hub: %w", err)
	}
	if _, err := h.st.Txn(ctx, nil, []store.Op{store.PutOnLease(peersPrefix+h.stream.Epoch(), b, lease.ID())}); err != nil {
		return fmt.Errorf("announce this hub on its lease: %w", err)
	}
	// Everything its runtimes reported goes on the new lease.
	h.presence.DirtyLocal()
	return nil
}

// Peers are the live hubs of the store's installation, as they announced
// themselves (none on a store with one owner, whose hub holds it locked).
// A record that cannot be read is skipped.
func Peers(ctx context.Context, st store.Store) ([]Peer, error) {
	kvs, err := st.List(ctx, peersPrefix)
	if err != nil {
		return nil, fmt.Errorf("read the live hubs: %w", err)
	}
	out := make([]Peer, 0, len(kvs))
	for _, kv := range kvs {
		var p Peer
		if strictjson.DecodeOpen(kv.Value, &p) == nil {
			out = append(out, p)
		}
	}
	return out, nil
}
