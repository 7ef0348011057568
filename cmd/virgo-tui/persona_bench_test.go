package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// BenchmarkPersonaListJSON10k runs the whole `persona list -o json` command
// in-process over a 10,000-persona home: resolve the home, open the bbolt
// file, List, write the JSON to io.Discard, close. Goal < 100 ms.
func BenchmarkPersonaListJSON10k(b *testing.B) {
	home := seed10k(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		root := newRootCmd()
		root.SetArgs([]string{"--home", home, "persona", "list", "--all", "-o", "json"})
		root.SetOut(io.Discard)
		root.SetErr(io.Discard)
		if err := root.Execute(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	var out bytes.Buffer
	root := newRootCmd()
	root.SetArgs([]string{"--home", home, "persona", "list", "--all", "-o", "json"})
	root.SetOut(&out)
	root.Execute()
	if n := bytes.Count(out.Bytes(), []byte(`"id":`)); n != 10_000 {
		b.Fatalf("listed %d personas, want 10000", n)
	}
}

// seeded10k is the home seed10k built; the benchmark function runs more
// than once (b.N = 1 first) and seeding takes tens of seconds.
var seeded10k string

// seed10k registers 10,000 personas (5,000 projects, a lead and a deputy
// each) through the registry, the way persona add does, once per run.
func seed10k(b *testing.B) string {
	b.Helper()
	if seeded10k != "" {
		return seeded10k
	}
	dir, err := os.MkdirTemp("", "virgo-bench-")
	if err != nil {
		b.Fatal(err)
	}
	home, err := registry.ResolveHome(dir)
	if err != nil {
		b.Fatal(err)
	}
	s, err := store.OpenBolt(home.DBPath(), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	r := registry.New(s, home)
	for i := 0; i < 10_000; i++ {
		role := "lead"
		if i%2 == 1 {
			role = "deputy"
		}
		reg := registry.Registration{Address: fmt.Sprintf("w%d/p%d/%s", i%100, i/2, role),
			Name: fmt.Sprintf("Bench %d", i), Human: "human:bench"}
		if _, err := r.Register(context.Background(), reg); err != nil {
			b.Fatal(err)
		}
	}
	if fi, err := os.Stat(home.DBPath()); err == nil {
		b.Logf("10,000-persona database: %d bytes", fi.Size())
	}
	seeded10k = dir
	return dir
}

// TestMain removes the seeded benchmark home, which outlives one benchmark.
func TestMain(m *testing.M) {
	code := m.Run()
	if seeded10k != "" {
		os.RemoveAll(seeded10k)
	}
	os.Exit(code)
}
