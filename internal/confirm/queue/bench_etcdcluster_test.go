//go:build etcdcluster

package queue

import (
	"context"
	"fmt"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore/etcdcluster"
)

// BenchmarkConcurrentDecidersOnEtcdCluster is BenchmarkConcurrentDeciders
// on a real three-member etcd cluster in separate processes on this
// machine (etcdcluster): every commit is agreed by two members over
// loopback and written to their WALs. `make bench-etcd` runs it in one go
// test with the bbolt and the embedded-member runs, for the comparison
// (BENCHMARKS.md).
func BenchmarkConcurrentDecidersOnEtcdCluster(b *testing.B) {
	cl := etcdcluster.Start(b)
	runs := 0
	benchDeciders(b, func(b *testing.B) store.Store {
		runs++
		s, err := etcdstore.Open(context.Background(), etcdstore.Options{Endpoints: cl.Endpoints(), Prefix: fmt.Sprintf("bench/%d/", runs)})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	})
}
