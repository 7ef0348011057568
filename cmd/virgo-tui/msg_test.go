package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/tools"

	"github.com/virgo-hub/virgo-tui/internal/channel"
	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
	"github.com/virgo-hub/virgo-tui/internal/workspace"
)

// msg send, list and ack as personas with their own tokens; an operator
// reads a seat's inbox; -o json is the message itself.
func TestMsgSendListAck(t *testing.T) {
	c := confirmSetup(t) // work/core/lead Porrima, work/core/deputy Zaniah
	out := c.ok("msg", "send", "--as", "work/core/lead", "--to", "work/core/deputy", "--subject", "review", "please review core#12", "-o", "json")
	var m coord.Message
	if err := json.Unmarshal([]byte(out), &m); err != nil || m.ID != "m-1.work.core.deputy" || m.From.Address != "work/core/lead" || m.From.Name != "Porrima" {
		t.Fatalf("msg send -o json: %+v (%v)\n%s", m, err, out)
	}
	wantContains(t, "send 2", c.ok("msg", "send", "--as", "work/core/lead", "--to", "work/core/deputy", "second"), "sent m-2.work.core.deputy to work/core/deputy")
	wantContains(t, "list", c.ok("msg", "list", "--as", "work/core/deputy"), "m-1.work.core.deputy", "work/core/lead", "review", "please review core#12", "m-2.work.core.deputy")
	wantContains(t, "page", c.ok("msg", "list", "--as", "work/core/deputy", "--limit", "1"), "m-1.work.core.deputy", "(more: --after ")
	wantContains(t, "operator", c.ok("msg", "list", "--seat", "work/core/deputy", "--all"), "m-1.work.core.deputy", "m-2.work.core.deputy")
	wantContains(t, "ack", c.ok("msg", "ack", "--as", "work/core/deputy", "m-1.work.core.deputy"), "m-1.work.core.deputy acked")
	wantContains(t, "ack again", c.ok("msg", "ack", "--as", "work/core/deputy", "m-1.work.core.deputy"), "m-1.work.core.deputy already acked")
	var page coord.Page
	if err := json.Unmarshal([]byte(c.ok("msg", "list", "--as", "work/core/deputy", "-o", "json")), &page); err != nil || len(page.Items) != 1 || page.Items[0].ID != "m-2.work.core.deputy" {
		t.Fatalf("after the ack: %+v (%v)", page, err)
	}
	wantContains(t, "empty seat", c.fails("msg", "send", "--as", "work/core/lead", "--to", "work/web/lead", "x"), "no active holder")
	wantContains(t, "hostile", c.fails("msg", "send", "--as", "work/core/lead", "--to", "work/core/deputy", "\x1b[2J"), "invalid tool arguments")
	wantContains(t, "bad fence", func() string {
		t.Setenv(FenceEnv, "x")
		defer os.Unsetenv(FenceEnv)
		return c.fails("msg", "ack", "--as", "work/core/deputy", "m-2.work.core.deputy")
	}(), "VIRGO_FENCE")
}

// seedChannel writes, before any hub runs, what a secretary sent its
// human through its tool calls: a message, a todo card and a file from its
// workspace.
func seedChannel(t *testing.T, home, secretaryID string) []channel.Item {
	t.Helper()
	h := registry.Home{Dir: home}
	st, err := boltstore.Open(h.DBPath(), boltstore.Options{})
	mustNil(t, err)
	defer st.Close()
	reg := roster.New(st, h)
	cases := usecase.New(usecase.Config{Store: st, Registry: reg, Queue: queue.New(st, queue.Options{})})
	ctx := context.Background()
	sec, err := reg.Get(ctx, secretaryID)
	mustNil(t, err)
	me := usecase.Caller{Principal: confirm.PersonaPrincipal(sec.Address), PersonaID: sec.ID}
	send := func(tool, args string) channel.Item {
		call, err := cases.CallTool(ctx, usecase.Key{}, me, usecase.ToolRequest{Tool: tool, Args: json.RawMessage(args)})
		mustNil(t, err)
		if call.Status != tools.ToolDone {
			t.Fatalf("%s: %+v, want done", tool, call)
		}
		var it channel.Item
		mustNil(t, json.Unmarshal(call.Result, &it))
		return it
	}
	msg := send("send_human_message", `{"text":"the review is done"}`)
	todo := send("send_human_todo", `{"title":"Release","items":["sign","tag"]}`)
	dir := workspace.HomeDir(home, sec.Address)
	mustNil(t, os.MkdirAll(dir, 0o700))
	mustNil(t, os.WriteFile(filepath.Join(dir, "notes.md"), []byte("# notes\n"), 0o600))
	file := send("send_human_file", `{"path":"notes.md"}`)
	return []channel.Item{msg, todo, file}
}

