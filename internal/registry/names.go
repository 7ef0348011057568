package registry

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.mau.fi/util/confusable"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// MaxNameLen is the longest persona name, in characters.
const MaxNameLen = 40

//go:embed names.txt
var namesData string

// ConstellationNames are the suggested persona names, in suggestion order
// (names.txt, a data file, so the list is edited without touching code).
var ConstellationNames = parseNames(namesData)

func parseNames(data string) []string {
	var out []string
	for _, line := range strings.Split(data, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

// NormalizeName trims a persona name and checks the name rules: 1 to 40
// characters, letters, digits, spaces, '-' and '\”. "Rijl al Awwa" is valid.
func NormalizeName(name string) (string, error) {
	n := strings.TrimSpace(name)
	if n == "" {
		return "", fmt.Errorf("%w: the name is empty; try `virgo-tui persona names` for free ones", ErrInvalidName)
	}
	if utf8.RuneCountInString(n) > MaxNameLen {
		return "", fmt.Errorf("%q: %w: at most %d characters", n, ErrInvalidName, MaxNameLen)
	}
	for _, r := range n {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == ' ' || r == '-' || r == '\'') {
			return "", fmt.Errorf("%q: %w: %q is not allowed; use letters, digits, spaces, '-' and '\\''", n, ErrInvalidName, r)
		}
	}
	return n, nil
}

// nameKey is the uniqueness key of a name: names compare case-insensitively.
func nameKey(name string) string { return strings.ToLower(name) }

// nameSkeleton is the look of a name: the UTS #39 skeleton of its
// case-folded form, so that names that only look alike ("Spica" and "Ѕpica"
// with a Cyrillic Ѕ, "Heze" and "Ηeze" with a Greek Η) share one and only
// one of them can be registered — an operator reading a name must be
// reading the persona it names.
func nameSkeleton(name string) string {
	return strings.ToLower(confusable.Skeleton(strings.ToLower(name)))
}

// IndexNameSkeletons gives every name of a store written before names were
// compared by look its skeleton, once (later registrations write theirs
// with the name). Two old names of one look keep both their records; the
// first holds the skeleton, and no third can join them. The skeletons go
// in transactions within the store's limits, then the mark that they are
// done: an indexing cut short leaves skeletons that hold (each is written
// only where none is), and the next start writes the rest.
func (r *Registry) IndexNameSkeletons(ctx context.Context) error {
	if _, err := r.s.Get(ctx, skeletonsIndexed); err == nil {
		return nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("index name skeletons: %w", err)
	}
	names, err := r.s.List(ctx, namePrefix)
	if err != nil {
		return fmt.Errorf("index name skeletons: %w", err)
	}
	held, err := r.s.List(ctx, skeletonPrefix)
	if err != nil {
		return fmt.Errorf("index name skeletons: %w", err)
	}
	seen := map[string]bool{}
	for _, kv := range held {
		seen[kv.Key] = true
	}
	var ops []store.Op
	for _, kv := range names {
		sk := skeletonPrefix + nameSkeleton(strings.TrimPrefix(kv.Key, namePrefix))
		if !seen[sk] {
			seen[sk] = true
			ops = append(ops, store.Put(sk, kv.Value))
		}
	}
	ops = append(ops, store.Put(skeletonsIndexed, []byte("1")))
	for len(ops) > 0 {
		n := min(len(ops), store.MaxTxnOps)
		conds := make([]store.Cond, n)
		for i, op := range ops[:n] {
			conds[i] = store.Cond{Key: op.Key}
		}
		if _, err := r.s.Txn(ctx, conds, ops[:n]); errors.Is(err, store.ErrConflict) {
			return r.IndexNameSkeletons(ctx) // a registration or another indexer came first
		} else if err != nil {
			return fmt.Errorf("index name skeletons: %w", err)
		}
		ops = ops[n:]
	}
	return nil
}

// suggestion is the i-th name of the endless suggestion sequence: the list
// once, then every name again with " II", then " III", and so on. It is
// deterministic and never empty.
func suggestion(i int) string {
	n := len(ConstellationNames)
	base, round := ConstellationNames[i%n], i/n
	if round == 0 {
		return base
	}
	return base + " " + roman(round+1)
}

// roman renders n ≥ 1 in Roman numerals.
func roman(n int) string {
	var b strings.Builder
	for _, step := range []struct {
		v int
		s string
	}{{1000, "M"}, {900, "CM"}, {500, "D"}, {400, "CD"}, {100, "C"}, {90, "XC"},
		{50, "L"}, {40, "XL"}, {10, "X"}, {9, "IX"}, {5, "V"}, {4, "IV"}, {1, "I"}} {
		for n >= step.v {
			b.WriteString(step.s)
			n -= step.v
		}
	}
	return b.String()
}

// SuggestNames returns the first n free names of the suggestion sequence,
// first one first. Taken names — retired ones too, in any case — are skipped.
func (r *Registry) SuggestNames(ctx context.Context, n int) ([]string, error) {
	if n < 1 {
		return nil, fmt.Errorf("suggest names: %w", ErrInvalidCount)
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
		if s := suggestion(i); !taken[nameSkeleton(s)] {
			out = append(out, s)
		}
	}
	return out
}

// takenNames is the set of the skeletons of the names in use, retired
// included: a name that looks like one of them is taken.
func (r *Registry) takenNames(ctx context.Context) (map[string]bool, error) {
	kvs, err := r.s.List(ctx, namePrefix)
	if err != nil {
		return nil, fmt.Errorf("list names: %w", err)
	}
	taken := make(map[string]bool, len(kvs))
	for _, kv := range kvs {
		taken[nameSkeleton(strings.TrimPrefix(kv.Key, namePrefix))] = true
	}
	return taken, nil
}
