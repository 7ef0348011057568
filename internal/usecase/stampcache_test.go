package usecase

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

// The stamp cache keeps at most its bound of parsed stamps and policies,
// dropping the least recently used; a stamp dropped is read again from the
// store on its next use.
func TestStampCacheStaysWithinItsBound(t *testing.T) {
	in := newInstallation(t)
	const bound = 3
	u := in.fresh()
	u.stamps.max = bound
	var ps []string
	for i := range 6 {
		p := in.register(t, fmt.Sprintf("w%d/core/lead", i), fmt.Sprintf("Star %d", i))
		ps = append(ps, p.ID)
		if _, err := u.stampPolicy(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		if n := u.stamps.len(); n > bound {
			t.Fatalf("%d stamps cached after %d loads; the bound is %d", n, i+1, bound)
		}
		// The first generation is used before each new one: it stays.
		if _, err := u.stampPolicy(t.Context(), mustPersona(t, in, ps[0])); err != nil {
			t.Fatal(err)
		}
	}
	if u.stamps.len() != bound {
		t.Fatalf("%d stamps cached, want the bound %d", u.stamps.len(), bound)
	}
	for i, id := range ps {
		_, cached := u.stamps.m[stampKey{id, mustPersona(t, in, id).StampHash}]
		if want := i == 0 || i >= len(ps)-bound+1; cached != want {
			t.Errorf("generation %d cached = %v, want %v (least recently used out)", i, cached, want)
		}
	}
	// A dropped stamp is read again, and is then the most recent.
	dropped := mustPersona(t, in, ps[1])
	if _, err := u.LoadStamp(t.Context(), dropped); err != nil {
		t.Fatalf("a dropped stamp is not read again: %v", err)
	}
	if _, ok := u.stamps.get(stampKey{dropped.ID, dropped.StampHash}); !ok || u.stamps.len() != bound {
		t.Fatalf("after reading a dropped stamp again: cached %v, %d entries", ok, u.stamps.len())
	}
}

// mustPersona is generation id's record.
func mustPersona(t *testing.T, in *installation, id string) registry.Persona {
	t.Helper()
	p, err := in.reg.Get(t.Context(), id)
	mustNil(t, err)
	return p
}

// A stamp the cache dropped is read again from the store: when its stored
// bytes are those that passed verification in this process it is decoded
// (the same stamp as verified), and when they changed meanwhile it is
// verified again and refused. The digests stay within their bound.
func TestDroppedStampIsDecodedWhenItsBytesAreTheVerifiedOnes(t *testing.T) {
	in := newInstallation(t)
	ctx := t.Context()
	u := in.fresh()
	u.stamps.max, u.stamps.maxVerified = 1, 2
	a := in.register(t, "w0/core/lead", "Star A")
	b := in.register(t, "w1/core/lead", "Star B")
	first, err := u.LoadStamp(ctx, a)
	mustNil(t, err)
	kv, err := in.st.Get(ctx, StampPrefix+a.ID)
	mustNil(t, err)
	if !u.stamps.wasVerified(a.ID, verifiedDigest(a.StampHash, kv.Value)) {
		t.Fatal("a stamp verified in full left no digest: a re-read would verify it again")
	}
	_, err = u.LoadStamp(ctx, b) // the cache holds one: a is dropped
	mustNil(t, err)
	again, err := u.LoadStamp(ctx, a)
	mustNil(t, err)
	if !reflect.DeepEqual(again, first) {
		t.Fatalf("the stamp decoded again differs from the one verified:\n%+v\n%+v", again, first)
	}

	// Changed bytes under the same key are not the verified ones.
	stored := kv.Value
	changed := bytes.Replace(stored, []byte(`"access": "confirm"`), []byte(`"access": "allow"`), 1)
	_, err = in.st.Txn(ctx, nil, []store.Op{store.Put(StampPrefix+a.ID, changed)})
	mustNil(t, err)
	_, err = u.LoadStamp(ctx, b) // a dropped again
	mustNil(t, err)
	if _, err := u.LoadStamp(ctx, a); !errors.Is(err, stamp.ErrHashMismatch) {
		t.Fatalf("changed stored bytes of a stamp verified before: %v, want ErrHashMismatch", err)
	}

	// The standing check, which caches no stamp, leaves the digest: the
	// generation's first request after it decodes its stamp.
	c := in.register(t, "w2/core/lead", "Star C")
	mustNil(t, u.CheckStanding(c))
	kv, err = in.st.Get(ctx, StampPrefix+c.ID)
	mustNil(t, err)
	if !u.stamps.wasVerified(c.ID, verifiedDigest(c.StampHash, kv.Value)) {
		t.Fatal("the standing check left no digest: the first request verifies the stamp again")
	}
	if n := len(u.stamps.verified); n > 2 {
		t.Fatalf("%d digests kept; the bound is 2", n)
	}
}

// The standing check a hub runs on every active generation right after it
// starts reads each stamp without caching it: at 10,000 personas the
// checked stamps filled the cache with the idle majority's (about 12 MB of
// heap) before any of them acted. What a request loaded, a check reads
// from the cache.
func TestStandingCheckDoesNotFillTheStampCache(t *testing.T) {
	in := newInstallation(t)
	u := in.fresh()
	var ps []registry.Persona
	for i := range 3 {
		ps = append(ps, in.register(t, fmt.Sprintf("w%d/core/lead", i), fmt.Sprintf("Star %d", i)))
	}
	for _, p := range ps {
		if err := u.CheckStanding(p); err != nil {
			t.Fatalf("standing check of %s: %v", p.Address, err)
		}
	}
	if n := u.stamps.len(); n != 0 {
		t.Fatalf("%d stamps cached by standing checks alone, want none", n)
	}
	if _, err := u.LoadStamp(t.Context(), ps[0]); err != nil {
		t.Fatal(err)
	}
	if err := u.CheckStanding(ps[0]); err != nil || u.stamps.len() != 1 {
		t.Fatalf("standing check of a cached stamp: %v, %d cached", err, u.stamps.len())
	}
}

// readContexts is a real store that remembers the context of each read of
// a stored stamp.
type readContexts struct {
	*boltstore.Store
	mu    sync.Mutex
	stamp []context.Context
}

func (s *readContexts) Get(ctx context.Context, key string) (store.KV, error) {
	if strings.HasPrefix(key, StampPrefix) {
		s.mu.Lock()
		s.stamp = append(s.stamp, ctx)
		s.mu.Unlock()
	}
	return s.Store.Get(ctx, key)
}

// requestMark marks the context a request is made under.
type requestMark struct{}

// A stamp not yet cached is read inside the request's plan under the
// plan's context, so that it ends with the request: one read under
// context.Background() outlived a caller that gave up.
func TestAStampMissInAPlanReadsUnderThePlansContext(t *testing.T) {
	in := newInstallation(t)
	lead := activeLead(t, in)
	reads := &readContexts{Store: in.st.(*boltstore.Store)}
	u := New(Config{Store: reads, Registry: in.reg, Queue: in.queue, Now: in.clk.Now})
	caller := Caller{Principal: confirm.PersonaPrincipal(lead.Address), PersonaID: lead.ID}
	ctx := context.WithValue(t.Context(), requestMark{}, true)
	if _, _, err := u.RequestConfirmation(ctx, Key{}, caller, deploy("cold-1")); err != nil {
		t.Fatal(err)
	}
	if len(reads.stamp) == 0 {
		t.Fatal("the request of a generation whose stamp was not cached read no stamp")
	}
	for i, rc := range reads.stamp {
		if rc.Value(requestMark{}) == nil {
			t.Fatalf("stamp read %d of %d was not made under the request's context", i+1, len(reads.stamp))
		}
	}
}

// len is how many stamps are cached.
func (c *stampCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}
