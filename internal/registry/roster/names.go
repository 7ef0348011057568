package roster

import (
	"context"
	"fmt"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// nameKeys are the store keys a name holds: its lower case and its looks.
func nameKeys(name string) []string {
	keys := []string{namePrefix + registry.NameKey(name)}
	for _, sk := range registry.NameLooks(name) {
		keys = append(keys, skeletonPrefix+sk)
	}
	return keys
}

// SuggestNames returns the first n free names of the suggestion sequence,
// first one first. Taken names — retired ones too, in any case — are skipped.
func (r *Registry) SuggestNames(ctx context.Context, n int) ([]string, error) {
	if n < 1 {
		return nil, fmt.Errorf("suggest names: %w", registry.ErrInvalidCount)
	}
	taken, err := r.takenNames(ctx)
	if err != nil {
		return nil, err
	}
	return freeNames(taken, n), nil
}

func freeNames(taken map[string]bool, n int) []string {
	out := make([]string, 0, n)
	for i := 0; len(out) < n; i++ {
		if s := registry.Suggestion(i); !anyTaken(taken, registry.NameLooks(s)) {
			out = append(out, s)
		}
	}
	return out
}

// anyTaken reports whether one of the looks is taken.
func anyTaken(taken map[string]bool, looks []string) bool {
	for _, sk := range looks {
		if taken[sk] {
			return true
		}
	}
	return false
}

// takenNames is the set of the looks of the names in use, retired
// included: a name that looks like one of them is taken. The looks are
// the stored ones (a name's as typed among them) and those of the name
// keys, which hold in a store not yet indexed.
func (r *Registry) takenNames(ctx context.Context) (map[string]bool, error) {
	kvs, err := r.s.List(ctx, namePrefix)
	if err != nil {
		return nil, fmt.Errorf("list names: %w", err)
	}
	held, err := r.s.List(ctx, skeletonPrefix)
	if err != nil {
		return nil, fmt.Errorf("list names: %w", err)
	}
	taken := make(map[string]bool, len(kvs)+len(held))
	for _, kv := range kvs {
		for _, sk := range registry.NameLooks(strings.TrimPrefix(kv.Key, namePrefix)) {
			taken[sk] = true
		}
	}
	for _, kv := range held {
		taken[strings.TrimPrefix(kv.Key, skeletonPrefix)] = true
	}
	return taken, nil
}
