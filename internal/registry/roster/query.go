package roster

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/shares"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// Resolve finds a persona by reference: an address (anything with a '/')
// resolves to the seat's current pending or active holder; anything else is
// a name, matched case-insensitively, in any state.
func (r *Registry) Resolve(ctx context.Context, ref string) (registry.Persona, error) {
	ref = strings.TrimSpace(ref)
	if strings.Contains(ref, "/") {
		return r.resolveAddress(ctx, ref)
	}
	kv, err := r.s.Get(ctx, namePrefix+registry.NameKey(ref))
	if errors.Is(err, store.ErrNotFound) {
		return registry.Persona{}, fmt.Errorf("%w: no persona is named %q (see `virgo-tui persona list --all`)", registry.ErrNotFound, ref)
	}
	if err != nil {
		return registry.Persona{}, fmt.Errorf("resolve %s: %w", ref, err)
	}
	p, _, err := r.getPersona(ctx, string(kv.Value))
	return p, err
}

func (r *Registry) resolveAddress(ctx context.Context, ref string) (registry.Persona, error) {
	addr, err := registry.ParseAddress(ref)
	if err != nil {
		return registry.Persona{}, err
	}
	seat, rev, err := r.getSeat(ctx, addr.String())
	if err != nil {
		return registry.Persona{}, err
	}
	if rev == 0 {
		return registry.Persona{}, fmt.Errorf("%w: no persona was ever registered at %s", registry.ErrNotFound, addr)
	}
	if seat.Holder == "" {
		last, _, err := r.getPersona(ctx, seat.History[len(seat.History)-1])
		if err != nil {
			return registry.Persona{}, err
		}
		return registry.Persona{}, fmt.Errorf("%w: %s has no holder; last held by %s (generation %d, %s)",
			registry.ErrNotFound, addr, last.Name, last.Generation, last.State)
	}
	p, _, err := r.getPersona(ctx, seat.Holder)
	return p, err
}

// Get returns the persona with the given id.
func (r *Registry) Get(ctx context.Context, id string) (registry.Persona, error) {
	p, _, err := r.getPersona(ctx, id)
	return p, err
}

// GetGuarded returns the persona with the given id and the condition that
// holds while its record is unchanged: a use case that joins it to its
// transaction commits only if no change to the generation (its retirement,
// say) committed since it was read.
func (r *Registry) GetGuarded(ctx context.Context, id string) (registry.Persona, store.Cond, error) {
	p, rev, err := r.getPersona(ctx, id)
	return p, store.Cond{Key: personaPrefix + id, ModRev: rev}, err
}

// ListOptions selects what List returns.
type ListOptions struct {
	// All includes retired and refused personas.
	All bool
}

// List returns the personas sorted by address, then generation: pending and
// active ones, or every generation ever registered with All.
func (r *Registry) List(ctx context.Context, opts ListOptions) ([]registry.Persona, error) {
	kvs, err := r.s.List(ctx, personaPrefix)
	if err != nil {
		return nil, fmt.Errorf("list personas: %w", err)
	}
	ps, err := decodeAll(kvs)
	if err != nil {
		return nil, err
	}
	out := ps[:0]
	for _, p := range ps {
		if opts.All || p.State.HoldsSeat() {
			out = append(out, p)
		}
	}
	return sortByAddress(out), nil
}

// decodeAll decodes stored persona records, a share of them per
// processor: decoding is most of a large list's time (a hub's start lists
// every generation ever registered).
func decodeAll(kvs []store.KV) ([]registry.Persona, error) {
	ps := make([]registry.Persona, len(kvs))
	err := shares.Do(len(kvs), minDecodeShare, func(lo, hi int) error {
		return decodeShare(kvs[lo:hi], ps[lo:hi])
	})
	return ps, err
}

// minDecodeShare is the fewest records worth a goroutine of their own.
const minDecodeShare = 512

// decodeShare decodes kvs into ps with one decoder.
func decodeShare(kvs []store.KV, ps []registry.Persona) error {
	var dec registry.PersonaDecoder
	for i, kv := range kvs {
		p, err := dec.Decode(kv.Value)
		if err != nil {
			return fmt.Errorf("list personas: %s: %w: %v", kv.Key, store.ErrCorrupt, err)
		}
		ps[i] = p
	}
	return nil
}

// sortByAddress orders ps by address then generation. It sorts positions
// and moves each record once: a sort of the records themselves moves
// 300-byte structs at every swap, a sixth of a 10,000-persona list's time.
func sortByAddress(ps []registry.Persona) []registry.Persona {
	order := make([]int32, len(ps))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int {
		a, b := &ps[i], &ps[j]
		return cmp.Or(strings.Compare(a.Address, b.Address), cmp.Compare(a.Generation, b.Generation))
	})
	out := make([]registry.Persona, len(ps))
	for k, i := range order {
		out[k] = ps[i]
	}
	return out
}

