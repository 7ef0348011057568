package roster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// Key layout in the store. Every write goes through a compare-and-swap
// transaction guarded on the keys it read, so two registrations racing for
// one seat or one name cannot both win — on bbolt now and on etcd later.
const (
	// personaPrefix + id → Persona (JSON).
	personaPrefix = PrefixPersona
	// seatPrefix + address → seatRecord (JSON).
	seatPrefix = "seat/"
	// namePrefix + lowercased name → persona id.
	namePrefix = "name/"
	// skeletonPrefix + one of a name's looks (registry.NameLooks) → persona id:
	// one name of each look.
	skeletonPrefix = "name-skeleton/"
)

// PrefixPersona holds the persona generations by id, each a Persona as
// JSON: the records the service layer's persona events are made of.
const PrefixPersona = "persona/"

// maxAttempts bounds the read-decide-commit retries of one operation.
const maxAttempts = 16

// seatRecord is an address's seat: its current pending or active holder (or
// none) and every holder it ever had, oldest first.
type seatRecord struct {
	Holder  string   `json:"holder"`
	History []string `json:"history"`
}

// Registry keeps the personas, seats, generations and names of one
// installation in a store.Store. It is safe for concurrent use, and so are
// several Registries over one store: every change is a conditional commit.
type Registry struct {
	s    store.Store
	home registry.Home
	now  func() time.Time
}

// Option configures a Registry.
type Option func(*Registry)

// WithClock replaces time.Now, so tests can pin the recorded timestamps.
func WithClock(now func() time.Time) Option { return func(r *Registry) { r.now = now } }

// New returns a Registry over s whose persona directories live under home.
// The caller keeps ownership of s and closes it.
func New(s store.Store, home registry.Home, opts ...Option) *Registry {
	r := &Registry{s: s, home: home, now: time.Now}
	for _, o := range opts {
		o(r)
	}
	return r
}

// Home is the installation home the registry creates persona directories in.
func (r *Registry) Home() registry.Home { return r.home }

func (r *Registry) stamp() time.Time { return r.now().UTC() }

// update runs read-decide-commit until the commit's conditions hold. plan
// reads what it needs and returns the guarded writes; returning no ops means
// nothing needs writing.
func (r *Registry) update(ctx context.Context, plan func() ([]store.Cond, []store.Op, error)) error {
	for range maxAttempts {
		conds, ops, err := plan()
		if err != nil || len(ops) == 0 {
			return err
		}
		_, err = r.s.Txn(ctx, conds, ops)
		if !errors.Is(err, store.ErrConflict) {
			return err
		}
	}
	return registry.ErrContention
}

// getPersona reads one persona record and its revision.
func (r *Registry) getPersona(ctx context.Context, id string) (registry.Persona, int64, error) {
	kv, err := r.s.Get(ctx, personaPrefix+id)
	if errors.Is(err, store.ErrNotFound) {
		return registry.Persona{}, 0, fmt.Errorf("%w: no persona with id %q", registry.ErrNotFound, id)
	}
	if err != nil {
		return registry.Persona{}, 0, fmt.Errorf("read persona %s: %w", id, err)
	}
	p, err := registry.DecodePersona(kv.Value)
	if err != nil {
		return registry.Persona{}, 0, fmt.Errorf("read persona %s: %w: %v", id, store.ErrCorrupt, err)
	}
	return p, kv.ModRev, nil
}

// getSeat reads a seat; a seat never granted reads as empty with revision 0,
// which is also the condition "still never granted" at commit.
func (r *Registry) getSeat(ctx context.Context, addr string) (seatRecord, int64, error) {
	kv, err := r.s.Get(ctx, seatPrefix+addr)
	if errors.Is(err, store.ErrNotFound) {
		return seatRecord{}, 0, nil
	}
	if err != nil {
		return seatRecord{}, 0, fmt.Errorf("read seat %s: %w", addr, err)
	}
	s, err := decodeSeat(kv.Value)
	if err != nil {
		return seatRecord{}, 0, fmt.Errorf("read seat %s: %w: %v", addr, store.ErrCorrupt, err)
	}
	return s, kv.ModRev, nil
}

// ops collects puts, stopping at the first encoding error.
type ops struct {
	list []store.Op
	err  error
}

func (o *ops) put(key string, v any) {
	if o.err != nil {
		return
	}
	op, err := store.PutJSON(key, v)
	o.list, o.err = append(o.list, op), err
}

func (o *ops) persona(p registry.Persona) {
	if o.err != nil {
		return
	}
	data, err := registry.EncodePersona(p)
	if err != nil {
		o.err = fmt.Errorf("encode persona %s: %w", p.Address, err)
		return
	}
	o.list = append(o.list, store.Put(personaPrefix+p.ID, data))
}
func (o *ops) seat(addr string, s seatRecord) { o.put(seatPrefix+addr, s) }

// decodeSeat reads a stored seat record.
func decodeSeat(data []byte) (seatRecord, error) {
	var s seatRecord
	err := strictjson.DecodeOpen(data, &s)
	return s, err
}
