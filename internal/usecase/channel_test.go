package usecase

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/channel"
	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/workspace"
)

// The human channel both ways: a secretary sends its human a message, a
// card and a todo; the human acks, ticks and replies; the reply reaches
// the secretary's seat as a coordination message naming the item, which
// the secretary acks and answers in the same thread.
func TestHumanChannelBothWays(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	sec := activePersona(t, in, "root/secretary", "Porrima")
	me := Instance{Persona: sec}
	msg, err := in.cases.SendToHuman(ctx, Key{}, me, channel.Draft{Kind: channel.KindMessage, Text: "the core review is done"})
	mustNil(t, err)
	if msg.ID != "h-1" || msg.Thread != "h-1" || msg.Human != "human:henry" || msg.FromHuman || msg.Persona.Address != "root/secretary" {
		t.Fatalf("sent %+v", msg)
	}
	_, err = in.cases.SendToHuman(ctx, Key{}, me, channel.Draft{Kind: channel.KindCard, Title: "Deploy core?", Text: "v1.4", Actions: []string{"yes", "no"}})
	mustNil(t, err)
	todo, err := in.cases.SendToHuman(ctx, Key{}, me, channel.Draft{Kind: channel.KindTodo, Title: "Before release", Todo: []string{"sign", "tag"}})
	mustNil(t, err)
	if n, _ := in.cases.HumanSurfaceStatus(ctx, sec); n.Unread != 3 || n.Surface != "virgo-channel" {
		t.Fatalf("status %+v, want 3 unread on virgo-channel", n)
	}
	_, err = in.cases.AckFromHuman(ctx, henry, msg.ID)
	mustNil(t, err)
	_, err = in.cases.AckFromHuman(ctx, henry, msg.ID) // again: nothing more
	mustNil(t, err)
	if n, _ := in.cases.HumanSurfaceStatus(ctx, sec); n.Unread != 2 {
		t.Fatalf("unread after one ack (twice): %d, want 2", n.Unread)
	}
	ticked, err := in.cases.TickTodo(ctx, henry, todo.ID, 1, true)
	mustNil(t, err)
	if !ticked.Todo[1].Done || ticked.Todo[0].Done || ticked.Todo[1].DoneAt == nil {
		t.Fatalf("ticked %+v", ticked.Todo)
	}
	if _, err := in.cases.TickTodo(ctx, henry, todo.ID, 2, true); !errors.Is(err, channel.ErrBadItem) {
		t.Fatalf("ticking a line the card lacks: %v, want ErrBadItem", err)
	}
	if _, err := in.cases.TickTodo(ctx, henry, msg.ID, 0, true); !errors.Is(err, channel.ErrWrongSide) {
		t.Fatalf("ticking a message: %v, want ErrWrongSide", err)
	}
	reply, err := in.cases.ReplyAsHuman(ctx, Key{}, henry, msg.ID, "thanks — ship it")
	mustNil(t, err)
	if !reply.FromHuman || reply.Thread != msg.Thread || reply.ReplyTo != msg.ID {
		t.Fatalf("reply %+v", reply)
	}
	page, err := in.cases.Inbox(ctx, sec, "", 10)
	mustNil(t, err)
	if len(page.Items) != 1 || page.Items[0].Item != reply.ID || page.Items[0].From.Address != "human:henry" || page.Items[0].Body != "thanks — ship it" {
		t.Fatalf("the secretary's inbox: %+v", page.Items)
	}
	// The secretary acks the human's reply and answers in its thread.
	_, err = in.cases.AckFromPersona(ctx, me, reply.ID)
	mustNil(t, err)
	if _, err := in.cases.AckFromPersona(ctx, me, msg.ID); !errors.Is(err, channel.ErrWrongSide) {
		t.Fatalf("the secretary acking its own item: %v, want ErrWrongSide", err)
	}
	answer, err := in.cases.SendToHuman(ctx, Key{}, me, channel.Draft{Kind: channel.KindMessage, ReplyTo: reply.ID, Text: "shipping"})
	mustNil(t, err)
	if answer.Thread != msg.Thread {
		t.Fatalf("the answer's thread %s, want %s", answer.Thread, msg.Thread)
	}
	if _, err := in.cases.SendToHuman(ctx, Key{}, me, channel.Draft{Kind: channel.KindMessage, ReplyTo: msg.ID, Text: "x"}); !errors.Is(err, channel.ErrWrongSide) {
		t.Fatalf("replying to its own item: %v, want ErrWrongSide", err)
	}
	if _, err := in.cases.ReplyAsHuman(ctx, Key{}, henry, reply.ID, "x"); !errors.Is(err, channel.ErrWrongSide) {
		t.Fatalf("the human replying to their own reply: %v, want ErrWrongSide", err)
	}
	// Hostile text is refused by name.
	for _, d := range []channel.Draft{
		{Kind: channel.KindMessage, Text: "  "},
		{Kind: channel.KindMessage, Text: "\x1b]0;owned\a"},
		{Kind: channel.KindCard, Title: "", Text: "x"},
		{Kind: channel.KindCard, Title: "a\nb"},
		{Kind: channel.KindTodo, Title: "t"},
		{Kind: "poll", Text: "x"},
		{Kind: channel.KindMessage, Text: strings.Repeat("x", channel.MaxText+1)},
	} {
		if _, err := in.cases.SendToHuman(ctx, Key{}, me, d); !errors.Is(err, channel.ErrBadItem) {
			t.Fatalf("%+v: %v, want ErrBadItem", d, err)
		}
	}
	// Typing shows until stopped.
	_, err = in.cases.SetTyping(ctx, me, msg.Thread, true)
	mustNil(t, err)
	if ts, _ := in.cases.human.Typing(ctx, "human:henry"); len(ts) != 1 || ts[0].Persona.Address != sec.Address {
		t.Fatalf("typing %+v", ts)
	}
	_, err = in.cases.SetTyping(ctx, me, msg.Thread, false)
	mustNil(t, err)
	if ts, _ := in.cases.human.Typing(ctx, "human:henry"); len(ts) != 0 {
		t.Fatalf("typing after stop %+v", ts)
	}
}

