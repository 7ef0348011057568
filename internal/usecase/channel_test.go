package usecase

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/channel"
	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/tools"
	"github.com/virgo-hub/virgo-tui/internal/workspace"
)

// asPersona is one of c's tool calls, a persona's only way to its human,
// answered with the executor's result as a T.
func asPersona[T any](t *testing.T, in *installation, c Caller, tool, args, corr string) (T, error) {
	t.Helper()
	var out T
	call, err := callTool(t, in, c, tool, args, corr)
	if err != nil {
		return out, err
	}
	if call.Status != tools.ToolDone {
		t.Fatalf("%s: %+v, want done", tool, call)
	}
	mustNil(t, json.Unmarshal(call.Result, &out))
	return out, nil
}

// The human channel both ways: a secretary sends its human a message, a
// card and a todo; the human acks, ticks and replies; the reply reaches
// the secretary's seat as a coordination message naming the item, which
// the secretary acks and answers in the same thread.
func TestHumanChannelBothWays(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	sec, me := active(t, in, "root/secretary", "Porrima")
	msg, err := asPersona[channel.Item](t, in, me, "send_human_message", `{"text":"the core review is done"}`, "")
	mustNil(t, err)
	if msg.ID != "h-1" || msg.Thread != "h-1" || msg.Human != "human:henry" || msg.FromHuman || msg.Persona.Address != "root/secretary" {
		t.Fatalf("sent %+v", msg)
	}
	_, err = asPersona[channel.Item](t, in, me, "send_human_card", `{"title":"Deploy core?","body":"v1.4","actions":["yes","no"]}`, "")
	mustNil(t, err)
	todo, err := asPersona[channel.Item](t, in, me, "send_human_todo", `{"title":"Before release","items":["sign","tag"]}`, "")
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
	_, err = asPersona[channel.Item](t, in, me, "ack_human_message", `{"message":"`+reply.ID+`"}`, "")
	mustNil(t, err)
	if _, err := callTool(t, in, me, "ack_human_message", `{"message":"`+msg.ID+`"}`, ""); !errors.Is(err, channel.ErrWrongSide) {
		t.Fatalf("the secretary acking its own item: %v, want ErrWrongSide", err)
	}
	answer, err := asPersona[channel.Item](t, in, me, "reply_human_message", `{"message":"`+reply.ID+`","text":"shipping"}`, "")
	mustNil(t, err)
	if answer.Thread != msg.Thread {
		t.Fatalf("the answer's thread %s, want %s", answer.Thread, msg.Thread)
	}
	if _, err := callTool(t, in, me, "reply_human_message", `{"message":"`+msg.ID+`","text":"x"}`, ""); !errors.Is(err, channel.ErrWrongSide) {
		t.Fatalf("replying to its own item: %v, want ErrWrongSide", err)
	}
	if _, err := in.cases.ReplyAsHuman(ctx, Key{}, henry, reply.ID, "x"); !errors.Is(err, channel.ErrWrongSide) {
		t.Fatalf("the human replying to their own reply: %v, want ErrWrongSide", err)
	}
	// Hostile text is refused by name: by the tool's schema, or by the
	// channel's own rules past it.
	for _, bad := range []struct{ tool, args string }{
		{"send_human_message", `{"text":"  "}`},
		{"send_human_message", `{"text":"\u001b]0;owned\u0007"}`},
		{"send_human_card", `{"title":"","body":"x"}`},
		{"send_human_card", `{"title":"a\nb"}`},
		{"send_human_todo", `{"title":"t","items":[]}`},
		{"send_human_message", `{"text":"` + strings.Repeat("x", channel.MaxText+1) + `"}`},
	} {
		if _, err := callTool(t, in, me, bad.tool, bad.args, ""); !errors.Is(err, channel.ErrBadItem) && !errors.Is(err, tools.ErrInvalidArguments) {
			t.Fatalf("%s %s: %v, want ErrBadItem or ErrInvalidArguments", bad.tool, bad.args, err)
		}
	}
	// Typing shows until stopped.
	_, err = asPersona[channel.Typing](t, in, me, "start_typing", `{"thread":"`+msg.Thread+`"}`, "")
	mustNil(t, err)
	if ts, _ := in.cases.human.Typing(ctx, "human:henry"); len(ts) != 1 || ts[0].Persona.Address != sec.Address {
		t.Fatalf("typing %+v", ts)
	}
	_, err = asPersona[channel.Typing](t, in, me, "stop_typing", `{"thread":"`+msg.Thread+`"}`, "")
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
	_, me := active(t, in, "root/secretary", "Porrima")
	msg, err := asPersona[channel.Item](t, in, me, "send_human_message", `{"text":"ready?"}`, "")
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
	// The same id again with another reaction: refused, not answered with
	// the first one's outcome; the same reaction again: the first outcome.
	if o, err := in.cases.ReactAsHuman(ctx, henry, msg.ID, "ack", "react-2"); !errors.Is(err, confirm.ErrCorrelationReuse) || o.Known {
		t.Fatalf("another reaction under a refused one's id: %+v, %v; want ErrCorrelationReuse", o, err)
	}
	if o, _ := in.cases.ReactAsHuman(ctx, henry, msg.ID, "party", "react-2"); o != no {
		t.Fatalf("retry of a refused reaction: %+v, want %+v", o, no)
	}
	gone, err := asPersona[confirm.Outcome](t, in, me, "apply_human_reaction", `{"message":"h-99","reaction":"ack"}`, "react-3")
	mustNil(t, err)
	if !gone.Known || gone.Applied || gone.Reason == "" {
		t.Fatalf("a reaction to a missing item: %+v", gone)
	}
	if _, err := in.cases.ReactAsHuman(ctx, henry, msg.ID, "ack", "bad id/"); !errors.Is(err, confirm.ErrTargetSyntax) && err == nil {
		t.Fatalf("a malformed correlation id was accepted")
	}
}

