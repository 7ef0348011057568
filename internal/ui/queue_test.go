package ui

import (
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func newTestLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// queueConsole opens the queue with the first (oldest, the operator's own)
// confirmation c-1 selected, and looked at for the arming time.
func queueConsole(t *testing.T) (*Model, *hubDouble) {
	h := &hubDouble{snap: demoSnapshot()}
	m := console(t, h, 80, 24)
	press(t, m, "2")
	if id := m.queue.table.Selected(); id != "c-1" {
		t.Fatalf("queue opens on %q, want c-1 (routed to the operator, oldest first)", id)
	}
	look(m)
	return m, h
}

func TestQueueOrderMineFirstOldestFirst(t *testing.T) {
	m, _ := queueConsole(t)
	var ids []string
	for _, r := range m.queue.table.visible() {
		ids = append(ids, r.id)
	}
	if got := strings.Join(ids, ","); got != "c-1,c-2,c-3,c-4" {
		t.Errorf("queue order %s, want c-1,c-2 (yours, oldest first), c-3 (a lead's), c-4 (unroutable)", got)
	}
}

func TestApproveKeys(t *testing.T) {
	for _, c := range []struct {
		keys []string
		want Decision
	}{{[]string{"a"}, Decision{Approve: true}}, {[]string{"A", "y"}, Decision{Approve: true, Remember: true, Overlay: OverlayPersona}}} {
		m, h := queueConsole(t)
		press(t, m, c.keys...)
		if len(h.decisions) != 1 || h.decisions[0].id != "c-1" || h.decisions[0].d != c.want {
			t.Fatalf("%v sent %+v, want one %+v for c-1", c.keys, h.decisions, c.want)
		}
		if _, ok := m.queue.table.Get("c-1"); ok {
			t.Error("a decided confirmation should leave the queue")
		}
		if m.queue.mine != 1 {
			t.Errorf("pending for you = %d, want 1", m.queue.mine)
		}
	}
}

func TestDenyAsksForAReason(t *testing.T) {
	m, h := queueConsole(t)
	press(t, m, "d")
	if m.prompt != promptReason {
		t.Fatal("d did not open the reason prompt")
	}
	press(t, m, "enter")
	if len(h.decisions) != 0 || !strings.Contains(plain(m), "a denial needs a reason") {
		t.Fatalf("an empty reason must not be sent and must be explained:\n%s", plain(m))
	}
	typeText(t, m, "not before the freeze")
	press(t, m, "enter")
	want := Decision{Reason: "not before the freeze"}
	if len(h.decisions) != 1 || h.decisions[0].d != want || h.decisions[0].id != "c-1" {
		t.Fatalf("deny sent %+v, want %+v for c-1", h.decisions, want)
	}
	if !strings.Contains(plain(m), "denied: work/core/lead") {
		t.Errorf("the denial is not confirmed on screen:\n%s", plain(m))
	}
}

func TestDenyEscCancels(t *testing.T) {
	m, h := queueConsole(t)
	press(t, m, "d")
	typeText(t, m, "half a reason")
	press(t, m, "esc")
	if m.prompt != promptNone || len(h.decisions) != 0 {
		t.Fatalf("esc must cancel the denial without sending anything: %+v", h.decisions)
	}
	if !strings.Contains(plain(m), "deny cancelled") {
		t.Error("the cancellation is not shown")
	}
}

func TestOthersAndUnroutableAreNotActionable(t *testing.T) {
	m, h := queueConsole(t)
	press(t, m, "j", "j") // c-3, routed to work/core/lead
	press(t, m, "a", "A", "d")
	if len(h.decisions) != 0 || m.prompt != promptNone {
		t.Fatalf("another authority's confirmation was acted on: %+v", h.decisions)
	}
	if !strings.Contains(plain(m), "not yours: routed to work/core/lead") {
		t.Errorf("the refusal is not explained:\n%s", plain(m))
	}
	press(t, m, "j") // c-4, unroutable
	press(t, m, "a")
	if len(h.decisions) != 0 || !strings.Contains(plain(m), "unroutable") {
		t.Fatalf("an unroutable confirmation was acted on or not explained: %+v", h.decisions)
	}
}

func TestHubErrorIsShown(t *testing.T) {
	m, h := queueConsole(t)
	h.decideErr = errExpired
	press(t, m, "a")
	if !strings.Contains(plain(m), "expired at 12:05") {
		t.Fatalf("the hub's error is not on screen:\n%s", plain(m))
	}
	if _, ok := m.queue.table.Get("c-1"); !ok {
		t.Error("a failed decision must leave the confirmation in the queue")
	}
}

func TestQueueDetail(t *testing.T) {
	m, _ := queueConsole(t)
	press(t, m, "j", "enter")
	s := plain(m)
	for _, want := range []string{"requester    work/core/deputy", "routed to    human:henry (you)", "boundary     permission change",
		"operation    activate work/core/deputy gen 1", "stamp hash   sha256:abcc-2", "correlation  corr-c-2", "+ runs and artifacts", "- tasks: assign"} {
		if !strings.Contains(s, want) {
			t.Errorf("detail lacks %q", want)
		}
	}
}

// The design: "A request resolved elsewhere closes its prompt in every open
// console."
func TestDecidedElsewhereClosesThePrompt(t *testing.T) {
	m, h := queueConsole(t)
	press(t, m, "d")
	typeText(t, m, "wait")
	m.Update(batchMsg{at: t0, changes: []Change{{Seq: 11, Kind: ConfirmationDecided, ID: "c-1", DecidedBy: "human:ada", Outcome: "approved"}}})
	if m.prompt != promptNone {
		t.Fatal("the deny prompt stayed open for a confirmation decided elsewhere")
	}
	if _, ok := m.queue.table.Get("c-1"); ok {
		t.Fatal("the confirmation decided elsewhere is still listed")
	}
	if !strings.Contains(plain(m), "decided by human:ada") {
		t.Errorf("no note of who decided:\n%s", plain(m))
	}
	setClock(m, t0.Add(2*time.Second)) // past the grace period the selection change started
	press(t, m, "enter")
	if len(h.decisions) != 0 {
		t.Fatalf("keys after the close decided something: %+v", h.decisions)
	}
}

func TestStaleChangesAreIgnored(t *testing.T) {
	m, _ := queueConsole(t)
	m.Update(batchMsg{at: t0, changes: []Change{{Seq: 9, Kind: ConfirmationDecided, ID: "c-1", DecidedBy: "x"}}})
	if _, ok := m.queue.table.Get("c-1"); !ok {
		t.Error("a change older than the snapshot was applied")
	}
}

func TestReconnectSnapshotReplacesTheQueue(t *testing.T) {
	m, _ := queueConsole(t)
	snap := demoSnapshot()
	snap.Seq = 30
	snap.Confirmations = snap.Confirmations[1:] // c-1 was decided while we were away
	m.Update(snapshotMsg{snap: snap})
	if _, ok := m.queue.table.Get("c-1"); ok || m.queue.mine != 1 || m.queue.table.Len() != 3 {
		t.Fatalf("after a fresh snapshot: c-1 held %v, pending for you %d, rows %d", ok, m.queue.mine, m.queue.table.Len())
	}
	if m.queue.table.Selected() != "c-2" {
		t.Errorf("the selection should fall to the row now in c-1's place, got %q", m.queue.table.Selected())
	}
}