// Reactions end in a definitive outcome: applied, or not applied with a
// reason; a retry under the same correlation id returns the one terminal
// result and applies nothing twice.
func TestReactionsHaveADefinitiveOutcome(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	sec := activePersona(t, in, "root/secretary", "Porrima")
	me := Instance{Persona: sec}
	msg, err := in.cases.SendToHuman(ctx, Key{}, me, channel.Draft{Kind: channel.KindMessage, Text: "ready?"})
	mustNil(t, err)
	o, err := in.cases.ReactAsHuman(ctx, henry, msg.ID, "thumbs_up", "react-1")
	mustNil(t, err)
	if !o.Known || !o.Applied {
		t.Fatalf("the human's reaction: %+v, want applied", o)
	}
	again, err := in.cases.ReactAsHuman(ctx, henry, msg.ID, "thumbs_up", "react-1")
	mustNil(t, err)
	if again != o {
		t.Fatalf("the retry: %+v, want the first outcome %+v", again, o)
	}
	it, _, err := in.cases.human.Get(ctx, "human:henry", msg.ID)
	mustNil(t, err)
	if len(it.Reactions) != 1 || it.Reactions[0].By != "human:henry" {
		t.Fatalf("reactions %+v, want one", it.Reactions)
	}
	no, err := in.cases.ReactAsHuman(ctx, henry, msg.ID, "party", "react-2")
	mustNil(t, err)
	if !no.Known || no.Applied || !strings.Contains(no.Reason, "unknown reaction") {
		t.Fatalf("an unknown reaction: %+v, want applied:false with the reason", no)
	}
	// The same id again with a valid reaction: still the first terminal result.
	if o, _ := in.cases.ReactAsHuman(ctx, henry, msg.ID, "ack", "react-2"); o != no {
		t.Fatalf("retry of a refused reaction: %+v, want %+v", o, no)
	}
	gone, err := in.cases.ReactAsPersona(ctx, me, "h-99", "ack", "react-3")
	mustNil(t, err)
	if !gone.Known || gone.Applied || gone.Reason == "" {
		t.Fatalf("a reaction to a missing item: %+v", gone)
	}
	if _, err := in.cases.ReactAsHuman(ctx, henry, msg.ID, "ack", "bad id/"); !errors.Is(err, confirm.ErrTargetSyntax) && err == nil {
		t.Fatalf("a malformed correlation id was accepted")
	}
}

// A file is taken from the persona's own workspace with its size and
// sha256; one over the limit, or a path leaving the workspace, is refused.
func TestFileIsTakenFromTheWorkspace(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	sec := activePersona(t, in, "root/secretary", "Porrima")
	dir := workspace.HomeDir(in.home.Dir, sec.Address)
	mustNil(t, os.MkdirAll(filepath.Join(dir, "out"), 0o700))
	data := []byte("quarterly numbers\n")
	mustNil(t, os.WriteFile(filepath.Join(dir, "out", "report.txt"), data, 0o600))
	mustNil(t, os.WriteFile(filepath.Join(dir, "big.bin"), make([]byte, channel.MaxFile+1), 0o600))
	it, err := in.cases.SendFileToHuman(ctx, Key{}, Instance{Persona: sec}, "out/report.txt", "Q3")
	mustNil(t, err)
	sum := sha256.Sum256(data)
	if it.File == nil || it.File.Name != "report.txt" || it.File.Size != int64(len(data)) || it.File.SHA256 != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Fatalf("file item %+v", it.File)
	}
	_, got, err := in.cases.HumanFile(ctx, henry, it.ID)
	mustNil(t, err)
	if string(got) != string(data) {
		t.Fatalf("the saved bytes %q", got)
	}
	if _, err := in.cases.SendFileToHuman(ctx, Key{}, Instance{Persona: sec}, "big.bin", ""); !errors.Is(err, channel.ErrFileTooLarge) {
		t.Fatalf("a file over the limit: %v, want ErrFileTooLarge", err)
	}
	if _, err := in.cases.SendFileToHuman(ctx, Key{}, Instance{Persona: sec}, "../../etc/passwd", ""); err == nil {
		t.Fatal("a path leaving the workspace was sent")
	}
}

// A fenced-out instance writes nothing to the human either.
func TestFencedInstanceCannotWriteToTheHuman(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	sec := activePersona(t, in, "root/secretary", "Porrima")
	old, err := in.cases.ClaimFence(ctx, sec)
	mustNil(t, err)
	_, err = in.cases.ClaimFence(ctx, sec)
	mustNil(t, err)
	if _, err := in.cases.SendToHuman(ctx, Key{}, Instance{Persona: sec, Fence: old}, channel.Draft{Kind: channel.KindMessage, Text: "stale"}); !errors.Is(err, coord.ErrFenced) {
		t.Fatalf("a fenced instance's send: %v, want ErrFenced", err)
	}
	if _, err := in.cases.ReactAsPersona(ctx, Instance{Persona: sec, Fence: old}, "h-1", "ack", "r-1"); !errors.Is(err, coord.ErrFenced) {
		t.Fatalf("a fenced instance's reaction: %v, want ErrFenced", err)
	}
}
