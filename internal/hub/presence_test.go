package hub

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 8, 4, 9, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

var testIntervals = Intervals{Heartbeat: 10 * time.Second, Idle: time.Minute, Stale: 30 * time.Second, Offline: 2 * time.Minute}

func stateOf(t *testing.T, tr *Tracker, id string) hubapi.State {
	t.Helper()
	p, ok := tr.Get(id)
	if !ok {
		t.Fatalf("%s not tracked", id)
	}
	return p.State
}

func TestPresenceTransitionsUnderFakeClock(t *testing.T) {
	clk := newFakeClock()
	tr := NewTracker(clk, testIntervals)
	tr.Track(hubapi.Presence{ID: "g1", Address: "work/core/lead", Name: "Spica", Generation: 1})

	// "standing (stamp valid, no runtime connected)"
	if s := stateOf(t, tr, "g1"); s != hubapi.StateStanding {
		t.Fatalf("new entry: %s, want standing", s)
	}
	tr.Sweep()
	if s := stateOf(t, tr, "g1"); s != hubapi.StateStanding {
		t.Fatalf("standing must not decay without a runtime: %s", s)
	}

	steps := []struct {
		do   func()
		want hubapi.State
	}{
		{func() { mustNil(t, tr.SetActivity("g1", "reading QUEUE.md")) }, hubapi.StateActive},
		// beats keep it connected, but no activity change for the idle interval -> idle
		{func() {
			for i := 0; i < 7; i++ {
				clk.Advance(10 * time.Second)
				mustNil(t, tr.Beat("g1"))
			}
			tr.Sweep()
		}, hubapi.StateIdle},
		{func() { mustNil(t, tr.SetActivity("g1", "writing FINDINGS.md")) }, hubapi.StateActive},
		// "missed heartbeats: after a configurable interval, default 3 × 10 s"
		{func() { clk.Advance(31 * time.Second); tr.Sweep() }, hubapi.StateStale},
		{func() { clk.Advance(90 * time.Second); tr.Sweep() }, hubapi.StateOffline},
		// a runtime that comes back is active again
		{func() { mustNil(t, tr.Beat("g1")) }, hubapi.StateActive},
		{func() { tr.Retire("g1") }, hubapi.StateRetired},
		// retired is terminal: time and reports do not move it
		{func() { clk.Advance(time.Hour); tr.Sweep() }, hubapi.StateRetired},
	}
	for i, st := range steps {
		st.do()
		if s := stateOf(t, tr, "g1"); s != st.want {
			t.Fatalf("step %d: state %s, want %s", i, s, st.want)
		}
	}
	if err := tr.Beat("g1"); !errors.Is(err, registry.ErrRetired) {
		t.Fatalf("beat of retired: %v, want ErrRetired", err)
	}
	if err := tr.Beat("nobody"); !errors.Is(err, hubapi.ErrUnknownPersona) {
		t.Fatalf("beat of unknown: %v, want ErrUnknownPersona", err)
	}
}

func TestPresenceDefaultStaleIsThreeBeats(t *testing.T) {
	if DefaultIntervals.Stale != 3*DefaultIntervals.Heartbeat || DefaultIntervals.Heartbeat != 10*time.Second {
		t.Fatalf("default stale %v, heartbeat %v; want 3 × 10 s", DefaultIntervals.Stale, DefaultIntervals.Heartbeat)
	}
	clk := newFakeClock()
	tr := NewTracker(clk, DefaultIntervals)
	tr.Track(hubapi.Presence{ID: "g"})
	mustNil(t, tr.Beat("g"))
	clk.Advance(30 * time.Second)
	tr.Sweep()
	if s := stateOf(t, tr, "g"); s != hubapi.StateActive {
		t.Fatalf("at exactly 30 s: %s, want active", s)
	}
	clk.Advance(time.Second)
	tr.Sweep()
	if s := stateOf(t, tr, "g"); s != hubapi.StateStale {
		t.Fatalf("at 31 s: %s, want stale", s)
	}
}

func TestPresenceCoalescesChanges(t *testing.T) {
	tr := NewTracker(newFakeClock(), testIntervals)
	tr.Track(hubapi.Presence{ID: "a"})
	tr.Track(hubapi.Presence{ID: "b"})
	tr.TakeChanged()
	tr.TakeDirty()
	for i := 0; i < 1000; i++ {
		mustNil(t, tr.Beat("a"))
	}
	ch := tr.TakeChanged()
	if len(ch) != 1 || ch[0].ID != "a" || ch[0].Beats != 1000 {
		t.Fatalf("1000 beats of one persona coalesce to one change with beats=1000, got %+v", ch)
	}
	if d := tr.TakeDirty(); len(d) != 1 {
		t.Fatalf("dirty set for the store: %d entries, want 1", len(d))
	}
	if ch := tr.TakeChanged(); len(ch) != 0 {
		t.Fatalf("taken twice: %+v", ch)
	}
}

