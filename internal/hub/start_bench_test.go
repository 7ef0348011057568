package hub

import (
	"context"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/usecase/usecasetest"
)

// BenchmarkConnectListStop10k is a one-shot command's life over 10,000
// active generations (stamped and activated, usecasetest.StampedHome), by phase: a client starting a hub in-process (open
// the store, load records, presence and token hashes, listen), list every
// persona over the socket, and stop (drain, flush, close). The first start
// on the home, which issues the tokens, is not timed.
func BenchmarkConnectListStop10k(b *testing.B) {
	const n = 10_000
	home := shortHome(b)
	usecasetest.StampedHome(b, home, n)
	enrol(b, home.Dir, "henry") // the operator the client dials as
	ctx := context.Background()
	once := func() (start, list, stop time.Duration) {
		t0 := time.Now()
		c, err := hubclient.Dial(ctx, home.Dir, hubclient.AsOperator("henry"), hubclient.WithStarter(InProcessOn(home, "")))
		mustNil(b, err)
		t1 := time.Now()
		vs, err := c.Personas(ctx, true)
		mustNil(b, err)
		if len(vs) != n {
			b.Fatalf("listed %d, want %d", len(vs), n)
		}
		t2 := time.Now()
		mustNil(b, c.Close())
		return t1.Sub(t0), t2.Sub(t1), time.Since(t2)
	}
	once()
	b.ReportAllocs()
	var start, list, stop time.Duration
	for b.Loop() {
		s, l, p := once()
		start, list, stop = start+s, list+l, stop+p
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(per(start), "start-ms")
	b.ReportMetric(per(list), "list-ms")
	b.ReportMetric(per(stop), "stop-ms")
}
