//go:build etcdcluster

package hub

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore/etcdcluster"
	"github.com/virgo-hub/virgo-tui/internal/store/storeurl"
)

// "confirmation request → visible in the other hub's console
// stream, p99". Two hubs on two homes serve one installation from a real
// three-member etcd cluster in separate processes (etcdcluster); the lead's
// runtime asks hub A for a confirmation, one at a time, and the time until
// hub B's change stream carries it is measured; each is then denied through
// A (outside the measure) so the lead stays under its pending limit. The
// baseline in the same run is the same request seen on A's own stream.
func BenchmarkConfirmationAcrossHubsOnEtcdCluster(b *testing.B) {
	cl := etcdcluster.Start(b)
	b.Setenv(storeurl.Env, cl.URL("virgo/bench"))
	homeA, homeB := shortHome(b), shortHome(b)
	enrol(b, homeA.Dir, "henry") // recorded in the store at A's start, so B knows the token
	a := startHub(b, homeA, Config{Host: "host-a"}, Timeouts{})
	startHub(b, homeB, Config{Host: "host-b"}, Timeouts{})
	lead := a.addPersona(b, "work/core/lead", "Spica")
	runtime := a.runtime(b, lead)
	henryA := a.operator(b, "henry")
	tok, err := hubapi.OperatorToken(homeA.Dir, "henry")
	mustNil(b, err)
	runs := 0
	for _, watcher := range []struct{ name, home string }{{"other-hub", homeB.Dir}, {"same-hub", homeA.Dir}} {
		b.Run(watcher.name, func(b *testing.B) {
			runs++ // each run asks anew: a correlation id asked again is answered with its first result
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			op, err := hubclient.Dial(ctx, watcher.home, hubclient.WithToken(tok))
			mustNil(b, err)
			defer op.Close()
			stream := op.Subscribe(ctx, 0)
			seen := map[string]time.Time{}
			see := func(id string) {
				deadline := time.After(30 * time.Second)
				for seen[id].IsZero() {
					select {
					case batch, ok := <-stream:
						if !ok {
							b.Fatal("the change stream ended")
						}
						at := time.Now()
						for _, c := range batch {
							if c.Kind == "confirmation" && seen[c.ID].IsZero() {
								seen[c.ID] = at
							}
						}
					case <-deadline:
						b.Fatalf("confirmation %s is not on the %s stream after 30 s", id, watcher.name)
					}
				}
			}
			lat := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				sent := time.Now()
				r, err := runtime.RequestConfirmation(ctx, hubapi.OperationRequest{Tool: "publish_deployment_v1",
					Target: fmt.Sprintf("external:https://example.org/%d/%d", runs, i), Shape: "deploy",
					CorrelationID: fmt.Sprintf("%d-%d", runs, i)})
				mustNil(b, err)
				see(r.Confirmation.ID)
				lat = append(lat, seen[r.Confirmation.ID].Sub(sent))
				b.StopTimer()
				_, err = henryA.Decide(ctx, r.Confirmation.ID, hubapi.DecideRequest{Approve: false, Reason: "bench"})
				mustNil(b, err)
				b.StartTimer()
			}
			b.StopTimer()
			slices.Sort(lat)
			q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
			b.ReportMetric(q(0.50), "p50-ms")
			b.ReportMetric(q(0.99), "p99-ms")
		})
	}
}
