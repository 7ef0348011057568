package hub

import (
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/events"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// Clock tells the time; tests inject a fake one to drive transitions.
type Clock interface{ Now() time.Time }

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Intervals are the presence thresholds.
type Intervals struct {
	// Heartbeat is how often a runtime is expected to beat.
	Heartbeat time.Duration
	// Idle: no activity change for this long makes a beating runtime idle.
	Idle time.Duration
	// Stale: no heartbeat for this long makes a runtime stale.
	Stale time.Duration
	// Offline: no heartbeat for this long makes a runtime offline.
	Offline time.Duration
}

// ErrBadIntervals: presence thresholds out of order.
var ErrBadIntervals = errors.New("presence intervals must satisfy 0 < heartbeat <= stale < offline and 0 < idle")

// Validate checks the thresholds are positive and in order.
func (iv Intervals) Validate() error {
	if iv.Heartbeat <= 0 || iv.Stale < iv.Heartbeat || iv.Offline <= iv.Stale || iv.Idle <= 0 {
		return fmt.Errorf("heartbeat %v, stale %v, offline %v, idle %v: %w", iv.Heartbeat, iv.Stale, iv.Offline, iv.Idle, ErrBadIntervals)
	}
	return nil
}

// DefaultIntervals: heartbeats every 10 s, stale after 3 missed beats,
// offline after 2 minutes, idle after 5 minutes without a new activity.
var DefaultIntervals = Intervals{
	Heartbeat: 10 * time.Second,
	Idle:      5 * time.Minute,
	Stale:     3 * 10 * time.Second,
	Offline:   2 * time.Minute,
}

// Tracker holds the presence of every tracked generation in memory. It is
// passive: the hub calls Sweep to apply time-driven transitions and drains
// changed entries for the stream (TakeChanged) and for the store
// (TakeDirty), so one disk write covers many heartbeats.
type Tracker struct {
	clock Clock
	iv    Intervals

	// mu is read-locked by Get, List and Len: every persona request reads
	// its entry (Hub.authorize), and those reads need not wait on each other.
	mu      sync.RWMutex
	entries map[string]*hubapi.Presence
	// byAddress is every entry, ordered by address then generation once
	// ordered is set: sorted again only after an entry was added or its
	// address changed, not for every page read.
	byAddress []*hubapi.Presence
	ordered   bool
	changed   map[string]struct{} // for the stream
	dirty     map[string]struct{} // for the store
	notify    chan struct{}       // signalled (non-blocking) when changed grows

	// shared: several hubs report presence into one store, each the
	// runtimes connected to it (Share). local are the generations whose
	// runtime reported here last; remote those another hub reports, by
	// that hub's id. A shared tracker writes and sweeps only local
	// entries: a remote one is its reporter's to age and to write.
	shared bool
	local  map[string]bool
	remote map[string]string

	// streams counts each generation's open beat streams; left holds the
	// generations whose last stream the runtime ended itself (Connect):
	// offline at once, not after the offline interval, until a beat.
	streams map[string]int
	left    map[string]struct{}

	// held, while set, holds back every reader of an entry's state (Get,
	// List, After) until it is closed (Hold): a hub checks the stamp file
	// of every active generation right after it starts serving, and until
	// then no reader may be told that a generation whose file is gone
	// stands.
	held atomic.Pointer[chan struct{}]
}

// NewTracker returns an empty tracker.
func NewTracker(clock Clock, iv Intervals) *Tracker {
	if clock == nil {
		clock = SystemClock{}
	}
	return &Tracker{
		clock:   clock,
		iv:      iv,
		entries: make(map[string]*hubapi.Presence),
		changed: make(map[string]struct{}),
		dirty:   make(map[string]struct{}),
		notify:  make(chan struct{}, 1),
		local:   make(map[string]bool),
		remote:  make(map[string]string),
		streams: make(map[string]int),
		left:    make(map[string]struct{}),
	}
}

// Connect records a beat stream of generation id opening; end it when the
// stream ends, clean when the runtime ended it itself (the end of its
// body: a client that left, a session closed). When the last open stream
// ends cleanly the runtime has left: the generation is offline at once,
// where silence would take the offline interval; its next beat brings it
// back. A stream cut off (a broken connection, a refusal, the hub's
// shutdown) ages by the intervals as before.
func (t *Tracker) Connect(id string) (end func(clean bool)) {
	t.mu.Lock()
	t.streams[id]++
	t.mu.Unlock()
	return func(clean bool) {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.streams[id]--; t.streams[id] > 0 {
			return
		}
		delete(t.streams, id)
		e, ok := t.entries[id]
		if !clean || !ok {
			return
		}
		t.left[id] = struct{}{}
		if s := t.stateAt(e, t.clock.Now()); s != e.State {
			e.State = s
			t.markLocked(id)
		}
	}
}

// Share makes the tracker one of several hubs' on one store: from now on
// TakeDirty returns, and Sweep ages, only the entries reported here.
func (t *Tracker) Share() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.shared = true
}