// inbox list, reply, react, ack, tick and save as the human.
func TestInboxCommands(t *testing.T) {
	c := newCLI(t)
	r := c.activate("--scope", "root", "--role", "secretary", "--name", "Porrima", "--human", "human:henry")
	items := seedChannel(t, c.home, r.Persona["id"].(string))
	msg, todo, file := items[0], items[1], items[2]
	as := func(args ...string) []string { return append(args, "--as", "human:henry") }
	wantContains(t, "list", c.ok(as("inbox", "list")...), "human:henry: 3 unread", msg.ID, "the review is done", "Release (0/2 done)", "notes.md (8 bytes, sha256:")
	wantContains(t, "reply", c.ok(as("inbox", "reply", msg.ID, "ship it")...), "replied h-4 to "+msg.ID+" (root/secretary)")
	wantContains(t, "react", c.ok(as("inbox", "react", msg.ID, "approve")...), msg.ID+" approve: applied")
	wantContains(t, "react again", c.ok(as("inbox", "react", msg.ID, "approve")...), "applied")
	wantContains(t, "react unknown", c.fails(as("inbox", "react", msg.ID, "party")...), "not applied", "unknown reaction")
	// One correlation id, one reaction: another under it is refused, naming what it answers.
	wantContains(t, "react thumbs_up", c.ok(as("inbox", "react", msg.ID, "thumbs_up", "--correlation-id", "mine-1")...), "applied")
	wantContains(t, "react thumbs_down under its id", c.fails(as("inbox", "react", msg.ID, "thumbs_down", "--correlation-id", "mine-1")...),
		"correlation id mine-1 answers thumbs_up on "+msg.ID+": applied", "not thumbs_down")
	wantContains(t, "ack", c.ok(as("inbox", "ack", msg.ID)...), msg.ID+" acked")
	wantContains(t, "tick", c.ok(as("inbox", "tick", todo.ID, "1")...), "Release (1/2 done)")
	// Lines count from 1, as the console numbers them: 0 is no line.
	wantContains(t, "tick 0", c.fails(as("inbox", "tick", todo.ID, "0")...), `LINE "0": want the todo line's number, from 1`)
	wantContains(t, "tick 2", c.ok(as("inbox", "tick", todo.ID, "2")...), "Release (2/2 done)")
	saved := filepath.Join(t.TempDir(), "notes.md")
	wantContains(t, "save", c.ok(as("inbox", "save", file.ID, saved)...), "saved notes.md (8 bytes")
	if b, err := os.ReadFile(saved); err != nil || string(b) != "# notes\n" {
		t.Fatalf("saved %q, %v", b, err)
	}
	wantContains(t, "save over", c.fails(as("inbox", "save", file.ID, saved)...), "nothing is overwritten")
	var page channel.Page
	if err := json.Unmarshal([]byte(c.ok(as("inbox", "list", "--all", "-o", "json")...)), &page); err != nil || len(page.Items) != 4 {
		t.Fatalf("inbox list -o json: %+v, %v", page, err)
	}
	// The secretary reads the human's reply, and each of his reactions
	// applied, as coordination messages.
	out := c.ok("msg", "list", "--as", "root/secretary", "-o", "json")
	var inbox coord.Page
	if err := json.Unmarshal([]byte(out), &inbox); err != nil || len(inbox.Items) != 3 || inbox.Items[0].Item != "h-4" || inbox.Items[0].From.Address != "human:henry" ||
		inbox.Items[2].About == nil || *inbox.Items[2].About != (coord.About{Kind: "item", ID: msg.ID, Event: "reaction"}) {
		t.Fatalf("the secretary's inbox: %s", out)
	}
	if strings.Contains(c.ok(as("inbox", "list")...), "\x1b") {
		t.Fatal("an escape reached the terminal")
	}
}

