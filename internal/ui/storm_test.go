package ui

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// The issue (9, what must be shown): "A property test that drives the root
// model with random interleavings of arrivals, reconnect snapshots,
// decisions elsewhere and typed text (including `/`, `:`, `d` followed by
// text full of `a` and `A`) and asserts that no decision is ever sent
// except for a key `a`/`A`(+`y`)/`d`(+reason+enter) pressed on a row armed
// for the full arming time." And a later one: "typed sentences (random text
// with `a`, `A`, `d`, `y`, `enter`) into the list view of the queue and the
// inbox, at human typing speeds (50–250 ms between keys), interleaved with
// arrivals: no decision but the deliberate ones (single keys after a
// pause)."
//
// The oracle keeps its own account of what was selected on screen and since
// when, from what the screen shows after every message (the queue view and
// its selected row), and of when each key came. No key sends a decision
// itself; a decision leaves on a later message (the frame tick), and the
// oracle judges it by the last key before it, which must be a decision key
// that stood alone — no key for the arming time before it, none for the
// settle time after it — and:
//   - an approval: `a` pressed in the list on the row selected for the
//     whole arming time, still on screen;
//   - approve and remember: `y` pressed in the dialog an `A` opened (itself
//     alone, on such a row), deciding that row;
//   - a denial: `enter` in the reason field opened by a `d` that stood
//     alone (no key for the arming time before it, none for the settle
//     time after it) in the list on such a row, deciding that row.
//
// Nothing else may send a decision: no other message, no other key.
func TestStormSendsOnlyArmedDecisions(t *testing.T) {
	rounds, steps := 30, 300 // each second of the storm's clock is five frame ticks
	if testing.Short() {
		rounds = 10
	}
	deliberate := 0
	for round := range rounds {
		s := newStorm(t, uint64(round), Options{})
		for range steps {
			if err := s.step(); err != nil {
				t.Fatalf("round %d (seed %d): %v\nlast events:\n%s", round, round, err, strings.Join(s.trail(), "\n"))
			}
		}
		deliberate += s.sent
	}
	// The storm must exercise the rule, not only refuse: deliberate
	// decisions happen too.
	if deliberate < 2*rounds {
		t.Fatalf("only %d deliberate decisions in %d rounds: the storm hardly decides, so it proves little", deliberate, rounds)
	}
	t.Logf("%d rounds × %d steps, %d deliberate decisions sent, no other", rounds, steps, deliberate)
}

// The property can fail: with the console's arming time set far below the
// oracle's (the rule as good as switched off), the same storm finds a
// decision on a row that was not armed.
func TestStormCatchesABrokenRule(t *testing.T) {
	for round := range 50 {
		s := newStorm(t, uint64(round), Options{Arming: time.Nanosecond})
		for range 400 {
			if err := s.step(); err != nil {
				return // caught, as it must be
			}
		}
	}
	t.Fatal("a console deciding on rows selected for 1 ns passed the storm: the property cannot fail")
}

// With the standing-alone rule off (no settle time: a decision key counts
// however soon the next key follows), the same storm finds a sentence
// typed into the list that decided something.
func TestStormCatchesTypedDecisionsWithoutTheRule(t *testing.T) {
	for round := range 50 {
		s := newStorm(t, uint64(round), Options{Settle: time.Nanosecond})
		for range 400 {
			if err := s.step(); err != nil {
				if !strings.Contains(err.Error(), "did not stand alone") {
					t.Fatalf("round %d: the storm failed for another reason than typing: %v", round, err)
				}
				return // caught, as it must be
			}
		}
	}
	t.Fatal("a console without a settle time passed the sentence storm: the property cannot fail")
}

// keyAt is the oracle's record of one key: what it was, when, how long
// after the key before it, and what the screen showed when it came.
type keyAt struct {
	k           string
	at          time.Time
	quiet       time.Duration
	inList      bool
	inReason    bool
	inDialog    bool
	vis         string
	armed       bool
	rememberFor string
	denyFor     string
	denyAlone   bool
	reason      string
}

