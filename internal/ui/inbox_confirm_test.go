package ui

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// inboxIDs are the ids of the inbox's rows in order.
func inboxIDs(m *Model) []string {
	var ids []string
	for _, r := range m.inbox.table.visible() {
		ids = append(ids, r.id)
	}
	return ids
}

// The issue: "each confirmation routed to a human appears in that human's
// inbox as an item, decided there under the same rules, and leaves every
// view once decided anywhere." The spec: "A global-boundary confirmation
// goes to the persona's bound human authority through virgo-channel".
func TestInboxCarriesTheOperatorsConfirmations(t *testing.T) {
	m, d := inboxConsole(t, 80, 24)
	ids := inboxIDs(m)
	// c-1 and c-2 are routed to human:henry; c-3 to a lead, c-4 to nobody.
	if !slices.Equal(ids[:2], []string{"c-2", "c-1"}) || slices.Contains(ids, "c-3") || slices.Contains(ids, "c-4") {
		t.Fatalf("inbox rows %v: want the operator's confirmations c-2, c-1 first and no other", ids)
	}
	press(t, m, "g", "j") // c-1
	screen := plain(m)
	for _, want := range []string{"confirm", "confirmation c-1", "publish_deployment_v1",
		"external:https://registry.example.org/virgo/releases/v1.2.0/virgo-", "host       registry.example.org",
		"publish:external", "human:henry (you)", "a approve"} {
		if !strings.Contains(screen, want) {
			t.Fatalf("the inbox on c-1 does not show %q:\n%s", want, screen)
		}
	}
	// Arming: a key right after the move decides nothing, and says why.
	press(t, m, "a")
	settled(t, m)
	if len(d.decisions) != 0 || !strings.Contains(plain(m), "selected just now — look first") {
		t.Fatalf("a on a row selected just now: %+v\n%s", d.decisions, plain(m))
	}
	// Deliberate: the decision goes to the hub, and the row leaves the inbox
	// and the queue together.
	deliberately(t, m, "a")
	if len(d.decisions) != 1 || d.decisions[0].id != "c-1" || !d.decisions[0].d.Approve {
		t.Fatalf("a deliberate a on c-1 in the inbox sent %+v", d.decisions)
	}
	if _, ok := m.inbox.table.Get("c-1"); ok {
		t.Fatal("c-1 approved from the inbox is still in the inbox")
	}
	if _, ok := m.queue.table.Get("c-1"); ok {
		t.Fatal("c-1 approved from the inbox is still in the queue")
	}
	if acts := d.actions(); slices.ContainsFunc(acts, func(a string) bool { return strings.HasPrefix(a, "ack") }) {
		t.Fatalf("approving a confirmation acked an item: %v", acts)
	}
	// A denial from the inbox: d alone, a reason, enter.
	m.inbox.table.Select("c-2")
	look(m)
	denyWith(t, m, "not this week")
	if len(d.decisions) != 2 || d.decisions[1].id != "c-2" || d.decisions[1].d.Reason != "not this week" {
		t.Fatalf("a deliberate deny of c-2 in the inbox sent %+v", d.decisions)
	}
	// Decided elsewhere: an arrival for the operator shows in the inbox,
	// and leaves it when another console decides it.
	m.Update(batchMsg{changes: []Change{pendingFor("c-7", "human:henry")}})
	if _, ok := m.inbox.table.Get("c-7"); !ok {
		t.Fatalf("c-7 routed to the operator did not reach the inbox: %v", inboxIDs(m))
	}
	m.Update(batchMsg{changes: []Change{{Seq: 30, Kind: ConfirmationDecided, ID: "c-7", DecidedBy: "human:henry", Outcome: "approved"}}})
	if _, ok := m.inbox.table.Get("c-7"); ok {
		t.Fatal("c-7 decided elsewhere is still in the inbox")
	}
}

// A confirmation row of the inbox is armed on its own: the same
// confirmation armed in the queue is not armed in the inbox the moment
// the operator switches views.
func TestInboxConfirmationArmsOnItsOwn(t *testing.T) {
	m, d := inboxConsole(t, 80, 24)
	press(t, m, "2") // the queue, on c-1
	look(m)
	press(t, m, "5")
	m.inbox.table.Select("c-1")
	advance(m, DefaultArming)
	press(t, m, "a") // a view switch and a move, then a key: c-1 was on screen in the queue, not here
	settled(t, m)
	if len(d.decisions) != 0 {
		t.Fatalf("a on the inbox's c-1 armed only in the queue decided %+v", d.decisions)
	}
}

