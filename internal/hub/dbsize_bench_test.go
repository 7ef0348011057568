package hub

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/klauspost/compress/s2"

	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/usecase/usecasetest"
)

// BenchmarkStampedDatabase registers n personas as `persona add` does, each
// with its stamp stored and its activation approved (usecasetest.StampedHome,
// the fixture of BenchmarkHubMemory10000Personas without the serving hub), and
// reports the database file's size and what it holds (reportUsage).
func BenchmarkStampedDatabase(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				home := shortHome(b)
				usecasetest.StampedHome(b, home, n)
				reportUsage(b, home.DBPath(), n)
			}
		})
	}
}

// reportUsage reports the database file at path, holding n personas, once
// no hub holds it: its size (db-MB), bbolt's count of its pages (used-MB,
// free-MB, tail-MB grown ahead of need, leaf-fill-% of the records'
// bucket), and what the store's value codec earns: every record's value as
// written (values-raw-MB), each compressed by S2 alone (values-s2-MB) and by
// S2 against the store's dictionary (values-dict-MB, what the store
// writes), so that one run shows whether the dictionary pays for itself.
// With -v it logs each bucket.
func reportUsage(b *testing.B, path string, n int) {
	b.Helper()
	st, err := boltstore.Open(path, boltstore.Options{})
	mustNil(b, err)
	u, err := st.Usage()
	mustNil(b, err)
	stats, err := st.Stats()
	mustNil(b, err)
	kvs, err := st.List(context.Background(), "")
	mustNil(b, err)
	mustNil(b, st.Close())
	raw, err := os.ReadFile("../store/boltstore/dict/s2-v1.dict") // the dictionary the store embeds
	mustNil(b, err)
	d := s2.NewDict(raw)
	var plain, s2z, dictz int
	for _, kv := range kvs {
		plain += len(kv.Value)
		s2z += min(len(s2.Encode(nil, kv.Value)), len(kv.Value))
		dictz += min(len(d.Encode(nil, kv.Value)), len(kv.Value))
	}
	const mib = 1 << 20
	page := float64(u.PageSize)
	var lines strings.Builder
	var fill float64
	for _, bu := range u.Buckets {
		fmt.Fprintf(&lines, "%-10s %8d keys %8d leaf pages %4.0f%% full %6d branch pages\n", bu.Name, bu.Keys, bu.LeafPages, bu.Fill(u.PageSize)*100, bu.BranchPages)
		if bu.Name == "virgo.kv" {
			fill = bu.Fill(u.PageSize)
		}
	}
	b.Logf("%s: %.1f MiB, %d pages, %d free\n%s", path, float64(stats.FileSize)/mib, u.Pages, u.FreePages, lines.String())
	b.ReportMetric(float64(stats.FileSize)/mib, "db-MB")
	b.ReportMetric(float64(u.Pages-int64(u.FreePages))*page/mib, "used-MB")
	b.ReportMetric(float64(u.FreePages)*page/mib, "free-MB")
	b.ReportMetric(float64(stats.FileSize-u.Pages*int64(u.PageSize))/mib, "tail-MB")
	b.ReportMetric(fill*100, "leaf-fill-%")
	b.ReportMetric(float64(plain)/mib, "values-raw-MB")
	b.ReportMetric(float64(s2z)/mib, "values-s2-MB")
	b.ReportMetric(float64(dictz)/mib, "values-dict-MB")
	b.ReportMetric(float64(dictz)/float64(n), "values-dict-B/persona")
}