func TestPresenceRejectsLongText(t *testing.T) {
	tr := NewTracker(newFakeClock(), testIntervals)
	tr.Track(hubapi.Presence{ID: "a"})
	long := make([]byte, hubapi.LimitOf("summary").Max+1)
	if err := tr.SetActivity("a", string(long)); !errors.Is(err, hubapi.ErrTooLong) {
		t.Fatalf("got %v, want ErrTextTooLong", err)
	}
}

// A runtime cannot put escape sequences on an operator's terminal through
// its activity or summary: control characters are refused, and what was
// there before stays.
func TestPresenceRejectsControlCharacters(t *testing.T) {
	tr := NewTracker(newFakeClock(), testIntervals)
	tr.Track(hubapi.Presence{ID: "a"})
	mustNil(t, tr.SetSummary("a", "reviewing #41 — ünïcode is fine"))
	for _, text := range []string{"\x1b[2J", "ok\x1b]52;c;AAAA\x07", "line\nbreak", "c1\u009b31m", "bad utf8 \xff",
		"bidi \u202eoverride", "zero\u200bwidth"} {
		want := hubapi.ErrControlText
		if strings.Contains(text, "\xff") {
			want = hubapi.ErrInvalidUTF8
		}
		if err := tr.SetActivity("a", text); !errors.Is(err, want) {
			t.Errorf("activity %q: got %v, want %v", text, err, want)
		}
		if err := tr.SetSummary("a", text); !errors.Is(err, want) {
			t.Errorf("summary %q: got %v, want %v", text, err, want)
		}
	}
	if p, _ := tr.Get("a"); p.Summary != "reviewing #41 — ünïcode is fine" || p.Activity != "" {
		t.Errorf("refused text changed the presence: %+v", p)
	}
}

