package hub

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/workspace"
)

// The issue: "the database never shrinks. About 2.9 KiB per decided
// confirmation is kept forever." Under a clock the test moves, the
// retention job deletes human-channel items acked more than
// acked_retention ago (with their files) and confirmations decided more
// than decided_retention ago, and nothing else: an unread item, a pending
// confirmation, and the audit log's decision record stay.
func TestRetentionAgesOutWhatIsDone(t *testing.T) {
	clock := newFakeClock()
	th := startHub(t, shortHome(t), Config{Clock: clock, ConfirmTTL: 90 * 24 * time.Hour}, Timeouts{})
	ctx := context.Background()
	day := 24 * time.Hour
	acked, decided := time.Duration(hubapi.LimitOf("acked_retention").Max)*day, time.Duration(hubapi.LimitOf("decided_retention").Max)*day
	sec := th.addPersona(t, "root/secretary", "Porrima")
	me := th.runtime(t, sec)
	dir := workspace.HomeDir(th.home.Dir, sec.Address)
	mustNil(t, os.MkdirAll(dir, 0o700))
	mustNil(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("read and acked"), 0o600))
	mustNil(t, os.WriteFile(filepath.Join(dir, "b.txt"), []byte("never acked"), 0o600))
	readFile := toolItem(t, me, "send_human_file", `{"path":"a.txt"}`)
	unreadFile := toolItem(t, me, "send_human_file", `{"path":"b.txt"}`)
	readMsg := toolItem(t, me, "send_human_message", `{"text":"seen"}`)
	henry := th.operator(t, "henry")
	for _, id := range []string{readFile.ID, readMsg.ID} {
		_, err := henry.AckInbox(ctx, id)
		mustNil(t, err)
	}

	lead := th.runtime(t, th.addPersona(t, "work/core/lead", "Spica"))
	asked, err := lead.RequestConfirmation(ctx, floodOp(1))
	mustNil(t, err)
	waiting, err := lead.RequestConfirmation(ctx, floodOp(2))
	mustNil(t, err)
	_, err = henry.Decide(ctx, asked.Confirmation.ID, hubapi.DecideRequest{Approve: false, Reason: "not this week"})
	mustNil(t, err)

	sweep := func() int {
		t.Helper()
		n, err := th.hub.cases.SweepRetention(ctx)
		mustNil(t, err)
		return n
	}
	clock.Advance(acked - time.Minute)
	if n := sweep(); n != 0 {
		t.Fatalf("a minute before acked_retention the sweep deleted %d records", n)
	}
	clock.Advance(2 * time.Minute)
	if n := sweep(); n != 2 {
		t.Fatalf("past acked_retention the sweep deleted %d records, want the 2 acked items", n)
	}
	page, err := henry.Inbox(ctx, "", 0)
	mustNil(t, err)
	if len(page.Items) != 1 || page.Items[0].ID != unreadFile.ID {
		t.Fatalf("the inbox after the sweep: %+v", page.Items)
	}
	if _, err := henry.InboxFile(ctx, readFile); err == nil {
		t.Fatal("an aged-out file's bytes are still served")
	}
	data, err := henry.InboxFile(ctx, unreadFile)
	mustNil(t, err)
	if string(data) != "never acked" {
		t.Fatalf("the unread file reads %q", data)
	}
	if _, err := henry.Confirmation(ctx, asked.Confirmation.ID); err != nil {
		t.Fatalf("a confirmation decided %v ago is gone: %v", acked, err)
	}

	all, err := henry.Confirmations(ctx, true)
	mustNil(t, err)
	done := 0 // the denial and the two activations
	for _, c := range all {
		if c.Decision != nil {
			done++
		}
	}
	clock.Advance(decided - acked)
	if n := sweep(); n != done || done != 3 {
		t.Fatalf("past decided_retention the sweep deleted %d records, want the %d decided confirmations", n, done)
	}
	_, err = henry.Confirmation(ctx, asked.Confirmation.ID)
	wantCode(t, err, "no_confirmation")
	if c, err := henry.Confirmation(ctx, waiting.Confirmation.ID); err != nil || c.State != confirm.StatePending {
		t.Fatalf("the pending confirmation after the sweep: %+v, %v", c, err)
	}
	log, err := henry.Audit(ctx, 0)
	mustNil(t, err)
	var kept *confirm.AuditEntry
	for i, e := range log {
		if e.ConfirmationID == asked.Confirmation.ID && e.Event == string(confirm.StateDenied) {
			kept = &log[i]
		}
	}
	if kept == nil || kept.Requester.String() == "" || kept.AuthorityBinding == "" || kept.StampHash == "" ||
		kept.CorrelationID != "flood-1" || kept.Operation == "" || kept.Reason != "not this week" {
		t.Fatalf("the audit log's decision record: %+v", kept)
	}
	// A retry under the aged-out correlation id is asked again, never
	// answered by a decision nobody can see any more.
	again, err := lead.RequestConfirmation(ctx, floodOp(1))
	mustNil(t, err)
	if again.Confirmation == nil || again.Confirmation.ID == asked.Confirmation.ID || again.Confirmation.State != confirm.StatePending {
		t.Fatalf("a retry after the age-out: %+v", again)
	}
	if n := sweep(); n != 0 {
		t.Fatalf("a second sweep deleted %d records", n)
	}
}
