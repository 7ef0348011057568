package hub

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/channel"
	"github.com/virgo-hub/virgo-tui/internal/channel/mailbox"
	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/events"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/quota"
	"github.com/virgo-hub/virgo-tui/internal/tools"
	"github.com/virgo-hub/virgo-tui/internal/workspace"
)

// toolItem is one of rt's human-surface tool calls through the socket (a
// persona's only way to its human), answered with the item it wrote (a
// typing indicator's call answers with the item's zero value).
func toolItem(t testing.TB, rt *hubclient.Client, tool, args string) channel.Item {
	t.Helper()
	call, err := rt.CallTool(context.Background(), "", tool, json.RawMessage(args), "")
	mustNil(t, err)
	if call.Status != tools.ToolDone {
		t.Fatalf("%s: %+v, want done", tool, call)
	}
	var it channel.Item
	mustNil(t, json.Unmarshal(call.Result, &it))
	return it
}

// The human's side of the channel over the socket: henry lists what his
// secretary sent, reads the unread count and who types, replies, reacts
// (a retry returns the one outcome), acks, ticks a todo and saves a file
// checked against its sha256; another operator sees none of it; the
// change stream carries each change as a typed event.
func TestHumanWorksTheInboxThroughTheHub(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx := context.Background()
	sec := th.addPersona(t, "root/secretary", "Porrima")
	me := th.runtime(t, sec)
	msg := toolItem(t, me, "send_human_message", `{"text":"review done"}`)
	todo := toolItem(t, me, "send_human_todo", `{"title":"Release","items":["sign","tag"]}`)
	dir := workspace.HomeDir(th.home.Dir, sec.Address)
	mustNil(t, os.MkdirAll(dir, 0o700))
	mustNil(t, os.WriteFile(filepath.Join(dir, "notes.md"), []byte("# notes\n"), 0o600))
	file := toolItem(t, me, "send_human_file", `{"path":"notes.md","caption":"my notes"}`)
	toolItem(t, me, "start_typing", `{"thread":"`+msg.Thread+`"}`)

	henry := th.operator(t, "henry")
	page, err := henry.Inbox(ctx, "", 2)
	mustNil(t, err)
	if len(page.Items) != 2 || page.Items[0].ID != msg.ID || page.Next == "" {
		t.Fatalf("first page %+v", page)
	}
	page, err = henry.Inbox(ctx, page.Next, 2)
	mustNil(t, err)
	if len(page.Items) != 1 || page.Items[0].ID != file.ID || page.Next != "" {
		t.Fatalf("second page %+v", page)
	}
	st, err := henry.InboxStatus(ctx)
	mustNil(t, err)
	if st.Unread != 3 || len(st.Typing) != 1 || st.Typing[0].Persona.Address != sec.Address || len(st.Reactions) == 0 {
		t.Fatalf("status %+v", st)
	}
	reply, err := henry.ReplyInbox(ctx, msg.ID, "thanks")
	mustNil(t, err)
	if !reply.FromHuman || reply.Thread != msg.Thread {
		t.Fatalf("reply %+v", reply)
	}
	o, err := henry.ReactInbox(ctx, msg.ID, "approve", "r-1")
	mustNil(t, err)
	again, err := henry.ReactInbox(ctx, msg.ID, "approve", "r-1")
	mustNil(t, err)
	if !o.Known || !o.Applied || again != o {
		t.Fatalf("reaction %+v, retry %+v", o, again)
	}
	no, err := henry.ReactInbox(ctx, "h-404", "approve", "r-2")
	mustNil(t, err)
	if !no.Known || no.Applied || no.Reason == "" {
		t.Fatalf("a reaction to nothing: %+v", no)
	}
	_, err = henry.AckInbox(ctx, msg.ID)
	mustNil(t, err)
	ticked, err := henry.TickInbox(ctx, todo.ID, 0, true)
	mustNil(t, err)
	if !ticked.Todo[0].Done {
		t.Fatalf("ticked %+v", ticked.Todo)
	}
	data, err := henry.InboxFile(ctx, file)
	mustNil(t, err)
	if string(data) != "# notes\n" {
		t.Fatalf("file bytes %q", data)
	}
	forged := file
	forged.File = &channel.File{Name: "x", SHA256: "sha256:00"}
	_, err = henry.InboxFile(ctx, forged)
	if err == nil {
		t.Fatal("a file that does not match its digest was accepted")
	}
	_, err = henry.TickInbox(ctx, msg.ID, 0, true)
	wantCode(t, err, "wrong_side")
	_, err = henry.AckInbox(ctx, "h-x")
	wantCode(t, err, "invalid_item_id")

	// Another operator's channel is their own: empty.
	alice := th.operator(t, "alice")
	if page, err := alice.Inbox(ctx, "", 0); err != nil || len(page.Items) != 0 {
		t.Fatalf("alice's inbox: %+v, %v", page, err)
	}
	_, err = alice.AckInbox(ctx, msg.ID)
	wantCode(t, err, "no_item")

	// The secretary's seat received henry's reply as a message naming it,
	// and his reaction (applied once, however often retried) naming the
	// item he reacted to.
	inbox, err := th.runtime(t, sec).Messages(ctx, "", "", 0)
	mustNil(t, err)
	if len(inbox.Items) != 2 || inbox.Items[0].Item != reply.ID ||
		inbox.Items[1].About == nil || *inbox.Items[1].About != (coord.About{Kind: "item", ID: msg.ID, Event: "reaction"}) {
		t.Fatalf("the secretary's inbox %+v", inbox.Items)
	}
	mustNil(t, th.hub.Settle(ctx))
	changes, _, err := th.hub.Stream().Read(0, 1<<16, nil)
	mustNil(t, err)
	seen := map[events.EventKind]int{}
	for _, c := range changes {
		seen[c.Kind]++
		if strings.Contains(string(c.Data), "# notes") || strings.Contains(string(c.Data), base64.StdEncoding.EncodeToString([]byte("# notes\n"))) {
			t.Fatalf("a file's bytes on the stream: %s %s", c.Kind, c.Data)
		}
	}
	if seen[hubapi.KindChannelItem] < 6 || seen[hubapi.KindTyping] != 1 {
		t.Fatalf("stream kinds %v", seen)
	}
}