func mustNil(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// The tracker, the token book and the stamp watch keep the id, address and
// name of every persona for the hub's life, as they are given: decoded from
// a persona record (about 600 bytes), each its own string. Were a name a
// piece of the record text, every record would be kept with it: 5.6 MB of
// the heap of a hub with 10,000 personas, when the decoder made them so.
func TestTrackerTokensAndStampWatchKeepNamesNotTheRecordsTheyCameFrom(t *testing.T) {
	const n = 10_000
	before := heapAfterGC()
	tr := NewTracker(newFakeClock(), DefaultIntervals)
	tokens := NewTokens(nil, t.TempDir(), "host", nil)
	stamps := newStampWatch()
	for i := 0; i < n; i++ {
		record, err := registry.EncodePersona(registry.Persona{ID: fmt.Sprintf("%016x", i), Address: fmt.Sprintf("s%d/core/lead", i),
			Name: fmt.Sprintf("Bench %d", i), Generation: 1, State: registry.StateActive, RetireReason: strings.Repeat("x", 520)})
		mustNil(t, err)
		p, err := registry.DecodePersona(record)
		mustNil(t, err)
		tr.Track(hubapi.Presence{ID: p.ID, Address: p.Address, Name: p.Name, Generation: 1})
		tokens.accept(p.ID, p.Address, tokenHash{byte(i), byte(i >> 8)})
		stamps.remember(p.ID, stampSeen{}, false)
	}
	perPersona := (int64(heapAfterGC()) - int64(before)) / n
	if perPersona > 1100 {
		t.Fatalf("the tracker, the token book and the stamp watch hold %d bytes a persona; the record text (600) is kept with its names", perPersona)
	}
	if tr.Len() != n || !tokens.holds(fmt.Sprintf("%016x", n-1)) || len(stamps.seen) != n {
		t.Fatalf("tracking %d, want %d", tr.Len(), n)
	}
}

// A page of the tracker (After) is in address order, whatever order the
// entries came in, also after one is added or moves between reads.
func TestTrackerPagesStayInAddressOrder(t *testing.T) {
	tr := NewTracker(nil, Intervals{})
	for _, p := range []hubapi.Presence{{ID: "2", Address: "work/core/lead"}, {ID: "1", Address: "root/secretary"}} {
		tr.Track(p)
	}
	all := func(hubapi.Presence) bool { return true }
	addrs := func(ps []hubapi.Presence) (out []string) {
		for _, p := range ps {
			out = append(out, p.Address)
		}
		return out
	}
	page, more := tr.After("", 1, all)
	if got := addrs(page); !more || len(got) != 1 || got[0] != "root/secretary" {
		t.Fatalf("first page %v (more %v)", got, more)
	}
	tr.Track(hubapi.Presence{ID: "3", Address: "home/secretary"})
	tr.Track(hubapi.Presence{ID: "2", Address: "a/b"}) // moved
	page, more = tr.After("", 10, all)
	if got := strings.Join(addrs(page), " "); more || got != "a/b home/secretary root/secretary" {
		t.Fatalf("after an add and a move: %q (more %v)", got, more)
	}
	page, _ = tr.After("home/secretary", 10, func(p hubapi.Presence) bool { return p.ID != "1" })
	if len(page) != 0 {
		t.Fatalf("after home/secretary, without root/secretary: %v", addrs(page))
	}
}

// A name changed in place cannot move an entry (the order is by address,
// then generation): the next page shows the new name without the tracker
// sorting its entries again. A changed address or generation can move one,
// and the next read sorts.
func TestTrackerRenameDoesNotSortAgain(t *testing.T) {
	tr := NewTracker(nil, Intervals{})
	tr.Track(hubapi.Presence{ID: "1", Address: "root/secretary", Name: "Spica", Generation: 1})
	tr.Track(hubapi.Presence{ID: "2", Address: "work/core/lead", Name: "Vega", Generation: 1})
	all := func(hubapi.Presence) bool { return true }
	tr.After("", 10, all)
	tr.Track(hubapi.Presence{ID: "2", Address: "work/core/lead", Name: "Vindemiatrix", Generation: 1})
	if !tr.ordered {
		t.Fatal("a name changed: the tracker marked its order stale and sorts again at the next read")
	}
	if page, _ := tr.After("root/secretary", 10, all); len(page) != 1 || page[0].Name != "Vindemiatrix" {
		t.Fatalf("the page after the rename: %+v", page)
	}
	tr.Track(hubapi.Presence{ID: "2", Address: "work/core/lead", Name: "Vindemiatrix", Generation: 2})
	if tr.ordered {
		t.Fatal("a generation changed: the order was kept, and a page could skip the entry")
	}
}

// BenchmarkTrackerRenameThenPage: 10,000 tracked generations; one's name
// changes, then a page of 100 is read (list_peers' read): the cost of the
// page after a change that cannot move an entry.
func BenchmarkTrackerRenameThenPage(b *testing.B) {
	tr := NewTracker(nil, Intervals{})
	for i := range 10_000 {
		tr.Track(hubapi.Presence{ID: fmt.Sprint(i), Address: fmt.Sprintf("s%d/core/lead", i), Name: "Bench", Generation: 1})
	}
	all := func(hubapi.Presence) bool { return true }
	tr.After("", 100, all)
	names := [2]string{"Bench", "Renamed"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		tr.Track(hubapi.Presence{ID: "5000", Address: "s5000/core/lead", Name: names[i%2], Generation: 1})
		tr.After("s4999/core/lead", 100, all)
		i++
	}
}

// A hub checks every stamp file right after it starts serving; until that
// pass is done, a reader must not be told that a generation whose file is
// gone stands: Hold holds every reader back, writers not.
func TestAHeldTrackerAnswersReadersOnlyOnceReleased(t *testing.T) {
	tr := NewTracker(newFakeClock(), testIntervals)
	tr.Track(hubapi.Presence{ID: "g1", Address: "work/core/lead", Generation: 1})
	release := tr.Hold()
	got := make(chan hubapi.State, 3)
	for _, read := range []func() hubapi.State{
		func() hubapi.State { p, _ := tr.Get("g1"); return p.State },
		func() hubapi.State { return tr.List()[0].State },
		func() hubapi.State {
			ps, _ := tr.After("", 1, func(hubapi.Presence) bool { return true })
			return ps[0].State
		},
	} {
		go func() { got <- read() }()
	}
	time.Sleep(20 * time.Millisecond) // the readers are waiting, not done
	if len(got) != 0 {
		t.Fatalf("a reader answered while the tracker was held: %s", <-got)
	}
	tr.Invalidate("g1", "not standing: capability stamp file missing")
	release()
	for range 3 {
		if s := <-got; s != hubapi.StateOffline {
			t.Fatalf("a reader held back saw %s, want offline: what the pass decided", s)
		}
	}
	if s := stateOf(t, tr, "g1"); s != hubapi.StateOffline {
		t.Fatalf("after release: %s, want offline", s)
	}
}