// SeatHistory returns every persona that ever held the seat at addr, oldest
// generation first.
func (r *Registry) SeatHistory(ctx context.Context, addr string) ([]registry.Persona, error) {
	a, err := registry.ParseAddress(strings.TrimSpace(addr))
	if err != nil {
		return nil, err
	}
	seat, rev, err := r.getSeat(ctx, a.String())
	if err != nil {
		return nil, err
	}
	if rev == 0 {
		return nil, fmt.Errorf("%w: no persona was ever registered at %s", registry.ErrNotFound, a)
	}
	out := make([]registry.Persona, 0, len(seat.History))
	for _, id := range seat.History {
		p, _, err := r.getPersona(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// OwningLead returns the active holder of the lead seat of the deputy's
// project: the persona a deputy-scope confirmation is routed to.
func (r *Registry) OwningLead(ctx context.Context, deputyAddr string) (registry.Persona, error) {
	a, err := registry.ParseAddress(strings.TrimSpace(deputyAddr))
	if err != nil {
		return registry.Persona{}, err
	}
	if a.Role != "deputy" {
		return registry.Persona{}, fmt.Errorf("owning lead of %s: %w: only a <scope>/<project>/deputy has an owning lead", a, registry.ErrNotDeputy)
	}
	lead := registry.Address{Scope: a.Scope, Project: a.Project, Role: "lead"}
	p, err := r.Resolve(ctx, lead.String())
	if err != nil {
		return registry.Persona{}, fmt.Errorf("owning lead of %s: %w", a, err)
	}
	if p.State != registry.StateActive {
		return registry.Persona{}, fmt.Errorf("owning lead of %s: %w: %s holds %s but is %s", a, registry.ErrNotFound, p.Name, lead, p.State)
	}
	return p, nil
}

// seats lists the address of every seat ever granted, in key order.
func (r *Registry) seats(ctx context.Context) ([]registry.Address, error) {
	kvs, err := r.s.List(ctx, seatPrefix)
	if err != nil {
		return nil, fmt.Errorf("list seats: %w", err)
	}
	out := make([]registry.Address, 0, len(kvs))
	for _, kv := range kvs {
		a, err := registry.ParseAddress(strings.TrimPrefix(kv.Key, seatPrefix))
		if err != nil {
			return nil, fmt.Errorf("list seats: %w: %v", store.ErrCorrupt, err)
		}
		out = append(out, a)
	}
	return out, nil
}

// Scopes lists the scopes of every address ever registered, sorted, so the
// wizard can offer them (root included when a root seat exists).
func (r *Registry) Scopes(ctx context.Context) ([]string, error) {
	return r.distinct(ctx, func(a registry.Address) string { return a.Scope })
}

// Projects lists the projects of scope that have ever had a seat, sorted.
func (r *Registry) Projects(ctx context.Context, scope string) ([]string, error) {
	return r.distinct(ctx, func(a registry.Address) string {
		if a.Scope != scope {
			return ""
		}
		return a.Project
	})
}

func (r *Registry) distinct(ctx context.Context, part func(registry.Address) string) ([]string, error) {
	addrs, err := r.seats(ctx)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	out := []string{}
	for _, a := range addrs {
		if v := part(a); v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out, nil
}

// FirstPersonaDefault suggests root/secretary and the first free name, only
// while the installation has no persona at all. This default belongs to
// persona add alone; nothing else registers on its own.
func (r *Registry) FirstPersonaDefault(ctx context.Context) (addr, name string, ok bool, err error) {
	kvs, err := r.s.List(ctx, seatPrefix)
	if err != nil {
		return "", "", false, fmt.Errorf("first persona default: %w", err)
	}
	if len(kvs) > 0 {
		return "", "", false, nil
	}
	names, err := r.SuggestNames(ctx, 1)
	if err != nil {
		return "", "", false, err
	}
	return registry.FirstPersonaAddress, names[0], true, nil
}

// ListRecords is List as Records: the same personas in the same order, each
// the bytes the store holds (see Record) instead of a decoded Persona —
// what the hub serves and `persona list -o json` prints.
func (r *Registry) ListRecords(ctx context.Context, opts ListOptions) ([]registry.Record, error) {
	kvs, err := r.s.List(ctx, personaPrefix)
	if err != nil {
		return nil, fmt.Errorf("list personas: %w", err)
	}
	out := make([]registry.Record, 0, len(kvs))
	for _, kv := range kvs {
		rec, err := registry.NewRecord(kv.Value)
		if err != nil {
			return nil, fmt.Errorf("list personas: %s: %w: %v", kv.Key, store.ErrCorrupt, err)
		}
		if opts.All || rec.State().HoldsSeat() {
			out = append(out, rec)
		}
	}
	registry.SortRecords(out)
	return out, nil
}