// A human's channel is their own on the change stream too: another
// operator subscribed to it receives the sequence numbers of henry's items
// and typing (so it sees no gap) but not what they hold, while henry
// receives them whole.
func TestTheStreamShowsAHumansChannelOnlyToThem(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sec := th.addPersona(t, "root/secretary", "Porrima")
	henry, alice := th.operator(t, "henry"), th.operator(t, "alice")
	snap, err := alice.Snapshot(ctx)
	mustNil(t, err)
	fromAlice, fromHenry := alice.Subscribe(ctx, snap.Seq), henry.Subscribe(ctx, snap.Seq)
	me := th.runtime(t, sec)
	msg := toolItem(t, me, "send_human_message", `{"text":"the salary file"}`)
	toolItem(t, me, "start_typing", `{"thread":"`+msg.Thread+`"}`)
	mustNil(t, th.hub.Settle(ctx))
	private := func(sub <-chan []hubapi.Change) []hubapi.Change {
		var out []hubapi.Change
		for len(out) < 2 {
			select {
			case batch := <-sub:
				for _, c := range batch {
					if c.Kind == hubapi.KindChannelItem || c.Kind == hubapi.KindTyping {
						out = append(out, c)
					}
				}
			case <-ctx.Done():
				t.Fatalf("the stream brought %d of the channel's 2 changes", len(out))
			}
		}
		return out
	}
	for _, c := range private(fromAlice) {
		if c.ID != "" || len(c.Data) != 0 || c.Seq == 0 {
			t.Fatalf("alice's stream carries henry's %s: id %q, data %s", c.Kind, c.ID, c.Data)
		}
	}
	got := private(fromHenry)
	if p, err := got[0].Payload(); err != nil || p.(channel.Item).Text != "the salary file" || got[1].ID == "" {
		t.Fatalf("henry's own channel on his stream: %+v (%v)", got, err)
	}
}

