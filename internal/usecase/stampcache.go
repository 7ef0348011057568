package usecase

import (
	"context"
	"fmt"
	"sync"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// maxCachedStamps bounds the stamp cache: an installation's live
// generations fit many times over; past it, an entry is dropped (and read
// from the store again when next asked for).
const maxCachedStamps = 50_000

// stampKey is what a cached stamp was verified against: its generation and
// the hash its registration recorded. A stamp is written once, so the pair
// names one file content for good.
type stampKey struct{ id, hash string }

// stampCache holds stamps verified once (hash, schema, semantics), so a
// request reads nothing: the stamp is checked when a generation is first
// asked about after a start — the hub checks every active one right after
// it starts, and each activation — and not again.
type stampCache struct {
	mu sync.Mutex
	m  map[stampKey]stamp.Stamp
}

func (c *stampCache) get(k stampKey) (stamp.Stamp, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.m[k]
	return st, ok
}

func (c *stampCache) put(k stampKey, st stamp.Stamp) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[stampKey]stamp.Stamp)
	}
	if len(c.m) >= maxCachedStamps {
		for old := range c.m { // any one: map order is random
			delete(c.m, old)
			break
		}
	}
	c.m[k] = st
}

// LoadStamp returns a generation's stamp, read from the store and verified
// against its recorded hash (and both validators) the first time it is
// asked for after a start, from memory afterwards: the stored bytes are
// written once under a condition, so (generation, hash) names one stamp on
// every hub. The stamp is shared: callers do not modify it. (The store read
// is bounded by the store itself: etcd's call timeout.)
func (u *Cases) LoadStamp(p registry.Persona) (stamp.Stamp, error) {
	if p.StampHash == "" {
		return stamp.Stamp{}, fmt.Errorf("%s (%s): %w", p.Address, p.Name, ErrNoStamp)
	}
	k := stampKey{p.ID, p.StampHash}
	if st, ok := u.stamps.get(k); ok {
		return st, nil
	}
	st, err := u.readStoredStamp(context.Background(), p)
	if err != nil {
		return stamp.Stamp{}, err
	}
	u.stamps.put(k, st)
	return st, nil
}