// Notify is signalled after a change is recorded; a publisher waits on it.
func (t *Tracker) Notify() <-chan struct{} { return t.notify }

// Track adds a generation (or refreshes its identity fields), keeping what
// is known of its runtime. p.State retired makes it retired; any other
// state of a new entry is taken as given (restored) or standing if empty.
// Its id, address and name are kept as given, for the hub's life: they
// come decoded, each its own string, never a piece of the record they were
// read from (registry.DecodePersona), so no copy is made.
func (t *Tracker) Track(p hubapi.Presence) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.entries[p.ID]
	if !ok {
		cp := p
		if cp.State == "" {
			cp.State = hubapi.StateStanding
		}
		t.entries[cp.ID] = &cp
		t.byAddress, t.ordered = append(t.byAddress, &cp), false
		t.markLocked(cp.ID)
		return
	}
	if e.Address == p.Address && e.Name == p.Name && e.Generation == p.Generation {
		return
	}
	if e.Address != p.Address || e.Generation != p.Generation {
		// It may move; a name alone cannot (the order is by address,
		// then generation), so a rename keeps the entries in order.
		e.Address, e.Generation = p.Address, p.Generation
		t.ordered = false
	}
	if e.Name != p.Name {
		e.Name = p.Name
	}
	t.markLocked(e.ID)
}

// Beat records a heartbeat: the runtime is connected.
func (t *Tracker) Beat(id string) error {
	return t.report(id, func(e *hubapi.Presence, now time.Time) {})
}

// checkText applies the API's limits table to a presence text (its length,
// valid UTF-8, no control, bidi or invisible character): the tracker is
// also fed by beat streams, whose lines do not pass the request decoder.
func checkText(what, id, text string) error {
	if err := hubapi.CheckText(what, what, text); err != nil {
		return fmt.Errorf("%s of %s: %w", what, id, err)
	}
	return nil
}

// SetActivity records what the runtime is doing now; it counts as a beat.
func (t *Tracker) SetActivity(id, text string) error { return t.Report(id, &text, nil) }

// SetSummary records the runtime's one-line summary; it counts as a beat.
func (t *Tracker) SetSummary(id, text string) error { return t.Report(id, nil, &text) }

// Report records one beat with, when given, a new activity and summary (a
// report, see Apply).
func (t *Tracker) Report(id string, activity, summary *string) error {
	return t.Apply(id, hubapi.PresenceReport{Activity: activity, Summary: summary})
}

// Apply records one beat with, when given, a new activity, summary and
// session state. It is all or nothing: every field is checked before any is
// applied, so a refused summary leaves the activity as it was, and a report
// carrying several counts one beat, not several.
func (t *Tracker) Apply(id string, rep hubapi.PresenceReport) error {
	activity, summary, session := rep.Activity, rep.Summary, rep.Session
	if activity != nil {
		if err := checkText("activity", id, *activity); err != nil {
			return err
		}
	}
	if summary != nil {
		if err := checkText("summary", id, *summary); err != nil {
			return err
		}
	}
	if session != nil {
		if err := events.CheckSessionState(*session); err != nil {
			return fmt.Errorf("presence of %s: %w", id, err)
		}
	}
	return t.report(id, func(e *hubapi.Presence, now time.Time) {
		if activity != nil && e.Activity != *activity {
			e.Activity, e.ActivityAt = *activity, now
		}
		if summary != nil && e.Summary != *summary {
			e.Summary, e.ActivityAt = *summary, now
		}
		if session != nil && e.Session != *session {
			e.Session, e.ActivityAt = *session, now
		}
	})
}

func (t *Tracker) report(id string, apply func(*hubapi.Presence, time.Time)) error {
	now := t.clock.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.entries[id]
	if !ok {
		return fmt.Errorf("presence of %s: %w", id, hubapi.ErrUnknownPersona)
	}
	if e.State == hubapi.StateRetired {
		return fmt.Errorf("presence of %s: %w", id, registry.ErrRetired)
	}
	switch e.State {
	case hubapi.StateStanding, hubapi.StateStale, hubapi.StateOffline:
		// A runtime that (re)connects is doing something new.
		e.ActivityAt = now
	}
	e.LastSeen = now
	e.Beats++
	delete(t.left, id)
	t.local[id] = true
	delete(t.remote, id)
	apply(e, now)
	e.State = t.stateAt(e, now)
	t.markLocked(id)
	return nil
}

// Retire makes a generation retired; it never leaves that state.
func (t *Tracker) Retire(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.entries[id]
	if !ok || e.State == hubapi.StateRetired {
		return
	}
	e.State = hubapi.StateRetired
	t.markLocked(id)
}