// storm is one random run against one console.
type storm struct {
	t   *testing.T
	rng *rand.Rand
	m   *Model
	h   *hubDouble
	now time.Time
	// arming and settle are the times the oracle holds the console to
	// (the defaults, whatever the console was given).
	arming, settle time.Duration
	// vis and since are the oracle's own account of the row on screen,
	// visView the view showing it.
	vis     string
	visView viewID
	since   time.Time
	// last is the last key; rememberFor the row an alone and armed `A`
	// opened the dialog for.
	last        keyAt
	rememberFor string
	// denyFor is the row an alone and armed `d` opened the reason field
	// for, denyAt when; denyAlone says no key came within the settle time
	// after it.
	denyFor   string
	denyAt    time.Time
	denyAlone bool
	next      int    // id counter for arrivals
	seq       uint64 // hub sequence
	sent      int    // deliberate decisions sent
	events    []string
}

func newStorm(t *testing.T, seed uint64, o Options) *storm {
	h := &hubDouble{snap: demoSnapshot()}
	m := console(t, h, 100, 30, o)
	m.inboxClient = &inboxDouble{hubDouble: h, state: demoInbox()}
	m.Update(inboxLoadedMsg{state: demoInbox()})
	s := &storm{t: t, rng: rand.New(rand.NewPCG(seed, 9)), m: m, h: h, now: t0, arming: DefaultArming, settle: DefaultSettle, seq: 10}
	s.m.now = func() time.Time { return s.now }
	if err := s.key("2"); err != nil {
		t.Fatal(err)
	}
	return s
}

// trail is the last events, for a failure message.
func (s *storm) trail() []string { return s.events[max(0, len(s.events)-25):] }

// wait lets d pass as the console sees it: a frame tick comes in every
// 200 ms of it.
func (s *storm) wait(d time.Duration) error {
	for d > 0 {
		step := min(d, 200*time.Millisecond)
		s.now = s.now.Add(step)
		d -= step
		if err := s.deliver(batchMsg{}, "tick"); err != nil {
			return err
		}
	}
	return nil
}

// step is one random event: time passing, an arrival, a decision
// elsewhere, a reconnect snapshot, a burst of typing into a field, a
// sentence typed into the list, or a deliberate decision.
func (s *storm) step() error {
	if err := s.wait(time.Duration(s.rng.IntN(450)) * time.Millisecond); err != nil {
		return err
	}
	switch r := s.rng.IntN(100); {
	case r < 12:
		return s.deliver(batchMsg{changes: []Change{s.arrival()}}, "arrival")
	case r < 18:
		if id := s.someID(); id != "" {
			s.seq++
			by := []string{"human:ada", "human:henry", "work/core/lead"}[s.rng.IntN(3)]
			return s.deliver(batchMsg{changes: []Change{{Seq: s.seq, Kind: ConfirmationDecided, ID: id, DecidedBy: by, Outcome: "approved"}}}, "decided elsewhere "+id)
		}
	case r < 21:
		return s.deliver(snapshotMsg{snap: s.reconnect()}, "reconnect snapshot")
	case r < 25:
		return s.wait(s.arming) // the operator reads
	case r < 40:
		return s.typeField()
	case r < 60:
		return s.sentence()
	case r < 72:
		return s.deliberate()
	default:
		keys := []string{"a", "A", "d", "y", "n", "j", "k", "s", "S", "g", "G", "1", "2", "5", "tab", "enter", "esc", "space", "?", "x"}
		return s.key(keys[s.rng.IntN(len(keys))])
	}
	return nil
}

// typeField opens a field with `/`, `:` or `d`, types text full of `a`
// and `A` into it (time passing between keys, the hub changing things
// meanwhile) and ends it with enter or esc.
func (s *storm) typeField() error {
	opener := []string{"/", ":", "d"}[s.rng.IntN(3)]
	if err := s.key(opener); err != nil {
		return err
	}
	const alphabet = "aAaAaAdy yAnoteAa"
	for range 1 + s.rng.IntN(12) {
		if err := s.wait(time.Duration(s.rng.IntN(450)) * time.Millisecond); err != nil {
			return err
		}
		if s.rng.IntN(8) == 0 {
			if err := s.deliver(batchMsg{changes: []Change{s.arrival()}}, "arrival while typing"); err != nil {
				return err
			}
		}
		if err := s.key(string(alphabet[s.rng.IntN(len(alphabet))])); err != nil {
			return err
		}
	}
	if s.rng.IntN(2) == 0 {
		return s.key("enter")
	}
	return s.key("esc")
}