// The persona's side binds its correlation id as tightly: a secretary's
// apply_human_reaction thumbs_up under re-1, then thumbs_down under re-1
// once the call's replay record has aged out (IdempotencyWindow) is refused
// with ErrCorrelationReuse — never answered with the thumbs_up's "applied".
func TestPersonaReactionIsBoundToItsCorrelationID(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	_, me := active(t, in, "root/secretary", "Porrima")
	msg, err := asPersona[channel.Item](t, in, me, "send_human_message", `{"text":"ready?"}`, "")
	mustNil(t, err)
	reply, err := in.cases.ReplyAsHuman(ctx, Key{}, henry, msg.ID, "go ahead")
	mustNil(t, err)
	up, err := asPersona[confirm.Outcome](t, in, me, "apply_human_reaction", `{"message":"`+reply.ID+`","reaction":"thumbs_up"}`, "re-1")
	mustNil(t, err)
	if !up.Known || !up.Applied {
		t.Fatalf("thumbs_up: %+v", up)
	}
	in.clk.advance(IdempotencyWindow + time.Hour)
	n, err := in.cases.SweepIdempotency(ctx)
	mustNil(t, err)
	if n == 0 {
		t.Fatal("no replay record aged out; the test reaches the reaction record only through the sweep")
	}
	down, err := callTool(t, in, me, "apply_human_reaction", `{"message":"`+reply.ID+`","reaction":"thumbs_down"}`, "re-1")
	if !errors.Is(err, confirm.ErrCorrelationReuse) {
		t.Fatalf("thumbs_down under re-1: %+v, %v; want ErrCorrelationReuse", down, err)
	}
	again, err := asPersona[confirm.Outcome](t, in, me, "apply_human_reaction", `{"message":"`+reply.ID+`","reaction":"thumbs_up"}`, "re-1")
	mustNil(t, err)
	if again != up {
		t.Fatalf("the unchanged retry: %+v, want the recorded %+v", again, up)
	}
	it, _, err := in.cases.human.Get(ctx, "human:henry", reply.ID)
	mustNil(t, err)
	if len(it.Reactions) != 1 || it.Reactions[0].Reaction != "thumbs_up" {
		t.Fatalf("reactions %+v, want thumbs_up alone", it.Reactions)
	}
}

