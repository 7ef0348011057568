package usecase

import (
	"context"
	"fmt"
	"sync"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
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
//
// Beside each stamp it keeps the stamp's policy index (confirm.Policy
// without any request's options), built the first time a request needs it:
// indexing a stamp — its tools, globs and class key (a canonical JSON hash)
// — cost a tenth of a confirmation request's CPU when done per request.
type stampCache struct {
	mu       sync.Mutex
	m        map[stampKey]stamp.Stamp
	policies map[stampKey]*confirm.Policy
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
	c.m = putBounded(c.m, k, st)
}

func (c *stampCache) policy(k stampKey) (*confirm.Policy, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.policies[k]
	return p, ok
}

func (c *stampCache) putPolicy(k stampKey, p *confirm.Policy) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.policies = putBounded(c.policies, k, p)
}

// putBounded sets m[k], first dropping an entry when m holds
// maxCachedStamps, and returns m (made when nil).
func putBounded[V any](m map[stampKey]V, k stampKey, v V) map[stampKey]V {
	if m == nil {
		m = make(map[stampKey]V)
	}
	if len(m) >= maxCachedStamps {
		for old := range m { // any one: map order is random
			delete(m, old)
			break
		}
	}
	m[k] = v
	return m
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

// stampPolicy is the policy index of p's stamp, without any request's
// options (Policy adds them with confirm.Policy.With): built once per
// (generation, hash), like the stamp it indexes.
func (u *Cases) stampPolicy(p registry.Persona) (*confirm.Policy, error) {
	k := stampKey{p.ID, p.StampHash}
	if pol, ok := u.stamps.policy(k); ok {
		return pol, nil
	}
	st, err := u.LoadStamp(p)
	if err != nil {
		return nil, err
	}
	pol, err := confirm.NewPolicy(&st, p.StampHash, confirm.Options{})
	if err != nil {
		return nil, err
	}
	u.stamps.putPolicy(k, pol)
	return pol, nil
}
