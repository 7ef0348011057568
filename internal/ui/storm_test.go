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
// for the full arming time."
//
// The oracle keeps its own account of what was selected on screen and since
// when, from what the screen shows after every message (the queue view and
// its selected row), and judges every decision the console sends by the key
// that sent it:
//   - an approval: `a` pressed in the list on the row selected for the
//     whole arming time;
//   - approve and remember: `y` pressed right after an `A` that was pressed
//     in the list on such a row, deciding that row;
//   - a denial: `enter` in the reason field opened by a `d` pressed in the
//     list on such a row, deciding that row.
//
// Nothing else may send a decision: no message, no other key.
func TestStormSendsOnlyArmedDecisions(t *testing.T) {
	rounds, steps := 100, 300
	if testing.Short() {
		rounds = 25
	}
	deliberate := 0
	for round := range rounds {
		s := newStorm(t, uint64(round), DefaultArming)
		for range steps {
			if err := s.step(); err != nil {
				t.Fatalf("round %d (seed %d): %v\nlast events:\n%s", round, round, err, strings.Join(s.trail(), "\n"))
			}
		}
		deliberate += s.sent
	}
	// The storm must exercise the rule, not only refuse: armed decisions
	// happen too.
	if deliberate < rounds {
		t.Fatalf("only %d deliberate decisions in %d rounds: the storm hardly decides, so it proves little", deliberate, rounds)
	}
	t.Logf("%d rounds × %d steps, %d deliberate decisions sent, no other", rounds, steps, deliberate)
}

// The property can fail: with the console's arming time set far below the
// oracle's (the rule as good as switched off), the same storm finds a
// decision on a row that was not armed.
func TestStormCatchesABrokenRule(t *testing.T) {
	for round := range 50 {
		s := newStorm(t, uint64(round), time.Nanosecond)
		s.oracleArming = DefaultArming
		for range 400 {
			if err := s.step(); err != nil {
				return // caught, as it must be
			}
		}
	}
	t.Fatal("a console deciding on rows selected for 1 ns passed the storm: the property cannot fail")
}

// storm is one random run against one console.
type storm struct {
	t   *testing.T
	rng *rand.Rand
	m   *Model
	h   *hubDouble
	now time.Time
	// oracleArming is the arming time the oracle holds the console to.
	oracleArming time.Duration
	// vis and since are the oracle's own account of the row on screen.
	vis   string
	since time.Time
	// rememberFor is the row an armed `A` was pressed on by the last key.
	rememberFor string
	// denyFor is the row an armed `d` opened the reason field for.
	denyFor string
	next    int    // id counter for arrivals
	seq     uint64 // hub sequence
	sent    int    // deliberate decisions sent
	events  []string
}

func newStorm(t *testing.T, seed uint64, arming time.Duration) *storm {
	h := &hubDouble{snap: demoSnapshot()}
	m := console(t, h, 100, 30, Options{Arming: arming})
	s := &storm{t: t, rng: rand.New(rand.NewPCG(seed, 9)), m: m, h: h, now: t0, oracleArming: arming, seq: 10}
	s.m.now = func() time.Time { return s.now }
	s.deliver(keyMsg("2"), "key 2")
	return s
}

// trail is the last events, for a failure message.
func (s *storm) trail() []string { return s.events[max(0, len(s.events)-25):] }

// step is one random event: time passing, an arrival, a decision
// elsewhere, a reconnect snapshot, or a burst of typing.
func (s *storm) step() error {
	s.now = s.now.Add(time.Duration(s.rng.IntN(450)) * time.Millisecond)
	switch r := s.rng.IntN(100); {
	case r < 15:
		return s.deliver(batchMsg{changes: []Change{s.arrival()}}, "arrival")
	case r < 22:
		if id := s.someID(); id != "" {
			s.seq++
			by := []string{"human:ada", "human:henry", "work/core/lead"}[s.rng.IntN(3)]
			return s.deliver(batchMsg{changes: []Change{{Seq: s.seq, Kind: ConfirmationDecided, ID: id, DecidedBy: by, Outcome: "approved"}}}, "decided elsewhere "+id)
		}
	case r < 26:
		return s.deliver(snapshotMsg{snap: s.reconnect()}, "reconnect snapshot")
	case r < 30:
		s.now = s.now.Add(s.oracleArming) // the operator reads
		return s.deliver(batchMsg{}, "tick after a look")
	case r < 55:
		return s.typeField()
	default:
		keys := []string{"a", "A", "d", "y", "n", "j", "k", "s", "S", "g", "G", "1", "2", "tab", "enter", "esc", "space", "?", "x"}
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
		s.now = s.now.Add(time.Duration(s.rng.IntN(150)) * time.Millisecond)
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

// key presses one key and judges what it sent.
func (s *storm) key(k string) error {
	// What the screen showed when the key was pressed.
	inList := s.m.prompt == promptNone && s.m.dialog == nil
	inReason := s.m.prompt == promptReason
	inDialog := s.m.dialog != nil
	vis := s.vis
	armed := vis != "" && s.now.Sub(s.since) >= s.oracleArming
	rememberFor, denyFor := s.rememberFor, s.denyFor
	s.rememberFor = ""

	sent, err := s.send(keyMsg(k), "key "+k)
	if err != nil {
		return err
	}
	if inList && armed && k == "A" {
		s.rememberFor = vis
	}
	if inList && armed && k == "d" && s.m.prompt == promptReason {
		s.denyFor = vis
	}
	if s.m.prompt != promptReason {
		s.denyFor = ""
	}
	for _, d := range sent {
		ok := false
		switch {
		case d.d.Approve && !d.d.Remember:
			ok = k == "a" && inList && armed && d.id == vis
		case d.d.Approve && d.d.Remember:
			ok = k == "y" && inDialog && rememberFor != "" && d.id == rememberFor
		default:
			ok = k == "enter" && inReason && denyFor != "" && d.id == denyFor && d.d.Reason != ""
		}
		if !ok {
			return fmt.Errorf("key %q sent %s of %s (list %v, armed %v on %q, A armed on %q, d armed on %q)",
				k, verb(d.d), d.id, inList, armed, vis, rememberFor, denyFor)
		}
		s.sent++
	}
	return nil
}

// deliver hands the console a message that is not a key: it must send no
// decision.
func (s *storm) deliver(msg any, what string) error {
	sent, err := s.send(msg, what)
	if err == nil && len(sent) > 0 {
		err = fmt.Errorf("%s sent %s of %s without a key", what, verb(sent[0].d), sent[0].id)
	}
	return err
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
// while the queue view is shown.
func (s *storm) observe() {
	vis := ""
	if s.m.view == viewQueue && s.m.loaded {
		vis = s.m.queue.table.Selected()
	}
	if vis != s.vis {
		s.vis, s.since = vis, s.now
	}
}
