package hub

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/channel"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/quota"
	"github.com/virgo-hub/virgo-tui/internal/workspace"
)

// wantQuota is a quota_exceeded refusal naming quota and its limit, in its
// fields and in its sentence.
func wantQuota(t *testing.T, err error, name string, limit int64) {
	t.Helper()
	ae := wantCode(t, err, "quota_exceeded")
	if ae.Status != 429 || ae.Quota != name || ae.Limit != limit ||
		!strings.Contains(ae.Msg, name) || !strings.Contains(ae.Msg, strconv.FormatInt(limit, 10)) {
		t.Fatalf("refusal %d %+v, want 429 naming %s and %d", ae.Status, ae, name, limit)
	}
}

// The issue: "Every per-item limit holds, together they bound nothing:
// messages at 18.6 MiB/s (about 3.7 GB per seat)". A persona fills
// another seat's inbox to its inbox_bytes quota; the next send is refused
// quota_exceeded naming it, while the seat's human can still reply; an
// ack frees the quota; every message admitted is there, whole.
func TestInboxBytesQuotaThroughTheHub(t *testing.T) {
	body := strings.Repeat("x", coord.MaxBody)
	limit := int64(4 * coord.MaxBody)
	th := startHub(t, shortHome(t), Config{Quotas: quota.Limits{InboxBytes: limit}}, Timeouts{})
	ctx := context.Background()
	lead := th.runtime(t, th.addPersona(t, "work/core/lead", "Spica"))
	seat := th.addPersona(t, "root/secretary", "Porrima")
	rt := th.runtime(t, seat)
	var sent []coord.Message
	for range 4 {
		m, err := lead.SendMessage(ctx, coord.Draft{To: seat.Address, Body: body})
		mustNil(t, err)
		sent = append(sent, m)
	}
	_, err := lead.SendMessage(ctx, coord.Draft{To: seat.Address, Body: "one more"})
	wantQuota(t, err, quota.InboxBytes, limit)

	// The seat's human replies over the quota: a flood silences no human.
	asked := toolItem(t, rt, "send_human_message", `{"text":"shall I?"}`)
	_, err = th.operator(t, "henry").ReplyInbox(ctx, asked.ID, "yes")
	mustNil(t, err)

	_, err = rt.AckMessage(ctx, sent[0].ID)
	mustNil(t, err)
	_, err = rt.AckMessage(ctx, sent[1].ID)
	mustNil(t, err)
	_, err = lead.SendMessage(ctx, coord.Draft{To: seat.Address, Body: "one more"})
	mustNil(t, err)

	page, err := rt.Messages(ctx, "", "", 0)
	mustNil(t, err)
	if len(page.Items) != 4 || page.Items[0].ID != sent[2].ID || page.Items[0].Body != body ||
		page.Items[1].Body != body || page.Items[2].Item == "" || page.Items[3].Body != "one more" {
		t.Fatalf("the inbox after the refusal holds %d messages: %+v", len(page.Items), ids(page.Items))
	}
}

// The issue: "human-channel files at 100 MB/s (about 11 GB per human)". A
// persona sends its human files up to the unread_bytes quota; the next
// file (and the next message) is refused quota_exceeded naming it; the
// human's ack frees it; every file sent reads back whole.
func TestUnreadBytesQuotaThroughTheHub(t *testing.T) {
	data := []byte(strings.Repeat("f", 100_000))
	th := startHub(t, shortHome(t), Config{Quotas: quota.Limits{UnreadBytes: 230_000}}, Timeouts{})
	ctx := context.Background()
	sec := th.addPersona(t, "root/secretary", "Porrima")
	me := th.runtime(t, sec)
	dir := workspace.HomeDir(th.home.Dir, sec.Address)
	mustNil(t, os.MkdirAll(dir, 0o700))
	mustNil(t, os.WriteFile(filepath.Join(dir, "big.txt"), data, 0o600))
	first := toolItem(t, me, "send_human_file", `{"path":"big.txt"}`)
	second := toolItem(t, me, "send_human_file", `{"path":"big.txt"}`)
	fill := strings.Repeat("m", 16_000)
	toolItem(t, me, "send_human_message", `{"text":"`+fill+`"}`)
	_, err := me.CallTool(ctx, "", "send_human_file", json.RawMessage(`{"path":"big.txt"}`), "")
	wantQuota(t, err, quota.UnreadBytes, 230_000)
	_, err = me.CallTool(ctx, "", "send_human_message", json.RawMessage(`{"text":"`+fill+`"}`), "")
	wantQuota(t, err, quota.UnreadBytes, 230_000)

	henry := th.operator(t, "henry")
	_, err = henry.AckInbox(ctx, first.ID)
	mustNil(t, err)
	third := toolItem(t, me, "send_human_file", `{"path":"big.txt"}`)
	for _, it := range []channel.Item{first, second, third} {
		got, err := henry.InboxFile(ctx, it)
		mustNil(t, err)
		if string(got) != string(data) {
			t.Fatalf("file %s read back %d bytes, want %d", it.ID, len(got), len(data))
		}
	}
	st, err := henry.InboxStatus(ctx)
	mustNil(t, err)
	if st.Unread != 3 {
		t.Fatalf("%d unread, want 3 (second, the message, third)", st.Unread)
	}
}

func ids(ms []coord.Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.ID+":"+m.Item+":"+strconv.Itoa(len(m.Body)))
	}
	return out
}

// The quota rows of the limits table are the defaults the books enforce.
func TestQuotaDefaultsAreTheLimitsTable(t *testing.T) {
	d := quota.Limits{}.WithDefaults()
	if int64(hubapi.LimitOf(quota.InboxBytes).Max) != d.InboxBytes || int64(hubapi.LimitOf(quota.UnreadBytes).Max) != d.UnreadBytes {
		t.Fatalf("limits table %d/%d, books %d/%d", hubapi.LimitOf(quota.InboxBytes).Max, hubapi.LimitOf(quota.UnreadBytes).Max, d.InboxBytes, d.UnreadBytes)
	}
}