// Item 3's reproduction over the socket: a secretary sends its human .env,
// memory/api-token, memory/lease, memory/run.fence and a link to .env;
// each is denied at its boundary and nothing reaches the channel, while a
// plain file still sends. A file item of secret material stored before
// sends were judged (planted here in the store as such a hub wrote it) is
// refused on save by the same table, and nothing is written out.
func TestSecretFilesNeverReachTheHuman(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx := context.Background()
	sec := th.addPersona(t, "root/secretary", "Porrima")
	me := th.runtime(t, sec)
	dir := workspace.HomeDir(th.home.Dir, sec.Address)
	mustNil(t, os.MkdirAll(filepath.Join(dir, "memory"), 0o700))
	mustNil(t, os.MkdirAll(filepath.Join(dir, "notes"), 0o700))
	for _, p := range []string{".env", "memory/api-token", "memory/lease", "memory/run.fence"} {
		mustNil(t, os.WriteFile(filepath.Join(dir, p), []byte("SECRET=xyz\n"), 0o600))
	}
	mustNil(t, os.Symlink("../.env", filepath.Join(dir, "notes", "env.md")))
	mustNil(t, os.WriteFile(filepath.Join(dir, "notes.md"), []byte("# notes\n"), 0o600))
	for _, c := range []struct {
		path     string
		boundary confirm.BoundaryID
	}{
		{".env", confirm.BoundarySecretValues},
		{"memory/api-token", confirm.BoundarySecretValues},
		{"memory/lease", confirm.BoundaryAuthorityMaterial},
		{"memory/run.fence", confirm.BoundaryAuthorityMaterial},
		{"notes/env.md", confirm.BoundarySecretValues},
	} {
		call, err := me.CallTool(ctx, "", "send_human_file", json.RawMessage(`{"path":"`+c.path+`"}`), "")
		mustNil(t, err)
		if call.Status != tools.ToolDenied || call.Decision.Boundary != c.boundary || len(call.Result) != 0 {
			t.Errorf("send_human_file %s: %+v; want denied at %s", c.path, call, c.boundary)
		}
	}
	henry := th.operator(t, "henry")
	page, err := henry.Inbox(ctx, "", 0)
	mustNil(t, err)
	if len(page.Items) != 0 {
		t.Fatalf("henry's channel after the refused sends: %+v", page.Items)
	}
	if it := toolItem(t, me, "send_human_file", `{"path":"notes.md"}`); it.File == nil || it.File.Path != "notes.md" {
		t.Fatalf("a plain file: %+v", it)
	}

	secret := []byte("SECRET=xyz\n")
	sum := sha256.Sum256(secret)
	old, plan, err := mailbox.New(th.hub.st, time.Now, quota.Limits{}).PlanPost(ctx, channel.Item{Human: "human:henry",
		Persona: coord.Sender{Address: sec.Address, Name: sec.Name, ID: sec.ID, Generation: sec.Generation}, Kind: channel.KindFile,
		File: &channel.File{Name: ".env", Size: int64(len(secret)), SHA256: "sha256:" + hex.EncodeToString(sum[:]), Path: ".env"}}, secret)
	mustNil(t, err)
	_, err = plan.Commit(ctx, th.hub.st)
	mustNil(t, err)
	to := filepath.Join(t.TempDir(), "saved")
	_, err = henry.SaveInboxFile(ctx, old.ID, to)
	wantCode(t, err, "secret_material")
	if !strings.Contains(err.Error(), confirm.BoundarySecretValues.String()) {
		t.Errorf("the refusal %q does not name its boundary", err)
	}
	if _, err := os.Lstat(to); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a refused save wrote %s: %v", to, err)
	}
}