// Kill -9 of the hub between a send and its ack loses nothing and
// delivers once more at most: the hub dies right after committing a send
// (the command's retry, with the same Idempotency-Key on a hub it starts,
// reports that message and admits no second one), then right before
// committing an ack (the message is still there, and the retry acks it),
// then right after committing one (the retry says it was acked; it is not
// delivered again).
func TestKillBetweenSendAndAckLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills hub subprocesses")
	}
	c := confirmSetup(t)
	inbox := func() []string {
		var page coord.Page
		if err := json.Unmarshal([]byte(c.ok("msg", "list", "--seat", "work/core/deputy", "-o", "json")), &page); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, m := range page.Items {
			ids = append(ids, m.ID+":"+m.Body)
		}
		return ids
	}
	child := startServe(t, c.home, usecase.UseCallTool+":"+usecase.StepAfterCommit)
	wantContains(t, "send across the kill", c.ok("msg", "send", "--as", "work/core/lead", "--to", "work/core/deputy", "one"), "sent m-1")
	wantSIGKILL(t, child)
	if got := inbox(); len(got) != 1 || got[0] != "m-1.work.core.deputy:one" {
		t.Fatalf("after a send killed after its commit: %v, want exactly m-1", got)
	}
	c.ok("msg", "send", "--as", "work/core/lead", "--to", "work/core/deputy", "two")

	child = startServe(t, c.home, usecase.UseCallTool+":"+usecase.StepBeforeCommit)
	wantContains(t, "ack killed before its commit", c.ok("msg", "ack", "--as", "work/core/deputy", "m-1.work.core.deputy"), "m-1.work.core.deputy acked")
	wantSIGKILL(t, child)
	if got := inbox(); len(got) != 1 || got[0] != "m-2.work.core.deputy:two" {
		t.Fatalf("after the retried ack: %v, want m-2 only", got)
	}

	child = startServe(t, c.home, usecase.UseCallTool+":"+usecase.StepAfterCommit)
	wantContains(t, "ack killed after its commit", c.ok("msg", "ack", "--as", "work/core/deputy", "m-2.work.core.deputy"), "m-2.work.core.deputy already acked")
	wantSIGKILL(t, child)
	if got := inbox(); len(got) != 0 {
		t.Fatalf("after an ack killed after its commit: %v, want nothing delivered again", got)
	}
}

// The channel carries the confirmations routed to its human: inbox list
// prints them (a view over the confirmation queue), a confirmation routed
// to another human or to a lead is not in it, and one decided leaves it.
func TestInboxListsConfirmationsRoutedToItsHuman(t *testing.T) {
	c := newCLI(t)
	mine := c.add("--scope", "root", "--role", "secretary", "--name", "Porrima", "--human", "human:henry")
	other := c.add("--scope", "home", "--role", "secretary", "--name", "Heze", "--human", "human:ada")
	list := c.ok("inbox", "list", "--as", "human:henry")
	wantContains(t, "list", list, "waiting for your decision", mine.Confirmation.ID, "root/secretary")
	if strings.Contains(list, other.Confirmation.ID) {
		t.Fatalf("human:ada's confirmation is in human:henry's inbox:\n%s", list)
	}
	c.ok("confirm", "approve", mine.Confirmation.ID, "--as", "human:henry")
	if list := c.ok("inbox", "list", "--as", "human:henry"); strings.Contains(list, mine.Confirmation.ID) || strings.Contains(list, "waiting for your decision") {
		t.Fatalf("a decided confirmation is still in the inbox:\n%s", list)
	}
}
