package boltstore_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

// BenchmarkDatabaseSize10kPersonas registers 10,000 personas (5,000
// projects in 100 scopes, a lead and a deputy each, as the registry's
// benchmarks do) through the registry into one database and reports the
// file's size and how much of it the change log takes. Goal: < 50 MB. Run
// with -benchtime 1x: one op is the whole installation.
func BenchmarkDatabaseSize10kPersonas(b *testing.B) {
	const personas = 10_000
	for i := 0; i < b.N; i++ {
		home, err := registry.CreateHome(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		s, err := boltstore.Open(home.DBPath(), boltstore.Options{})
		if err != nil {
			b.Fatal(err)
		}
		r := roster.New(s, home)
		n := len(registry.ConstellationNames)
		for p := 0; p < personas; p++ {
			role := "lead"
			if p%2 == 1 {
				role = "deputy"
			}
			reg := registry.Registration{Address: fmt.Sprintf("w%d/p%d/%s", p%100, p/2, role),
				Name: fmt.Sprintf("%s %d", registry.ConstellationNames[p%n], p/n+1), Human: "human:bench"}
			if _, err := r.Register(context.Background(), reg); err != nil {
				b.Fatal(err)
			}
		}
		st, err := s.Stats()
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		fi, err := os.Stat(home.DBPath())
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(fi.Size())/1e6, "file-MB")
		b.ReportMetric(float64(st.LogEntries), "log-entries")
		b.ReportMetric(float64(st.LogBytes)/1e6, "log-MB")
	}
}
