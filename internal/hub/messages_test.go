package hub

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// Two instances of one generation over the socket: the one that claimed
// its fence last acts; the older one's acks, sends and beats (a beat
// stream's lines included) are refused with "fenced". No fence reaches the
// change stream.
func TestOlderInstanceIsFencedOut(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx := context.Background()
	lead := th.addPersona(t, "work/core/lead", "Spica")
	deputy := th.addPersona(t, "work/core/deputy", "Zaniah")
	older, newer := th.runtime(t, deputy), th.runtime(t, deputy)
	_, err := older.ClaimFence(ctx)
	mustNil(t, err)
	oldStream, err := older.OpenBeatStream(ctx)
	mustNil(t, err)
	mustNil(t, oldStream.Beat())
	_, err = newer.ClaimFence(ctx)
	mustNil(t, err)
	_, err = th.runtime(t, lead).SendMessage(ctx, coord.Draft{To: deputy.Address, Subject: "review", Body: "core#12, please"})
	mustNil(t, err)

	_, err = older.AckMessage(ctx, "m-1.work.core.deputy")
	wantCode(t, err, "fenced")
	_, err = older.SendMessage(ctx, coord.Draft{To: lead.Address, Subject: "", Body: "done"})
	wantCode(t, err, "fenced")
	_, err = older.Beat(ctx)
	wantCode(t, err, "fenced")
	_ = oldStream.Beat() // the stream's next line meets the newer fence
	_, err = oldStream.Close()
	wantCode(t, err, "fenced")

	ack, err := newer.AckMessage(ctx, "m-1.work.core.deputy")
	mustNil(t, err)
	if ack.Repeat {
		t.Fatalf("the newer instance's ack: %+v", ack)
	}
	_, err = newer.Beat(ctx)
	mustNil(t, err)
	mustNil(t, th.hub.Settle(ctx))
	changes, _, err := th.hub.Stream().Read(0, 1<<16, nil)
	mustNil(t, err)
	sawMessage := false
	for _, c := range changes {
		if strings.Contains(string(c.Kind), "fence") || strings.Contains(string(c.Data), `"fence"`) {
			t.Fatalf("a fence on the change stream: %+v", c)
		}
		sawMessage = sawMessage || c.Kind == hubapi.KindMessage
	}
	if !sawMessage {
		t.Fatal("the message never reached the change stream")
	}
}

// A runtime's message stream delivers what waits, then each new message
// as it is admitted; reopened after the last one read, it misses nothing.
func TestMessageStreamDeliversLive(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	lead := th.addPersona(t, "work/core/lead", "Spica")
	deputy := th.addPersona(t, "work/core/deputy", "Zaniah")
	sender, rt := th.runtime(t, lead), th.runtime(t, deputy)
	_, err := sender.SendMessage(ctx, coord.Draft{To: deputy.Address, Subject: "", Body: "waiting"})
	mustNil(t, err)
	s, err := rt.OpenMessageStream(ctx, "")
	mustNil(t, err)
	next := func(want string) coord.Message {
		t.Helper()
		m, err := s.Next()
		mustNil(t, err)
		if m.Body != want || m.From.Address != lead.Address {
			t.Fatalf("streamed %+v, want %q from %s", m, want, lead.Address)
		}
		return m
	}
	next("waiting")
	for _, body := range []string{"live 1", "live 2"} {
		_, err := sender.SendMessage(ctx, coord.Draft{To: deputy.Address, Subject: "", Body: body})
		mustNil(t, err)
		next(body)
	}
	mustNil(t, s.Close())
	s, err = rt.OpenMessageStream(ctx, "m-2.work.core.deputy")
	mustNil(t, err)
	next("live 2")
	mustNil(t, s.Close())
	page, err := th.operator(t, "henry").Messages(ctx, deputy.Address, "", 2)
	mustNil(t, err)
	if len(page.Items) != 2 || page.Next == "" {
		t.Fatalf("the operator's first page: %+v", page)
	}
	_, err = rt.Messages(ctx, "", "nonsense", 0)
	wantCode(t, err, "bad_page_token")
}
