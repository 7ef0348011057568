package roster

import (
	"context"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

// benchPersonas is the installation size the goals name.
const benchPersonas = 10_000

// benchRegistration is the i-th of a large installation: 5,000 projects in
// 100 scopes, a lead and a deputy each. Not the suggestion sequence's
// names: past its first rounds they look alike ("Spica XL", "Spica XI"),
// which Register refuses, as SuggestNames skips.
func benchRegistration(i int) registry.Registration {
	role := "lead"
	if i%2 == 1 {
		role = "deputy"
	}
	return registry.Registration{Address: fmt.Sprintf("w%d/p%d/%s", i%100, i/2, role), Name: fmt.Sprintf("Bench %d", i), Human: "human:bench"}
}

// openBench opens (creating) the installation at dir.
func openBench(b *testing.B, home registry.Home) (*Registry, store.Store) {
	b.Helper()
	s, err := boltstore.Open(home.DBPath(), boltstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return New(s, home), s
}

// seeded is a 10,000-persona home built once per benchmark binary run, by
// Register itself, so the benchmarks read what real registrations wrote.
var seeded struct {
	home registry.Home
	err  error
}

func seededHome(b *testing.B) registry.Home {
	b.Helper()
	if seeded.home.Dir == "" && seeded.err == nil {
		dir, err := os.MkdirTemp("", "virgo-bench-")
		if err != nil {
			b.Fatal(err)
		}
		seeded.home, seeded.err = registry.CreateHome(dir)
		r, s := openBench(b, seeded.home)
		for i := 0; i < benchPersonas && seeded.err == nil; i++ {
			_, seeded.err = r.Register(context.Background(), benchRegistration(i))
		}
		s.Close()
	}
	if seeded.err != nil {
		b.Fatal(seeded.err)
	}
	return seeded.home
}

// BenchmarkRegister registers one persona per op into one growing database
// (run with -benchtime 10000x for the goal's 10,000 personas). Every op is a
// durable, fsynced compare-and-swap commit plus the generation's directory.
func BenchmarkRegister(b *testing.B) {
	home, err := registry.CreateHome(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	r, s := openBench(b, home)
	defer s.Close()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.Register(ctx, benchRegistration(i)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListJSON10k is `persona list -o json` over 10,000 personas minus
// process start and store open: ListRecords (read, check, sort) and the JSON
// document written to io.Discard. Goal < 100 ms. (cmd/virgo-tui's
// BenchmarkPersonaListJSON10k runs the whole command.)
func BenchmarkListJSON10k(b *testing.B) {
	r, s := openBench(b, seededHome(b))
	defer s.Close()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		list, err := r.ListRecords(ctx, ListOptions{All: true})
		if err != nil || len(list) != benchPersonas {
			b.Fatalf("ListRecords = %d, %v", len(list), err)
		}
		if err := registry.WriteJSONArray(io.Discard, list); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpen10k opens and closes a 10,000-persona database. Goal < 20 ms.
func BenchmarkOpen10k(b *testing.B) {
	path := seededHome(b).DBPath()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := boltstore.Open(path, boltstore.Options{})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// TestMain removes the seeded benchmark home, which outlives any one benchmark.
func TestMain(m *testing.M) {
	code := m.Run()
	if seeded.home.Dir != "" {
		os.RemoveAll(seeded.home.Dir)
	}
	os.Exit(code)
}