// A file is taken from the persona's own workspace with its size and
// sha256; one over the limit, or a path leaving the workspace, is refused.
func TestFileIsTakenFromTheWorkspace(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	sec, me := active(t, in, "root/secretary", "Porrima")
	dir := workspace.HomeDir(in.home.Dir, sec.Address)
	mustNil(t, os.MkdirAll(filepath.Join(dir, "out"), 0o700))
	data := []byte("quarterly numbers\n")
	mustNil(t, os.WriteFile(filepath.Join(dir, "out", "report.txt"), data, 0o600))
	mustNil(t, os.WriteFile(filepath.Join(dir, "big.bin"), make([]byte, channel.MaxFile+1), 0o600))
	it, err := asPersona[channel.Item](t, in, me, "send_human_file", `{"path":"out/report.txt","caption":"Q3"}`, "")
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
	if _, err := callTool(t, in, me, "send_human_file", `{"path":"big.bin"}`, ""); !errors.Is(err, channel.ErrFileTooLarge) {
		t.Fatalf("a file over the limit: %v, want ErrFileTooLarge", err)
	}
	if call, err := callTool(t, in, me, "send_human_file", `{"path":"../../etc/passwd"}`, ""); err == nil && call.Status != tools.ToolDenied {
		t.Fatalf("a path leaving the workspace: %+v", call)
	}
}

// A fenced-out instance writes nothing to the human either.
func TestFencedInstanceCannotWriteToTheHuman(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	sec, me := active(t, in, "root/secretary", "Porrima")
	old, err := in.cases.ClaimFence(ctx, sec)
	mustNil(t, err)
	_, err = in.cases.ClaimFence(ctx, sec)
	mustNil(t, err)
	stale := me
	stale.Fence = old
	if _, err := callTool(t, in, stale, "send_human_message", `{"text":"stale"}`, ""); !errors.Is(err, coord.ErrFenced) {
		t.Fatalf("a fenced instance's send: %v, want ErrFenced", err)
	}
	if _, err := callTool(t, in, stale, "apply_human_reaction", `{"message":"h-1","reaction":"ack"}`, "r-1"); !errors.Is(err, coord.ErrFenced) {
		t.Fatalf("a fenced instance's reaction: %v, want ErrFenced", err)
	}
}

// The executor that reads a file for the human judges the file it read by
// the material table too: the call was decided on where the path led
// before, and a link swapped in since (here: the executor asked directly
// for a link to .env) still puts no material in an item.
func TestFileItemJudgesTheFileItRead(t *testing.T) {
	in := newInstallation(t)
	sec, _ := active(t, in, "root/secretary", "Porrima")
	dir := workspace.HomeDir(in.home.Dir, sec.Address)
	mustNil(t, os.MkdirAll(filepath.Join(dir, "notes"), 0o700))
	mustNil(t, os.WriteFile(filepath.Join(dir, ".env"), []byte("SECRET=xyz\n"), 0o600))
	mustNil(t, os.Symlink("../.env", filepath.Join(dir, "notes", "env.md")))
	it, data, err := in.cases.fileItem(sec, "notes/env.md", "")
	if !errors.Is(err, confirm.ErrSecretMaterial) || !strings.Contains(err.Error(), confirm.BoundarySecretValues.String()) || data != nil {
		t.Fatalf("fileItem of a link to .env: %+v %q %v; want ErrSecretMaterial naming its boundary", it, data, err)
	}
}