// The issue: "a sentence typed into the inbox list must not ack or send":
// typed at human speed on a confirmation it decides nothing, on an item it
// acks nothing and sends nothing, and the status line says so.
func TestInboxTypedSentenceActsOnNothing(t *testing.T) {
	for _, c := range []struct{ row, text string }{
		{"c-1", "are you there"},
		{"c-1", "looks good, approve it\n"},
		{"h-5", "are you there"},
		{"h-5", "the fix is ready\n"},
		{"h-3", "ok, reply later\n"},
		{"h-5", "fine, save it as draft\n"},
	} {
		t.Run(c.row+" "+strings.TrimSpace(c.text), func(t *testing.T) {
			m, d := inboxConsole(t, 80, 24)
			m.inbox.table.Select(c.row)
			look(m)
			typeAt(t, m, c.text, 120*time.Millisecond)
			settled(t, m)
			press(t, m, "esc")
			acts := slices.DeleteFunc(d.actions(), func(a string) bool { return a == "status" })
			if len(d.decisions) != 0 || len(acts) != 0 {
				t.Fatalf("%q typed into the inbox on %s: decisions %+v, inbox calls %v", c.text, c.row, d.decisions, acts)
			}
		})
	}
}

// The companion: with the standing-alone rule off (no settle time), the
// same sentence acks an item, so the test above can fail.
func TestInboxTypedSentenceAcksWithoutTheRule(t *testing.T) {
	d := &inboxDouble{hubDouble: &hubDouble{snap: demoSnapshot()}, state: demoInbox()}
	m := console(t, d.hubDouble, 80, 24, Options{Settle: time.Nanosecond})
	m.inboxClient = d
	m.Update(inboxLoadedMsg{state: d.state})
	press(t, m, "5")
	m.inbox.table.Select("h-5")
	look(m)
	typeAt(t, m, "are you there", 120*time.Millisecond)
	if !slices.Contains(d.actions(), "ack h-5") {
		t.Fatalf("without a settle time the sentence acked nothing (%v): the rule is not what the test above shows", d.actions())
	}
}

// A stale hint: after the operator's own move the status line said the
// row "just arrived"; it says the row was selected just now, and "just
// arrived" only when a change elsewhere brought the row under the cursor.
func TestLookFirstSaysWhoMovedTheRow(t *testing.T) {
	m, _ := queueConsole(t)
	press(t, m, "j", "a")
	if s := plain(m); !strings.Contains(s, "selected just now — look first") || strings.Contains(s, "just arrived") {
		t.Fatalf("a right after the operator's own j:\n%s", s)
	}
	press(t, m, "k")
	look(m)
	m.Update(batchMsg{changes: []Change{{Seq: 30, Kind: ConfirmationDecided, ID: "c-1", DecidedBy: "human:ada", Outcome: "approved"}}})
	press(t, m, "a") // the look after k was the quiet before it: only the arming speaks
	if s := plain(m); !strings.Contains(s, "just arrived — look first") {
		t.Fatalf("a on a row a decision elsewhere slid under the cursor:\n%s", s)
	}
}

// "In the list the target column takes the width the others do not need,
// and a URL's host is never the part that is cut": a confirmation's row in
// the inbox shows the target's host at 80 and at 120 columns, the tool
// giving way first (at 80 columns the text had 19 cells and showed
// "publish_deployment…"; at 120 the host was cut to "registry.example.or…").
func TestInboxConfirmationRowKeepsTheTargetsHost(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		m, _ := inboxConsole(t, size[0], size[1])
		var row string
		for _, l := range strings.Split(plain(m), "\n") {
			if strings.Contains(l, "⚑") && strings.Contains(l, "work/core/lead") {
				row = l
			}
		}
		if !strings.Contains(row, "registry.example.org") {
			t.Errorf("at %dx%d the row of c-1 does not show its target's host registry.example.org:\n%q", size[0], size[1], row)
		}
	}
}