// Invalidate marks a generation that cannot run (its stamp was refused, or
// its stamp file is missing, unreadable or changed): offline, with the
// problem, until Reinstate (the file back intact) or, for a refused stored
// stamp, for good.
func (t *Tracker) Invalidate(id, problem string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.entries[id]
	if !ok || e.State == hubapi.StateRetired || e.Problem == problem {
		return
	}
	e.Problem, e.State = problem, hubapi.StateOffline
	t.markLocked(id)
}

// Reinstate lifts the problem of a generation whose stamp file is back
// intact: it stands again, in the state its runtime's last beat gives
// (standing when none beat since the hub started).
func (t *Tracker) Reinstate(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.entries[id]
	if !ok || e.State == hubapi.StateRetired || e.Problem == "" {
		return
	}
	e.Problem, e.State = "", hubapi.StateStanding
	e.State = t.stateAt(e, t.clock.Now())
	t.markLocked(id)
}

// SetWaiting sets the number of pending confirmations a generation waits on.
func (t *Tracker) SetWaiting(id string, n int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e, ok := t.entries[id]; ok && e.Waiting != n {
		e.Waiting = n
		t.markLocked(id)
	}
}

// Sweep applies the time-driven transitions (idle, stale, offline) as of
// the clock's now, and returns how many entries changed state.
func (t *Tracker) Sweep() int {
	now := t.clock.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for id, e := range t.entries {
		if t.shared && !t.local[id] {
			continue
		}
		if s := t.stateAt(e, now); s != e.State {
			e.State = s
			t.markLocked(id)
			n++
		}
	}
	return n
}

// stateAt is the state an entry has at now. Retired and standing are not
// time-driven.
func (t *Tracker) stateAt(e *hubapi.Presence, now time.Time) hubapi.State {
	if e.State == hubapi.StateRetired || e.Problem != "" || e.LastSeen.IsZero() {
		return e.State
	}
	if _, gone := t.left[e.ID]; gone {
		return hubapi.StateOffline
	}
	if e.Session == events.SessionEnded {
		// The harness said its session ended: no heartbeat is awaited.
		return hubapi.StateOffline
	}
	silent := now.Sub(e.LastSeen)
	switch {
	case silent > t.iv.Offline:
		return hubapi.StateOffline
	case silent > t.iv.Stale:
		return hubapi.StateStale
	case now.Sub(e.ActivityAt) > t.iv.Idle:
		return hubapi.StateIdle
	default:
		return hubapi.StateActive
	}
}

func (t *Tracker) markLocked(id string) {
	t.dirty[id] = struct{}{}
	t.markChangedLocked(id)
}

// markChangedLocked records a change for the stream only: what another
// hub reported is its to write.
func (t *Tracker) markChangedLocked(id string) {
	t.changed[id] = struct{}{}
	select {
	case t.notify <- struct{}{}:
	default:
	}
}

// Hold holds back every reader of the entries' states (Get, List, After)
// until release is called: what they would read is not decided yet.
// Writers are not held, so the pass that decides it may run meanwhile.
func (t *Tracker) Hold() (release func()) {
	ch := make(chan struct{})
	t.held.Store(&ch)
	return func() {
		t.held.CompareAndSwap(&ch, nil)
		close(ch)
	}
}

// wait returns once no Hold is in force.
func (t *Tracker) wait() {
	if ch := t.held.Load(); ch != nil {
		<-*ch
	}
}

// Get returns one entry.
func (t *Tracker) Get(id string) (hubapi.Presence, bool) {
	t.wait()
	t.mu.RLock()
	defer t.mu.RUnlock()
	e, ok := t.entries[id]
	if !ok {
		return hubapi.Presence{}, false
	}
	return *e, true
}

// List returns every entry, ordered by address then generation.
func (t *Tracker) List() []hubapi.Presence {
	var out []hubapi.Presence
	t.readSorted(func(sorted []*hubapi.Presence) {
		out = make([]hubapi.Presence, len(sorted))
		for i, e := range sorted {
			out[i] = *e
		}
	})
	return out
}

// After is one page of List: at most limit entries whose address sorts
// after after and that keep accepts, in List's order, and whether more
// follow. It copies only the page. An address is enough to page by for a
// keep that leaves out retired generations (list_peers): the tracker holds
// only active and retired ones, and a seat has one active generation at a
// time (registering a held seat is refused), so no page boundary can fall
// between two kept generations of one address.
func (t *Tracker) After(after string, limit int, keep func(hubapi.Presence) bool) ([]hubapi.Presence, bool) {
	var page []hubapi.Presence
	more := false
	t.readSorted(func(sorted []*hubapi.Presence) {
		i := sort.Search(len(sorted), func(i int) bool { return sorted[i].Address > after })
		for ; i < len(sorted); i++ {
			if !keep(*sorted[i]) {
				continue
			}
			if len(page) == limit {
				more = true
				return
			}
			page = append(page, *sorted[i])
		}
	})
	return page, more
}

