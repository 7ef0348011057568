package usecase

import (
	"container/list"
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"sync"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// MaxCachedStamps bounds the stamp cache: the parsed stamps (and their
// policy indexes) kept in memory, least recently used dropped first. It
// holds the stamps of the generations that act — a request reads none —
// while an installation's idle majority costs no heap; a stamp dropped is
// read from the store again when next asked for, and decoded without being
// verified again when its bytes are the ones verified (MaxVerifiedStamps).
const MaxCachedStamps = 2048

// MaxVerifiedStamps bounds the digests of the stamps verified since the
// start (about 100 bytes each: 6.5 MB at the bound). A stamp the cache
// dropped whose stored bytes still match the digest is decoded again, not
// verified again (a tenth of the work); past the bound a digest is
// forgotten and its stamp verified in full when next read.
const MaxVerifiedStamps = 65_536

// stampKey is what a cached stamp was verified against: its generation and
// the hash its registration recorded. A stamp is written once, so the pair
// names one file content for good.
type stampKey struct{ id, hash string }

// stampEntry is one cached stamp and its policy index (nil until a request
// needs it).
type stampEntry struct {
	key    stampKey
	stamp  stamp.Stamp
	policy *confirm.Policy
}

// stampCache holds stamps verified once (hash, schema, semantics), so a
// request reads nothing: the stamp is read and verified when a request
// first needs it after a start, and not again while it stays cached (the
// standing check the hub runs on every active generation at start and on
// each activation reads through the cache without filling it,
// CheckStanding).
//
// Beside each stamp it keeps the stamp's policy index (confirm.Policy
// without any request's options), built the first time a request needs it:
// indexing a stamp — its tools, globs and class key (a canonical JSON hash)
// — cost a tenth of a confirmation request's CPU when done per request.
//
// At most MaxCachedStamps entries (max, when set, for tests): the least
// recently used goes first.
type stampCache struct {
	mu  sync.Mutex
	max int
	m   map[stampKey]*list.Element // of *stampEntry
	lru list.List                  // most recently used at the front

	// verified is, per generation, the digest of the stored stamp bytes
	// and recorded hash that passed verification in this process
	// (verifiedDigest), at most MaxVerifiedStamps (maxVerified, when set,
	// for tests).
	verified    map[string][sha256.Size]byte
	maxVerified int
}

// verifiedDigest names the stored bytes v of a stamp held to recorded hash
// hash: equal digests are the same bytes under the same hash, so the same
// verdict.
func verifiedDigest(hash string, v []byte) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(hash))
	h.Write([]byte{0})
	h.Write(v)
	var d [sha256.Size]byte
	h.Sum(d[:0])
	return d
}

// wasVerified reports whether generation id's stored stamp with digest d
// passed verification in this process.
func (c *stampCache) wasVerified(id string, d [sha256.Size]byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	got, ok := c.verified[id]
	return ok && got == d
}

// rememberVerified records that generation id's stored stamp with digest d
// passed verification; past the bound an arbitrary other digest goes (its
// stamp is verified in full when next read, as on a first read).
func (c *stampCache) rememberVerified(id string, d [sha256.Size]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.verified == nil {
		c.verified = make(map[string][sha256.Size]byte)
	}
	bound := c.maxVerified
	if bound <= 0 {
		bound = MaxVerifiedStamps
	}
	if _, ok := c.verified[id]; !ok && len(c.verified) >= bound {
		for other := range c.verified {
			delete(c.verified, other)
			break
		}
	}
	// A copy: id may be a substring of the persona record it came from.
	c.verified[strings.Clone(id)] = d
}

// entry is k's entry, marked most recently used; nil when not cached.
// The caller holds mu.
func (c *stampCache) entry(k stampKey) *stampEntry {
	el, ok := c.m[k]
	if !ok {
		return nil
	}
	c.lru.MoveToFront(el)
	return el.Value.(*stampEntry)
}

func (c *stampCache) get(k stampKey) (stamp.Stamp, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entry(k); e != nil {
		return e.stamp, true
	}
	return stamp.Stamp{}, false
}

// put caches st for k, dropping the least recently used entry past the
// bound.
func (c *stampCache) put(k stampKey, st stamp.Stamp) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entry(k); e != nil {
		e.stamp = st
		return
	}
	if c.m == nil {
		c.m = make(map[stampKey]*list.Element)
	}
	c.m[k] = c.lru.PushFront(&stampEntry{key: k, stamp: st})
	bound := c.max
	if bound <= 0 {
		bound = MaxCachedStamps
	}
	for c.lru.Len() > bound {
		oldest := c.lru.Back()
		c.lru.Remove(oldest)
		delete(c.m, oldest.Value.(*stampEntry).key)
	}
}

func (c *stampCache) policy(k stampKey) (*confirm.Policy, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entry(k); e != nil && e.policy != nil {
		return e.policy, true
	}
	return nil, false
}

// putPolicy keeps p beside k's stamp; a stamp dropped meanwhile is not
// cached again here (the next request reads it).
func (c *stampCache) putPolicy(k stampKey, p *confirm.Policy) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entry(k); e != nil {
		e.policy = p
	}
}

// LoadStamp returns a generation's stamp, read from the store and verified
// against its recorded hash (and both validators) the first time it is
// asked for after a start, from memory afterwards: the stored bytes are
// written once under a condition, so (generation, hash) names one stamp on
// every hub. The stamp is shared: callers do not modify it. The store read
// is made under ctx, so a cache miss inside a use case's plan ends with the
// request it serves; it is bounded by the store itself (etcd's call
// timeout).
func (u *Cases) LoadStamp(ctx context.Context, p registry.Persona) (stamp.Stamp, error) {
	if p.StampHash == "" {
		return stamp.Stamp{}, fmt.Errorf("%s (%s): %w", p.Address, p.Name, ErrNoStamp)
	}
	k := stampKey{p.ID, p.StampHash}
	if st, ok := u.stamps.get(k); ok {
		return st, nil
	}
	st, err := u.readStoredStamp(ctx, p)
	if err != nil {
		return stamp.Stamp{}, err
	}
	u.stamps.put(k, st)
	return st, nil
}

// stampPolicy is the policy index of p's stamp, without any request's
// options (Policy adds them with confirm.Policy.With): built once per
// (generation, hash), like the stamp it indexes; a miss reads the stamp
// under ctx (LoadStamp).
func (u *Cases) stampPolicy(ctx context.Context, p registry.Persona) (*confirm.Policy, error) {
	k := stampKey{p.ID, p.StampHash}
	if pol, ok := u.stamps.policy(k); ok {
		return pol, nil
	}
	st, err := u.LoadStamp(ctx, p)
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