// The inbox's cut of "tool target": the tool gives way (whole, cut, left
// out) so that the target's host or file stays whole while the column can
// hold it; narrower still, the target alone is cut as the queue cuts it.
func TestCutOperationGivesWayToTheTarget(t *testing.T) {
	const deploy = "publish_deployment_v1 external:https://registry.example.org/virgo/releases/v1.2.0/virgo-tui_linux_amd64.tar.gz"
	for _, c := range []struct {
		text string
		w    int
		want string
	}{
		{deploy, 64, "publish_deployment_v1 external:https://registry.example.org…r.gz"},
		{deploy, 40, "publish… https://registry.example.org…gz"},
		{deploy, 24, "registry.example.org….gz"},
		{deploy, 19, "…gistry.example.org"},
		{"virgo.persona.activate address:work/core/deputy", 24, "virgo.p… address…/deputy"},
		{"delete_file path:memory/notes/releases-235.md", 30, "delete_file p…/releases-235.md"},
	} {
		got := cutOperation(c.text, textWidth(c.text), c.w)
		if got != c.want || textWidth(got) > c.w {
			t.Errorf("%q in %d cells: %q, want %q", c.text, c.w, got, c.want)
		}
	}
}

// The inbox follows the queue one change at a time: a confirmation that
// arrives in a queue of 30,000 (10,000 of them the operator's, each a row
// of the inbox too) costs the inbox that one row, not a pass over every
// confirmation with a set of the operator's 10,000. Measured in bytes
// allocated by the Update of each arrival (the pass built a 10,000-entry
// set each time: about 1 MiB an arrival, against tens of KiB for the row).
func TestInboxFollowsAnArrivalWithoutScanningTheQueue(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	snap := demoSnapshot()
	snap.Confirmations = confirmations(30000, rng)
	m := console(t, &hubDouble{snap: snap}, 120, 40)
	if got := len(m.inbox.confs); got != 0 {
		t.Fatalf("the inbox, never shown, built %d rows of confirmations, want none yet", got)
	}
	press(t, m, "5")
	if got := len(m.inbox.confs); got != 10000 {
		t.Fatalf("the inbox holds %d of the operator's confirmations, want 10000", got)
	}
	const arrivals = 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range arrivals {
		c := snap.Confirmations[3*i] // routed to the operator
		c.ID = "new" + strconv.Itoa(i)
		m.Update(batchMsg{changes: []Change{{Kind: ConfirmationPending, Confirmation: c}}})
	}
	runtime.ReadMemStats(&after)
	per := (after.TotalAlloc - before.TotalAlloc) / arrivals
	t.Logf("%d bytes allocated an arrival", per)
	if per > 128<<10 {
		t.Fatalf("an arrival allocated %d bytes, want at most 128 KiB: the inbox went over the whole queue", per)
	}
	if got := len(m.inbox.confs); got != 10000+arrivals {
		t.Fatalf("the inbox holds %d of the operator's confirmations, want %d", got, 10000+arrivals)
	}
	for i := range arrivals {
		if _, ok := m.inbox.table.Get("new" + strconv.Itoa(i)); !ok {
			t.Fatalf("arrival new%d is not in the inbox", i)
		}
	}
	// Hidden, the inbox follows nothing; shown again, it has what changed.
	press(t, m, "2")
	late := snap.Confirmations[0]
	late.ID = "late"
	m.Update(batchMsg{changes: []Change{{Kind: ConfirmationPending, Confirmation: late},
		{Kind: ConfirmationDecided, ID: "new0", DecidedBy: "human:henry", Outcome: "approved"}}})
	if _, ok := m.inbox.table.Get("late"); ok {
		t.Fatal("the hidden inbox followed an arrival")
	}
	press(t, m, "5")
	_, hasLate := m.inbox.table.Get("late")
	_, hasDecided := m.inbox.table.Get("new0")
	if !hasLate || hasDecided || len(m.inbox.confs) != 10000+arrivals {
		t.Fatalf("shown again, the inbox has the arrival %v, the decided %v, %d confirmations; want true, false, %d",
			hasLate, hasDecided, len(m.inbox.confs), 10000+arrivals)
	}
}