// sentence types a sentence meant for another window into the list, queue
// or inbox, at typing speed (50–250 ms between keys), arrivals coming
// meanwhile: "are you there", "looks good, approve it⏎" and random text
// full of the decision keys.
func (s *storm) sentence() error {
	if s.rng.IntN(4) == 0 { // the inbox's list, sometimes
		if err := s.key([]string{"5", "2"}[s.rng.IntN(2)]); err != nil {
			return err
		}
	}
	texts := []string{"are you there", "looks good, approve it\n", "ok deny that\n", "yes Approve\n"}
	text := texts[s.rng.IntN(len(texts))]
	if s.rng.IntN(2) == 0 {
		const alphabet = "aAdy \nlookseAyad"
		b := make([]byte, 3+s.rng.IntN(25))
		for i := range b {
			b[i] = alphabet[s.rng.IntN(len(alphabet))]
		}
		text = string(b)
	}
	for i, r := range text {
		if i > 0 {
			if err := s.wait(time.Duration(50+s.rng.IntN(201)) * time.Millisecond); err != nil {
				return err
			}
		}
		if s.rng.IntN(10) == 0 {
			if err := s.deliver(batchMsg{changes: []Change{s.arrival()}}, "arrival while typing"); err != nil {
				return err
			}
		}
		k := string(r)
		switch r {
		case '\n':
			k = "enter"
		case ' ':
			k = "space"
		}
		if err := s.key(k); err != nil {
			return err
		}
	}
	return nil
}

// deliberate is an operator deciding: a pause, one decision key, a pause
// (and for `A` the confirm key, for `d` a reason and enter, each after its
// pause).
func (s *storm) deliberate() error {
	if err := s.key([]string{"2", "2", "5"}[s.rng.IntN(3)]); err != nil { // the queue, or the inbox
		return err
	}
	keys := [][]string{{"a"}, {"A", "y"}, {"d", "reason", "enter"}}[s.rng.IntN(3)]
	for _, k := range keys {
		if err := s.wait(s.arming + time.Duration(s.rng.IntN(300))*time.Millisecond); err != nil {
			return err
		}
		if k == "reason" {
			for _, r := range "not now" {
				if err := s.key(strings.ReplaceAll(string(r), " ", "space")); err != nil {
					return err
				}
			}
			continue
		}
		if err := s.key(k); err != nil {
			return err
		}
	}
	return s.wait(s.settle + 200*time.Millisecond)
}

// arrival is a new confirmation, mostly for the operator, created at a
// random time so it may sort anywhere.
func (s *storm) arrival() Change {
	s.next++
	s.seq++
	auth := "human:henry"
	if s.rng.IntN(4) == 0 {
		auth = "work/core/lead"
	}
	c := pendingFor(fmt.Sprintf("s-%d", s.next), auth)
	c.Seq = s.seq
	c.Confirmation.Created = s.now.Add(-time.Duration(s.rng.IntN(3600)) * time.Second)
	c.Confirmation.Remember = RememberRule{Overlay: OverlayPersona, Key: "sha256:x", Action: "drop", Target: "table:t", Shape: "delete"}
	return c
}

// someID is a random confirmation the console holds, or "".
func (s *storm) someID() string {
	rows := s.m.queue.table.sorted
	if len(rows) == 0 {
		return ""
	}
	return rows[s.rng.IntN(len(rows))].id
}

// reconnect is a snapshot that dropped some confirmations and brought new
// ones.
func (s *storm) reconnect() Snapshot {
	snap := demoSnapshot()
	snap.Confirmations = nil
	for _, r := range s.m.queue.table.sorted {
		if !r.gone && s.rng.IntN(3) != 0 {
			snap.Confirmations = append(snap.Confirmations, *r.val)
		}
	}
	for range s.rng.IntN(3) {
		snap.Confirmations = append(snap.Confirmations, s.arrival().Confirmation)
	}
	s.seq++
	snap.Seq = s.seq
	return snap
}

