//go:build etcd

// This benchmark links an etcd server into confirm's test binary. It sits
// behind the etcd build tag so that `make test` — whose fuzz targets build
// confirm instrumented for coverage, etcd and gRPC included — stays fast;
// `make bench` sets the tag.

package queue

import (
	"context"
	"fmt"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore/etcdtest"
)

// BenchmarkConcurrentDecidersOnEtcd is BenchmarkConcurrentDeciders on the
// etcd store: a real member embedded in the benchmark's process (one
// member, so every commit is its own fsync), a fresh installation prefix
// for each run. Run both in one go test for the comparison (BENCHMARKS.md).
func BenchmarkConcurrentDecidersOnEtcd(b *testing.B) {
	m, err := etcdtest.Start(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(m.Stop)
	runs := 0
	benchDeciders(b, func(b *testing.B) store.Store {
		runs++
		s, err := etcdstore.Open(context.Background(), etcdstore.Options{Endpoints: []string{m.Endpoint}, Prefix: fmt.Sprintf("bench/%d/", runs)})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	})
}
