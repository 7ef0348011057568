package hub

import (
	"fmt"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/usecase/usecasetest"
)

// BenchmarkStampedDatabase registers n personas as `persona add` does, each
// with its stamp stored and its activation approved (usecasetest.StampedHome,
// the fixture of BenchmarkHubMemory10000Personas without the serving hub), and
// reports the database file's size and what its pages hold (store.FileUsage):
// live bytes per persona, leaf fill, free pages and the tail grown ahead.
// With -v it logs the pages of each key range.
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

// reportUsage reports what the database file at path holds for n personas
// (MiB, and bytes per persona), and logs each key range's share.
func reportUsage(b *testing.B, path string, n int) {
	b.Helper()
	u, err := store.FileUsage(path, 0)
	mustNil(b, err)
	const mib = 1 << 20
	var live int64
	var leaves float64
	var lines strings.Builder
	fmt.Fprintf(&lines, "%-24s %8s %10s %10s %9s %6s\n", "range", "records", "live-B/p", "live-MiB", "pages", "fill")
	for _, r := range u.Ranges {
		live += r.LiveBytes()
		leaves += r.LeafPages
		name := r.Bucket
		if r.Prefix != "" {
			name = r.Prefix
		}
		fill := 0.0
		if r.LeafPages > 0 {
			fill = float64(r.LiveBytes()) / (r.LeafPages * float64(u.PageSize)) * 100
		}
		fmt.Fprintf(&lines, "%-24s %8d %10.0f %10.2f %9.0f %5.0f%%\n", name, r.Records,
			float64(r.LiveBytes())/float64(n), float64(r.LiveBytes())/mib, r.LeafPages, fill)
	}
	page := float64(u.PageSize)
	fmt.Fprintf(&lines, "branch %d pages, freelist %d, free %d, meta %d; %d pages below the high-water mark, tail %.1f MiB",
		u.BranchPages, u.FreelistPages, u.FreePages, u.MetaPages, u.Pages, float64(u.TailBytes)/mib)
	b.Logf("%s: %.1f MiB\n%s", path, float64(u.FileBytes)/mib, lines.String())
	b.ReportMetric(float64(u.FileBytes)/mib, "db-MB")
	b.ReportMetric(float64(u.Pages-u.FreePages)*page/mib, "used-MB")
	b.ReportMetric(float64(live)/mib, "live-MB")
	b.ReportMetric(float64(live)/float64(n), "live-B/persona")
	b.ReportMetric(float64(live)/(leaves*page)*100, "leaf-fill-%")
	b.ReportMetric(float64(u.FreePages)*page/mib, "free-MB")
	b.ReportMetric(float64(u.TailBytes)/mib, "tail-MB")
}
