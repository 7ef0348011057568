package hub

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

// outageStore is a store that can be taken down: the outage ends the
// watches open on it (as etcd ends a require-leader watch on a member that
// lost its quorum) and fails every Watch meanwhile with
// store.ErrUnavailable.
type outageStore struct {
	store.Store
	mu      sync.Mutex
	down    bool
	refused int
	ends    []context.CancelFunc
}

func (s *outageStore) Watch(ctx context.Context, prefix string, afterRev int64) (<-chan store.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		s.refused++
		return nil, fmt.Errorf("watch: %w", store.ErrUnavailable)
	}
	wctx, end := context.WithCancel(ctx)
	s.ends = append(s.ends, end)
	return s.Store.Watch(wctx, prefix, afterRev)
}

func (s *outageStore) setDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
	for _, end := range s.ends {
		end()
	}
	s.ends = nil
}

func (s *outageStore) refusals() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}

// Found on a real three-member cluster (cmd/virgo-tui's
// TestEtcdClusterTwoMembersDownIsStoreUnavailableThenRecovers): an outage longer than
// one attempt to watch again ended the hub's store watch for good, so every
// write after the store returned hung in Settle, waiting for a watch that
// was gone. The hub watches again until the store answers.
func TestStoreWatchOutlivesAnOutage(t *testing.T) {
	home := shortHome(t)
	bolt, err := boltstore.Open(home.DBPath(), boltstore.Options{})
	mustNil(t, err)
	defer bolt.Close()
	st := &outageStore{Store: bolt}
	ctx, cancel := context.WithCancel(context.Background())
	h, err := New(ctx, Config{Home: home, Store: st})
	mustNil(t, err)
	ran := make(chan error, 1)
	go func() { ran <- h.Run(ctx) }()
	defer func() { cancel(); mustNil(t, <-ran) }()

	st.setDown(true)
	deadline := time.Now().Add(10 * time.Second)
	for st.refusals() < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the hub tried to watch the unavailable store %d times in 10 s; want it to keep trying", st.refusals())
		}
		time.Sleep(10 * time.Millisecond)
	}
	st.setDown(false)
	_, err = bolt.Txn(ctx, nil, []store.Op{store.Put("outage/after", []byte("x"))})
	mustNil(t, err)
	sctx, done := context.WithTimeout(ctx, 10*time.Second)
	defer done()
	if err := h.Settle(sctx); err != nil {
		t.Fatalf("a write after the outage is not applied by the hub's watch: %v", err)
	}
}
