package hub

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/events"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// One report with both an activity and a summary is one heartbeat.
func TestReportWithBothTextsIsOneBeat(t *testing.T) {
	tr := NewTracker(newFakeClock(), testIntervals)
	tr.Track(hubapi.Presence{ID: "g1", Address: "work/core/lead", Name: "Spica", Generation: 1})
	mustNil(t, tr.Report("g1", ptr("building"), ptr("all green")))
	p, _ := tr.Get("g1")
	if p.Beats != 1 || p.Activity != "building" || p.Summary != "all green" {
		t.Fatalf("after one report with both texts: beats %d, activity %q, summary %q; want 1, building, all green", p.Beats, p.Activity, p.Summary)
	}
}

// A report is all or nothing: a refused summary (too long, or holding an
// escape sequence) leaves the activity as it was and counts no beat.
func TestRefusedSummaryLeavesActivity(t *testing.T) {
	for _, tc := range []struct {
		name, summary string
		want          error
	}{
		{"too long", strings.Repeat("s", hubapi.LimitOf("summary").Max+1), hubapi.ErrTooLong},
		{"control text", "done\x1b[2J", hubapi.ErrControlText},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker(newFakeClock(), testIntervals)
			tr.Track(hubapi.Presence{ID: "g1", Address: "work/core/lead", Name: "Spica", Generation: 1})
			mustNil(t, tr.SetActivity("g1", "reading"))
			err := tr.Report("g1", ptr("deploying"), ptr(tc.summary))
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			p, _ := tr.Get("g1")
			if p.Activity != "reading" || p.Beats != 1 {
				t.Fatalf("after a refused report: activity %q, beats %d; want reading, 1", p.Activity, p.Beats)
			}
		})
	}
}

// Through the API: POST /v1/presence/set with both texts counts one beat,
// and one with a refused summary changes nothing.
func TestSetPresenceIsOneAllOrNothingBeat(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	p := th.addPersona(t, "work/core/lead", "Spica")
	rt := th.runtime(t, p)
	ctx := context.Background()
	ack, err := rt.SetPresence(ctx, ptr("building"), ptr("all green"))
	mustNil(t, err)
	if ack.Beats != 1 {
		t.Fatalf("one set with activity and summary counted %d beats, want 1", ack.Beats)
	}
	_, err = rt.SetPresence(ctx, ptr("deploying"), ptr("\x1b]0;owned\x07"))
	wantCode(t, err, "control_text")
	got, _ := th.hub.Presence().Get(p.ID)
	if got.Activity != "building" || got.Summary != "all green" || got.Beats != 1 {
		t.Fatalf("after a refused set: activity %q, summary %q, beats %d; want building, all green, 1", got.Activity, got.Summary, got.Beats)
	}
}

// A resident session's hooks report its turn: working, idle, ended. Ended
// makes the persona offline at once, not when its heartbeats time out; a
// state no hook reports is refused and changes nothing; a working session
// whose persona waits on a confirmation is shown waiting.
func TestSessionStateFromHooks(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	p := th.addPersona(t, "work/core/lead", "Spica")
	rt := th.runtime(t, p)
	ctx := context.Background()
	for _, st := range []hubapi.SessionState{hubapi.SessionIdle, hubapi.SessionWorking} {
		ack, err := rt.SetSession(ctx, st)
		mustNil(t, err)
		if got, _ := th.hub.Presence().Get(p.ID); got.Session != st || ack.State != hubapi.StateActive {
			t.Fatalf("after reporting %s: session %q, state %s", st, got.Session, ack.State)
		}
	}
	th.hub.Presence().SetWaiting(p.ID, 1)
	if got, _ := th.hub.Presence().Get(p.ID); got.SessionShown() != hubapi.SessionWaiting {
		t.Fatalf("a working session waiting on a confirmation is shown %q", got.SessionShown())
	}
	for _, bad := range []hubapi.SessionState{hubapi.SessionWaiting, "asleep", ""} {
		if _, err := rt.SetSession(ctx, bad); !errors.Is(err, events.ErrUnknownSessionState) {
			t.Fatalf("reporting %q: %v; want ErrUnknownSessionState", bad, err)
		}
	}
	ack, err := rt.SetSession(ctx, hubapi.SessionEnded)
	mustNil(t, err)
	if ack.State != hubapi.StateOffline {
		t.Fatalf("after the session ended: %s, want offline at once", ack.State)
	}
}
