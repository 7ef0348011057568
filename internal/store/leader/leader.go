// Package leader decides which of an installation's hubs runs the jobs that
// must run once (the expiry sweep, the idempotency sweep), and fences every
// write such a job makes by the revision of its leader key: a job whose
// leadership moved on — its lease lost while it was paused, its key taken
// away — cannot write, however late it wakes.
//
// On etcd the election is etcd's own (client/v3/concurrency: a session's
// lease, the candidate whose key under the election's prefix was created
// first leads); on a store with one owner (the bbolt file) that owner is
// always the leader and nothing needs fencing (Solo).
package leader

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// ErrNotLeader: a job's write was refused because its term is over — the
// leader key it was elected with moved on or its lease is lost. Such an
// error is also store.ErrConflict, naming the leader key. The job stops
// and campaigns again.
var ErrNotLeader = errors.New("no longer leader")

// Election is one installation's election of the process that runs its
// run-once jobs.
type Election interface {
	// Campaign waits until this process leads (or ctx ends, or the store
	// fails) and returns its term.
	Campaign(ctx context.Context) (*Term, error)
	// Leader says who leads now, for status; ok is false when no one does.
	Leader(ctx context.Context) (h Holder, ok bool, err error)
}

// Holder is the candidate that leads an election.
type Holder struct {
	// Name is what the leader campaigned with (its host and process).
	Name string `json:"name"`
	// Key is its leader key in the store ("" on a store with one owner).
	Key string `json:"key,omitempty"`
	// Since is the revision at which it was elected (its key's creation).
	Since int64 `json:"since,omitempty"`
	// Candidates is how many are in the election, the leader included.
	Candidates int `json:"candidates"`
}

// Term is one leadership: from the Campaign that won it until Resign, the
// loss of its lease, or a fenced write that found its key moved on.
type Term struct {
	// Fence is the condition every write of the term carries: its leader
	// key still at the revision it was elected with. The zero Cond (Key
	// "") on a store with one owner: nothing to fence.
	Fence store.Cond

	lost     chan struct{}
	loseOnce sync.Once
	resign   func(context.Context) error
}

func newTerm(fence store.Cond, leaseDone <-chan struct{}, resign func(context.Context) error) *Term {
	t := &Term{Fence: fence, lost: make(chan struct{}), resign: resign}
	if leaseDone != nil {
		go func() {
			select {
			case <-leaseDone:
				t.lose()
			case <-t.lost:
			}
		}()
	}
	return t
}

// Done is closed when the term is over: its lease lost, a fenced write
// refused, or Resign.
func (t *Term) Done() <-chan struct{} { return t.lost }

func (t *Term) lose() { t.loseOnce.Do(func() { close(t.lost) }) }

// Resign ends the term and lets another candidate lead.
func (t *Term) Resign(ctx context.Context) error {
	t.lose()
	if t.resign == nil {
		return nil
	}
	return t.resign(ctx)
}

// Store is s with the term's fence added to every transaction: the one
// mechanism by which a job's writes are fenced, so that the use cases a
// job runs need no change. A transaction after the term is over fails at
// once; one the store refuses because the leader key moved ends the term.
// Both fail with ErrNotLeader, which is also store.ErrConflict. Reads and
// watches pass through. Closing it does not close s.
func (t *Term) Store(s store.Store) store.Store {
	if t.Fence.Key == "" {
		return s
	}
	return &fenced{Store: s, term: t}
}

type fenced struct {
	store.Store
	term *Term
}

func (f *fenced) Txn(ctx context.Context, conds []store.Cond, ops []store.Op) (int64, error) {
	fence := f.term.Fence
	select {
	case <-f.term.lost:
		return 0, fmt.Errorf("%w: %w: the term of leader key %q (revision %d) is over", ErrNotLeader, store.ErrConflict, fence.Key, fence.ModRev)
	default:
	}
	// The fence goes first, so a conflict names the leader key when it
	// moved, whatever else did.
	rev, err := f.Store.Txn(ctx, append([]store.Cond{fence}, conds...), ops)
	if !errors.Is(err, store.ErrConflict) {
		return rev, err
	}
	kv, gerr := f.Store.Get(ctx, fence.Key)
	switch {
	case errors.Is(gerr, store.ErrNotFound), gerr == nil && kv.ModRev != fence.ModRev:
		f.term.lose()
		return 0, fmt.Errorf("%w: %w", ErrNotLeader, err)
	case gerr != nil:
		return 0, errors.Join(err, gerr)
	}
	return 0, err
}

// Close leaves the store open: the fence does not own it.
func (f *fenced) Close() error { return nil }

// Solo is the election of a store with one owner (the bbolt file, which
// one hub holds locked): the owner always leads, and nothing is fenced.
type Solo struct{}

// Campaign returns a term at once; it ends only by Resign.
func (Solo) Campaign(ctx context.Context) (*Term, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return newTerm(store.Cond{}, nil, nil), nil
}

// Leader is the store's one owner.
func (Solo) Leader(context.Context) (Holder, bool, error) {
	return Holder{Name: "the hub that holds the store", Candidates: 1}, true, nil
}
