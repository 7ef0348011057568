package hub

import (
	"context"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

func ptr(s string) *string { return &s }

// "a hub with one open beat stream shuts down in well under 1 s", and the
// beats sent before the shutdown are recorded.
func TestShutdownEndsOpenBeatStream(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{Shutdown: 5 * time.Second})
	p := th.addPersona(t, "work/core/lead", "Spica")
	ctx := context.Background()
	s, err := th.runtime(t, p).OpenBeatStream(ctx)
	mustNil(t, err)
	const first, more = 5, 3
	for range first {
		mustNil(t, s.Beat())
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if got, _ := th.hub.Presence().Get(p.ID); got.Beats == first {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the hub did not apply the first beats in 5 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	for range more {
		mustNil(t, s.Beat())
	}
	mustNil(t, s.Report(hubapi.PresenceReport{Activity: ptr("shutting down")}))

	start := time.Now()
	th.stop()
	if took := time.Since(start); took > 900*time.Millisecond {
		t.Fatalf("the hub took %v to shut down with a beat stream open, want well under 1 s", took)
	}
	got, _ := th.hub.Presence().Get(p.ID)
	if got.Beats != first+more+1 || got.Activity != "shutting down" {
		t.Fatalf("after shutdown the hub recorded %d beats (activity %q), want %d sent before it", got.Beats, got.Activity, first+more+1)
	}
	res, err := s.Close()
	mustNil(t, err)
	if res.Reports != first+more+1 {
		t.Fatalf("the stream's answer counts %d reports, want %d", res.Reports, first+more+1)
	}
}