// key presses one key: it must send nothing itself. The oracle records it.
func (s *storm) key(k string) error {
	rec := keyAt{
		k: k, at: s.now, quiet: s.now.Sub(s.last.at),
		inList: s.m.prompt == promptNone && s.m.dialog == nil, inReason: s.m.prompt == promptReason,
		inDialog: s.m.dialog != nil, vis: s.vis, armed: s.vis != "" && s.now.Sub(s.since) >= s.arming,
		rememberFor: s.rememberFor, denyFor: s.denyFor, denyAlone: s.denyAlone, reason: s.m.input.Value(),
	}
	if s.last.at.IsZero() {
		rec.quiet = s.arming
	}
	if s.denyFor != "" && s.now.Sub(s.denyAt) < s.settle {
		s.denyAlone = false // a key right after the d: it was typing
	}
	s.rememberFor = ""
	sent, err := s.send(keyMsg(k), "key "+k)
	if err != nil {
		return err
	}
	if len(sent) > 0 {
		return fmt.Errorf("key %q sent %s of %s at once: a decision waits out the settle time", k, verb(sent[0].d), sent[0].id)
	}
	alone := rec.inList && rec.armed && rec.quiet >= s.arming
	if alone && k == "A" && s.m.dialog != nil {
		s.rememberFor = rec.vis
	}
	if alone && k == "d" && s.m.prompt == promptReason {
		s.denyFor, s.denyAt, s.denyAlone = rec.vis, s.now, true
	}
	if s.m.prompt != promptReason {
		s.denyFor = ""
	}
	s.last = rec
	return nil
}

// deliver hands the console a message that is not a key. A decision it
// sends is judged by the last key, which must have stood alone.
func (s *storm) deliver(msg any, what string) error {
	sent, err := s.send(msg, what)
	if err != nil {
		return err
	}
	for _, d := range sent {
		l := s.last
		// The enter of a denial needs no quiet before it (the reason was
		// typed right before it); its d did.
		alone := (l.quiet >= s.arming || l.k == "enter") && s.now.Sub(l.at) >= s.settle
		ok := false
		switch {
		case d.d.Approve && !d.d.Remember:
			ok = l.k == "a" && l.inList && l.armed && d.id == l.vis
		case d.d.Approve && d.d.Remember:
			ok = l.k == "y" && l.inDialog && l.rememberFor != "" && d.id == l.rememberFor
		default:
			ok = l.k == "enter" && l.inReason && l.denyFor != "" && l.denyAlone && d.id == l.denyFor && d.d.Reason != ""
		}
		why := ""
		switch {
		case !alone:
			why = "a key that did not stand alone (typing)"
		case !ok:
			why = "a key that was no deliberate decision"
		default:
			s.sent++
			continue
		}
		return fmt.Errorf("%s sent %s of %s after %s: key %q, %v after the key before it, %s before this; list %v, armed %v on %q, A on %q, d on %q alone %v",
			what, verb(d.d), d.id, why, l.k, l.quiet, s.now.Sub(l.at), l.inList, l.armed, l.vis, l.rememberFor, l.denyFor, l.denyAlone)
	}
	return nil
}

// send runs one Update, collects the decisions it sent (the console records
// each in m.deciding before its command runs), answers them as the hub
// would, and updates the oracle's account of the row on screen.
func (s *storm) send(msg any, what string) ([]decideCall, error) {
	s.events = append(s.events, fmt.Sprintf("%s %s (on screen %q since %s)", s.now.Format("15:04:05.000"), what, s.vis, s.since.Format("15:04:05.000")))
	before := make([]string, 0, len(s.m.deciding))
	for id := range s.m.deciding {
		before = append(before, id)
	}
	s.m.Update(msg)
	var sent []decideCall
	for id, d := range s.m.deciding {
		if !slices.Contains(before, id) {
			sent = append(sent, decideCall{id, d})
		}
	}
	for _, d := range sent {
		c, _ := s.m.queue.table.Get(d.id)
		if c == nil {
			return nil, fmt.Errorf("%s sent a decision on %s, which is not in the queue", what, d.id)
		}
		s.m.Update(decidedMsg{c: *c, d: d.d}) // the hub's answer
	}
	s.observe()
	return sent, nil
}

// observe is the oracle's reading of the screen: the queue's selected row
// while the queue view is shown, the inbox's while the inbox is shown and
// its selected row is a confirmation (a row the queue holds too).
func (s *storm) observe() {
	vis := ""
	switch {
	case !s.m.loaded:
	case s.m.view == viewQueue:
		vis = s.m.queue.table.Selected()
	case s.m.view == viewInbox:
		if id := s.m.inbox.table.Selected(); id != "" {
			if _, ok := s.m.queue.table.Get(id); ok {
				vis = id
			}
		}
	}
	if vis != s.vis || (vis != "" && s.m.view != s.visView) {
		s.vis, s.visView, s.since = vis, s.m.view, s.now
	}
}
