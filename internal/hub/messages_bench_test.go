package hub

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
)

// BenchmarkMessageDelivery100 is the goal "message send → delivered to
// the recipient's open stream, p50/p99 with 100 personas sending (goal
// p99 < 50 ms)": 50 projects, each a lead and a deputy, every one of the
// 100 with its message stream open on the socket; each sends to its
// partner, one message every pace (staggered), or as fast as the hub
// answers (pace 0: then a send's latency is mostly its wait behind the
// other 99 — in-flight sends over throughput). A message's latency is from
// the start of its send (POST /v1/messages: decided under the sender's
// stamp, committed and synced) to its arrival on the recipient's stream.
func BenchmarkMessageDelivery100(b *testing.B) {
	for _, pace := range []time.Duration{time.Second, 100 * time.Millisecond, 0} {
		b.Run("pace="+pace.String(), func(b *testing.B) { benchmarkDelivery(b, pace) })
	}
}

func benchmarkDelivery(b *testing.B, pace time.Duration) {
	// The 100 personas are 100 processes in production, each far under
	// the hub's per-process connection limit; here one process holds all
	// their connections (a stream and the sends, each).
	th := startHub(b, shortHome(b), Config{MaxConnectionsPerProcess: 400}, Timeouts{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type end struct {
		addr    string
		partner string
		c       *hubclient.Client
		s       *hubclient.MessageStream
	}
	var ends []*end
	for i := range 50 {
		lead := th.addPersona(b, fmt.Sprintf("work/p%d/lead", i), fmt.Sprintf("Lead%c%c", 'a'+i/26, 'a'+i%26))
		dep := th.addPersona(b, fmt.Sprintf("work/p%d/deputy", i), fmt.Sprintf("Deputy%c%c", 'a'+i/26, 'a'+i%26))
		ends = append(ends, &end{addr: lead.Address, partner: dep.Address, c: th.runtime(b, lead)},
			&end{addr: dep.Address, partner: lead.Address, c: th.runtime(b, dep)})
	}
	for _, e := range ends {
		s, err := e.c.OpenMessageStream(ctx, "")
		if err != nil {
			b.Fatal(err)
		}
		e.s = s
		defer s.Close()
	}
	// sent[body] is when the send of the message with that body began.
	var mu sync.Mutex
	sent := map[string]time.Time{}
	var lat []time.Duration
	var wg sync.WaitGroup
	per := b.N/len(ends) + 1
	total := per * len(ends)
	got := make(chan struct{}, total)
	for _, e := range ends {
		go func() {
			for {
				m, err := e.s.Next()
				if err != nil {
					return
				}
				at := time.Now()
				mu.Lock()
				lat = append(lat, at.Sub(sent[m.Body]))
				mu.Unlock()
				got <- struct{}{}
			}
		}()
	}
	b.ResetTimer()
	for k, e := range ends {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var tick <-chan time.Time
			if pace > 0 {
				time.Sleep(pace * time.Duration(k) / time.Duration(len(ends)))
				t := time.NewTicker(pace)
				defer t.Stop()
				tick = t.C
			}
			for i := range per {
				if tick != nil && i > 0 {
					<-tick
				}
				body := e.addr + "#" + strconv.Itoa(i)
				mu.Lock()
				sent[body] = time.Now()
				mu.Unlock()
				if _, err := e.c.SendMessage(ctx, coord.Draft{To: e.partner, Body: body}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for range total {
		select {
		case <-got:
		case <-time.After(30 * time.Second):
			b.Fatal("a message never reached its recipient's stream")
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "msgs/s")
}
