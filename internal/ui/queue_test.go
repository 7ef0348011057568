package ui

import (
	tea "charm.land/bubbletea/v2"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func newTestLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// queueConsole opens the queue with the first (oldest, the operator's own)
// confirmation c-1 selected, and looked at for the arming time.
func queueConsole(t *testing.T, opts ...Options) (*Model, *hubDouble) {
	h := &hubDouble{snap: demoSnapshot()}
	m := console(t, h, 80, 24, opts...)
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
		deliberately(t, m, c.keys...)
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
	advance(m, m.opts.Settle) // the d stood alone: no key right after it
	typeText(t, m, "not before the freeze")
	press(t, m, "enter")
	settled(t, m)
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
	look(m)
	press(t, m, "a", "A")
	if len(h.decisions) != 0 || m.dialog != nil {
		t.Fatalf("another authority's confirmation was acted on: %+v", h.decisions)
	}
	if !strings.Contains(plain(m), "not yours: routed to work/core/lead") {
		t.Errorf("the refusal is not explained:\n%s", plain(m))
	}
	// d opens its field all the same (a key that opens a field always
	// opens it), and its enter denies nothing.
	press(t, m, "d")
	typeText(t, m, "after a freeze")
	if m.prompt != promptReason || !strings.Contains(plain(m), "nothing to deny here") {
		t.Fatalf("d on another's confirmation: prompt %d\n%s", m.prompt, plain(m))
	}
	press(t, m, "enter")
	if len(h.decisions) != 0 || m.prompt != promptNone || !strings.Contains(plain(m), "nothing was denied: not yours") {
		t.Fatalf("enter in the dead deny prompt: decisions %+v, prompt %d\n%s", h.decisions, m.prompt, plain(m))
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
	settled(t, m)
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
	press(t, m, "z") // the whole body: every line at 80×24
	s := plain(m)
	for _, want := range []string{"requester    work/core/deputy", "routed to    human:henry (you)", "boundary     credential-or-permission-change",
		"tool         virgo.persona.activate", "action       registry.activate", "target       address:work/core/deputy", "shape        permission:change",
		"stamp hash   sha256:abcc-2", "correlation  corr-c-2", "+ runs and artifacts", "- tasks: assign"} {
		if !strings.Contains(s, want) {
			t.Errorf("detail lacks %q", want)
		}
	}
}

// The pane scrolls with its own keys (J/K, ctrl+d/ctrl+u); "the
// class-matrix diff of a permission change is readable to its last line."
// And the selection is the truth: "With the detail pane open, `j`/`k`
// scroll the pane instead of moving to the next confirmation, so the
// operator denied a different request than the one they meant": j/k
// always move the selection, and the pane follows it.
func TestDetailPaneScrollsAndFollowsTheSelection(t *testing.T) {
	m, _ := queueConsole(t)
	press(t, m, "j", "enter") // c-2: 14 lines in an 11-line pane at 80×24
	if s := plain(m); strings.Contains(s, "- tasks: assign") || !strings.Contains(s, "lines 1–11 of 14 ↓") {
		t.Fatalf("the pane should start at its top and say there is more:\n%s", s)
	}
	press(t, m, "J")
	if s := plain(m); !strings.Contains(s, "- tasks: assign") || !strings.Contains(s, "lines 4–14 of 14 ↑") {
		t.Fatalf("J should scroll the pane to the diff's last line:\n%s", s)
	}
	if m.queue.table.Selected() != "c-2" {
		t.Fatalf("J moved the selection to %q; it scrolls the pane only", m.queue.table.Selected())
	}
	press(t, m, "K")
	if m.queue.pane.top != 0 {
		t.Errorf("K: top %d, want 0", m.queue.pane.top)
	}
	m.Update(tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl})
	if m.queue.pane.top != 3 || m.prompt != promptNone {
		t.Errorf("ctrl+d: top %d (want 3), prompt %d (want none: it is no deny)", m.queue.pane.top, m.prompt)
	}
	m.Update(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	if m.queue.pane.top != 0 {
		t.Errorf("ctrl+u: top %d, want 0", m.queue.pane.top)
	}
	press(t, m, "J", "j")
	if s := plain(m); m.queue.table.Selected() != "c-3" || !m.queue.pane.open || !strings.Contains(s, "── confirmation c-3") ||
		m.queue.pane.top != 0 {
		t.Fatalf("j in the open pane: selected %q, pane open %v at line %d; want c-3 shown in the pane from its top:\n%s",
			m.queue.table.Selected(), m.queue.pane.open, m.queue.pane.top, s)
	}
	press(t, m, "down", "up", "k")
	if s := plain(m); m.queue.table.Selected() != "c-2" || !strings.Contains(s, "── confirmation c-2") {
		t.Fatalf("arrows and k in the open pane: selected %q; the pane must follow:\n%s", m.queue.table.Selected(), s)
	}
}

// The pane "can be widened to the whole screen (z or enter
// again)"; esc narrows it, then closes it.
func TestDetailPaneZoom(t *testing.T) {
	for _, keys := range [][]string{{"enter", "enter"}, {"z"}} {
		m, h := queueConsole(t)
		press(t, m, keys...)
		s := plain(m)
		if !m.queue.pane.zoomed || strings.Contains(s, "REQUESTER") || !strings.Contains(s, "── confirmation c-1 ──") {
			t.Fatalf("%v should widen the pane over the list:\n%s", keys, s)
		}
		if !strings.Contains(s, "target       external:https://registry.example.org/virgo/releases/v1.2.0/virgo-\n") ||
			!strings.Contains(s, "\n             tui_linux_amd64.tar.gz\n") {
			t.Errorf("%v: the long target should wrap under itself, whole:\n%s", keys, s)
		}
		press(t, m, "esc")
		if !m.queue.pane.open || m.queue.pane.zoomed || !strings.Contains(plain(m), "REQUESTER") {
			t.Fatalf("esc should narrow the pane back under the list:\n%s", plain(m))
		}
		press(t, m, "esc")
		if m.queue.pane.open || len(h.decisions) != 0 {
			t.Fatalf("esc should close the pane and decide nothing: %+v", h.decisions)
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

// "The queue list shows tool, target and shape ... at 80 columns
// the target stays visible"; and "a URL's host is never the part that is
// cut": at 19 cells a host of 20 keeps its domain, a path its file.
func TestQueueShowsToolTargetShapeAt80Columns(t *testing.T) {
	m, _ := queueConsole(t)
	s := plain(m)
	for _, want := range []string{
		"TOOL", "TARGET", "SHAPE",
		"publish_dep… …gistry.example.org publish:ex…",
		"advance_run  run:work/core/…/r-3 delete",
		"gateway-t…hedule.md",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the queue at 80 columns lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "deploy.publish") {
		t.Error("the handler action belongs in the detail pane, not the list")
	}
	m.Update(resizeMsg(200, 40))
	if s := plain(m); !strings.Contains(s, "external:https://registry.example.org/virgo/releases/v1.2.0/virgo-tui_linux_amd64.tar.gz") {
		t.Errorf("at 200 columns the target column should take the width and show the target whole:\n%s", s)
	}
}

// "In the list the target column takes the width the others do not need":
// at 120 columns the tool, shape and routing columns take what their
// cells need, and the target every other cell (it had 26).
func TestQueueTargetTakesTheWidthTheOthersDoNotNeed(t *testing.T) {
	m, _ := queueConsole(t)
	m.Update(resizeMsg(120, 40))
	plain(m) // a frame lays the page out
	w := m.queue.table.widths
	if w[qcTarget] < 34 || w[qcRouted] != 14 || w[qcShape] != 17 {
		t.Fatalf("widths at 120 columns %v: want the target at 34 or more, routed 14 and shape 17 (their cells)", w)
	}
	if s := plain(m); !strings.Contains(s, "https://registry.example.org…ar.gz") {
		t.Errorf("the URL's scheme and host should stay whole, its path cut:\n%s", s)
	}
}

// The target's cut keeps what names what is decided: a URL's host (its
// domain when even the host is too wide), a path's file.
func TestCutTargetKeepsTheHostAndTheFile(t *testing.T) {
	for _, c := range []struct {
		text string
		w    int
		want string
	}{
		{"external:https://example.org/releases/x1.tar.gz", 30, "external:https://example.org…z"},
		{"external:https://example.org/releases/x1.tar.gz", 26, "https://example.org…tar.gz"},
		{"external:https://example.org/releases/x1.tar.gz", 14, "example.org…gz"},
		{"external:https://downloads.example.org/x1", 12, "…example.org"},
		{"path:memory/notes/releases-235.md", 19, "pa…/releases-235.md"},
		{"path:memory/notes/releases-235.md", 10, "rele…35.md"},
		{"address:work/core/deputy", 19, "address:wor…/deputy"},
		{"memo:plain-target-without-slash", 19, "memo:plai…out-slash"},
	} {
		got := cutTarget(c.text, textWidth(c.text), c.w)
		if got != c.want || textWidth(got) > c.w {
			t.Errorf("%q in %d cells: %q, want %q", c.text, c.w, got, c.want)
		}
	}
}

// "See it before deciding it": at 80×24, with nothing opened, a preview
// under the list shows the selected confirmation's whole bound operation —
// the target in full with its host, the relayed choice, the description,
// every line of a several-line argument (cleaned), who decides, the time
// left — and it follows j/k.
func TestQueuePreviewShowsTheBoundOperation(t *testing.T) {
	snap := demoSnapshot()
	snap.Confirmations[0].Arguments = []Argument{{Name: "choice", Value: "ship v1.2.0 to the public registry"},
		{Name: "description", Value: "release notes\nsecond \x1b]52;c;ZXZpbA==\x07line"}}
	m := console(t, &hubDouble{snap: snap}, 80, 24)
	press(t, m, "2")
	s := plain(m)
	for _, want := range []string{
		"── confirmation c-1 · enter: all details",
		"requester    work/core/lead",
		"tool         publish_deployment_v1",
		"target       external:https://registry.example.org/virgo/releases/v1.2.0/virgo-\n             tui_linux_amd64.tar.gz",
		"  host       registry.example.org",
		"shape        publish:external",
		"  choice ship v1.2.0 to the public registry",
		"  description release notes\n    second",
		"routed to    human:henry (you)",
		"lines 1–11 of 12 ↓", // the rest is one J away, never cut
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the preview lacks %q:\n%s", want, s)
		}
	}
	press(t, m, "J")
	if s := plain(m); !strings.Contains(s, "left         5m") {
		t.Errorf("J should scroll the preview to its last line:\n%s", s)
	}
	if raw := m.Render(); strings.Contains(raw, "\x1b]52;") || strings.Contains(raw, "\x07") {
		t.Errorf("an OSC 52 sequence a persona wrote reached the screen")
	}
	press(t, m, "j")
	if s := plain(m); !strings.Contains(s, "── confirmation c-2 · enter: all details") || !strings.Contains(s, "target       address:work/core/deputy") {
		t.Errorf("j should move the preview to c-2:\n%s", s)
	}
	m.Update(resizeMsg(60, 16))
	if s := plain(m); strings.Contains(s, "enter: all details") {
		t.Errorf("at 60×16 there is no room for the preview:\n%s", s)
	}
}

// What is decided is shown whole — a relayed resolution's
// choice and reason (each line of a several-line text) are in the detail
// pane, cleaned of what a persona could hide in them, and the filter
// finds a confirmation by them.
func TestQueueDetailShowsTheBoundArguments(t *testing.T) {
	snap := demoSnapshot()
	for i := range snap.Confirmations {
		if snap.Confirmations[i].ID == "c-1" {
			snap.Confirmations[i].Arguments = []Argument{{Name: "choice", Value: "alpha"},
				{Name: "reason", Value: "first line\nsecond \x1b]52;c;ZXZpbA==\x07line"}}
		}
	}
	m := console(t, &hubDouble{snap: snap}, 80, 24)
	press(t, m, "2", "enter", "z")
	s := plain(m)
	for _, want := range []string{"arguments", "choice alpha", "reason first line", "second"} {
		if !strings.Contains(s, want) {
			t.Errorf("detail lacks %q:\n%s", want, s)
		}
	}
	if raw := m.Render(); strings.Contains(raw, "]52;") && strings.Contains(raw, "\x07") {
		t.Errorf("an OSC 52 sequence a persona wrote reached the screen")
	}
	c, _ := m.queue.table.Get("c-1")
	if !strings.Contains(string(confirmationHaystack(c, nil)), "choice=alpha") {
		t.Errorf("the filter does not search the bound arguments")
	}
}