// readSorted runs read over the entries in address order, under the
// shared lock while they are in order; when an entry was added or moved
// since they last were, it sorts them and reads under the exclusive lock.
func (t *Tracker) readSorted(read func([]*hubapi.Presence)) {
	t.wait()
	t.mu.RLock()
	if t.ordered {
		defer t.mu.RUnlock()
		read(t.byAddress)
		return
	}
	t.mu.RUnlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	read(t.sortedLocked())
}

// sortedLocked is byAddress, sorted if an entry was added or moved since
// it last was; t.mu is held exclusively.
func (t *Tracker) sortedLocked() []*hubapi.Presence {
	if !t.ordered {
		sort.Slice(t.byAddress, func(i, j int) bool {
			a, b := t.byAddress[i], t.byAddress[j]
			if a.Address != b.Address {
				return a.Address < b.Address
			}
			return a.Generation < b.Generation
		})
		t.ordered = true
	}
	return t.byAddress
}

// Len is the number of tracked generations.
func (t *Tracker) Len() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.entries)
}

// TakeChanged returns the entries changed since the last call, each once
// however often it changed: the coalescing of the stream.
func (t *Tracker) TakeChanged() []hubapi.Presence {
	return t.take(&t.changed, func(string) bool { return true })
}

// TakeDirty returns the entries changed since the last call, for one
// batched store write; a shared tracker's, only those reported here.
func (t *Tracker) TakeDirty() []hubapi.Presence {
	return t.take(&t.dirty, func(id string) bool { return !t.shared || t.local[id] })
}

// Baseline forgets every change not yet taken: what the tracker holds now
// is the starting point that readers get from a snapshot and that the
// store already has.
func (t *Tracker) Baseline() {
	t.mu.Lock()
	defer t.mu.Unlock()
	clear(t.changed)
	clear(t.dirty)
}

// Redirty puts entries back after a failed store write, so the next flush
// retries them.
func (t *Tracker) Redirty(ps []hubapi.Presence) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range ps {
		t.dirty[p.ID] = struct{}{}
	}
}

func (t *Tracker) take(set *map[string]struct{}, want func(id string) bool) []hubapi.Presence {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(*set) == 0 {
		return nil
	}
	out := make([]hubapi.Presence, 0, len(*set))
	for id := range *set {
		if e, ok := t.entries[id]; ok && want(id) {
			out = append(out, *e)
		}
	}
	*set = make(map[string]struct{}, len(out))
	return out
}

// ApplyRemote takes the presence another hub (named by hub) reported for
// a generation: the newer report wins — one whose last-seen is not after
// this tracker's own report of a runtime beating here, or after another
// hub's, is ignored; the reporting hub's later reports always apply. What
// this hub derives itself (the waiting count, a stamp problem, retirement)
// stays. The change is published, never written back (it is hub's to
// write), and the entry is not aged here. It reports whether it applied.
func (t *Tracker) ApplyRemote(hub string, p hubapi.Presence) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.entries[p.ID]
	if !ok {
		cp := p
		cp.Waiting, cp.Problem = 0, ""
		t.entries[p.ID] = &cp
		t.byAddress, t.ordered = append(t.byAddress, &cp), false
		t.remote[p.ID] = hub
		t.markChangedLocked(p.ID)
		return true
	}
	from, isRemote := t.remote[p.ID]
	if (t.local[p.ID] || isRemote && from != hub) && !p.LastSeen.After(e.LastSeen) {
		return false
	}
	delete(t.local, p.ID)
	t.remote[p.ID] = hub
	e.LastSeen, e.Beats = p.LastSeen, p.Beats
	e.Activity, e.Summary, e.ActivityAt = p.Activity, p.Summary, p.ActivityAt
	if e.State != hubapi.StateRetired && e.Problem == "" {
		e.State = p.State
	}
	t.markChangedLocked(p.ID)
	return true
}

// DropRemote is the end of a generation's stored presence (its reporting
// hub's lease ended: the hub died or stopped). A generation another hub
// reported goes offline here; one reported here is written again.
func (t *Tracker) DropRemote(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.local[id] {
		t.dirty[id] = struct{}{}
		return
	}
	if _, ok := t.remote[id]; !ok {
		return
	}
	delete(t.remote, id)
	e := t.entries[id]
	if e == nil || e.State == hubapi.StateRetired || e.State == hubapi.StateOffline {
		return
	}
	e.State = hubapi.StateOffline
	t.markChangedLocked(id)
}

// DirtyLocal marks every entry reported here for writing: its stored
// records went with a lost lease.
func (t *Tracker) DirtyLocal() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for id := range t.local {
		t.dirty[id] = struct{}{}
	}
}
