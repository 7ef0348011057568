// Package hub is the process that owns an installation's store and serves
// everyone else over a local socket: the HTTP+JSON API (docs/api.md), the
// change stream that keeps every console live, presence intake from persona
// runtimes, identity by token, and the one client every subcommand and the
// console use.
package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/events"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/quota"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// presencePrefix is the store prefix of persisted presence entries.
const presencePrefix = "presence/"

// defaultExpirySweep is how often pending confirmations past their expiry
// are recorded expired (they count as denied from their expiry on
// regardless).
const defaultExpirySweep = 10 * time.Second

// Config is what a hub is built from. Zero fields take defaults.
type Config struct {
	Home  registry.Home
	Store store.Store
	// Clock drives presence; the wall clock by default.
	Clock Clock
	// Intervals are the presence thresholds; DefaultIntervals by default.
	Intervals Intervals
	// RingSize is how many changes the stream keeps for resuming;
	// DefaultRingSize by default.
	RingSize int
	// RingBytes bounds the memory of the changes the stream keeps (their
	// payloads and slots); DefaultRingBytes by default.
	RingBytes int
	// FlushEvery is how often changed presence is written to the store
	// (one transaction for all of it) and time-driven states are swept.
	FlushEvery time.Duration
	// Coalesce is how long presence changes gather before they are
	// published: one change per persona per window, however many beats.
	Coalesce time.Duration
	// ConfirmTTL is how long a confirmation waits before it expires.
	ConfirmTTL time.Duration
	// ExpirySweep is how often the jobs' leader records expired
	// confirmations; 10 s by default.
	ExpirySweep time.Duration
	// Lease is the TTL of this hub's leases on a store shared by several
	// hubs (etcd): its presence lease, and its campaign for the run-once
	// jobs. The presence it reported, and its leadership, outlive a dead
	// hub by at most this. DefaultPresenceLease by default; unused on a
	// store with one owner (bbolt).
	Lease time.Duration
	// Log receives operational messages; never tokens.
	Log *slog.Logger
	// Failpoint, for crash tests only, kills the hub at one step of one
	// use case (usecase.FailpointEnv); nil in production.
	Failpoint *usecase.Failpoint
	// StampSweep is how often the local stamp file of every active
	// generation registered on this host is checked, so that one removed
	// or changed while its runtime is quiet shows in presence; 5 s by
	// default. Every request of a runtime checks its own file as well.
	StampSweep time.Duration
	// Host names the host this hub runs on in the operators it enrols (a
	// uid binds a user of one host); os.Hostname() by default.
	Host string
	// MaxConnections and MaxConnectionsPerProcess bound the connections
	// the hub's socket holds, in total and per peer process; the limits
	// table's connections and connections_per_process by default.
	MaxConnections, MaxConnectionsPerProcess int
	// Quotas bound each seat's unacked message bytes and each human's
	// unread channel bytes; the limits table's inbox_bytes and
	// unread_bytes by default.
	Quotas quota.Limits
	// Retention is how long acked channel items and decided
	// confirmations are kept before the retention job deletes them; the
	// limits table's acked_retention and decided_retention by default.
	Retention usecase.Retention
	// HandOver, if set, stops this hub serving when an operator asks it to
	// hand the home over to `serve` (POST /v1/hub/handover): a hub started
	// inside a console or a command. Nil: the hub keeps its home (409
	// no_handover), as a daemon does.
	HandOver func()
}

// Hub is the in-process core: registry, presence, tokens and stream over
// one store. Serve it with Handler; run its loops with Run.
type Hub struct {
	cfg      Config
	st       store.Store
	reg      *roster.Registry
	queue    *queue.Queue
	cases    *usecase.Cases
	presence *Tracker
	stream   *Stream
	tokens   *Tokens
	stamps   stampWatch
	log      *slog.Logger
	// share is this hub's part in presence shared with other hubs on a
	// store with leases; nil on a store with one owner.
	share *presenceShare
	// leading is set while this hub leads the run-once jobs' election.
	leading atomic.Bool
	// mail hands committed coordination messages to their seat's streams.
	mail *mailboxes

	startRev int64
	// started are the records loaded at start, for Run's stamp checks
	// (which then drop them): a second List would compete for the CPU
	// with the first requests.
	started []registry.Persona
	// present is closed once the start's stat of every stamp file is done
	// (checkPresent): Run's full checks follow it rather than compete
	// with it for the CPU while the first requests arrive.
	present chan struct{}

	waitMu    sync.Mutex
	waitingOn map[string]string // pending confirmation id -> persona id
	waitFor   map[string]string // pending confirmation id -> authority
	waitCount map[string]int    // persona id -> pending confirmations
	authCount map[string]int    // authority -> pending confirmations routed to it
	// decided wakes the requests waiting for a confirmation's decision.
	decided decisionWaits

	openMu sync.Mutex
	open   map[tokenHash]int // open streams per token
	// streaming counts open streams per persona generation, whose stamp
	// files the revocation check proves (checkFiles).
	streaming map[string]int
	// woken wakes the open streams of a caller to authorize it again
	// (untilRevoked) when a change that can revoke it is committed.
	woken wakeups
	// streamChecks counts the times an open stream authorized its caller
	// again (untilRevoked); tests count them.
	streamChecks atomic.Int64

	// streamsDone is closed when the hub shuts down, ending every stream
	// response so that the server's drain does not wait on them.
	streamsDone chan struct{}
	stopOnce    sync.Once

	// applied is the last store revision the watcher has published, so a
	// handler can return only once its write is on the stream.
	appliedMu sync.Mutex
	applied   int64
	appliedCh chan struct{}
}

// New loads the installation's personas and persisted presence and
// returns a hub ready to Run.
func New(ctx context.Context, cfg Config) (_ *Hub, err error) {
	if cfg.Store == nil {
		return nil, errors.New("hub: no store")
	}
	if cfg.Clock == nil {
		cfg.Clock = SystemClock{}
	}
	if cfg.Intervals == (Intervals{}) {
		cfg.Intervals = DefaultIntervals
	}
	if err := cfg.Intervals.Validate(); err != nil {
		return nil, fmt.Errorf("hub: %w", err)
	}
	if cfg.StampSweep <= 0 {
		cfg.StampSweep = DefaultStampSweep
	}
	if cfg.FlushEvery <= 0 {
		cfg.FlushEvery = time.Second
	}
	if cfg.Coalesce <= 0 {
		cfg.Coalesce = 10 * time.Millisecond
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.ExpirySweep <= 0 {
		cfg.ExpirySweep = defaultExpirySweep
	}
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultPresenceLease
	}
	if cfg.Quotas.InboxBytes <= 0 {
		cfg.Quotas.InboxBytes = int64(hubapi.LimitOf(quota.InboxBytes).Max)
	}
	if cfg.Quotas.UnreadBytes <= 0 {
		cfg.Quotas.UnreadBytes = int64(hubapi.LimitOf(quota.UnreadBytes).Max)
	}
	if cfg.Retention.Acked <= 0 {
		cfg.Retention.Acked = time.Duration(hubapi.LimitOf("acked_retention").Max) * 24 * time.Hour
	}
	if cfg.Retention.Decided <= 0 {
		cfg.Retention.Decided = time.Duration(hubapi.LimitOf("decided_retention").Max) * 24 * time.Hour
	}
	if cfg.Host == "" {
		host, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("hub: name this host for its operators' enrolments: %w", err)
		}
		cfg.Host = host
	}
	h := &Hub{
		cfg:       cfg,
		st:        cfg.Store,
		reg:       roster.New(cfg.Store, cfg.Home, roster.WithClock(cfg.Clock.Now)),
		presence:  NewTracker(cfg.Clock, cfg.Intervals),
		stream:    NewStream(cfg.RingSize, cfg.RingBytes),
		tokens:    NewTokens(cfg.Store, cfg.Home.Dir, cfg.Host, cfg.Log),
		log:       cfg.Log,
		appliedCh: make(chan struct{}),

		streamsDone: make(chan struct{}),
		waitingOn:   make(map[string]string),
		waitFor:     make(map[string]string),
		open:        make(map[tokenHash]int),
		streaming:   make(map[string]int),
		authCount:   make(map[string]int),
		waitCount:   make(map[string]int),
		stamps:      newStampWatch(),
		mail:        newMailboxes(),
	}
	h.queue = queue.New(cfg.Store, queue.Options{TTL: cfg.ConfirmTTL, Now: cfg.Clock.Now, Seats: usecase.Seats{Registry: h.reg},
		Pending: pendingCounts{h}, PerPersona: hubapi.LimitOf("pending_per_persona").Max,
		PerAuthority: hubapi.LimitOf("pending_per_authority").Max})
	h.cases = usecase.New(usecase.Config{Store: cfg.Store, Registry: h.reg, Queue: h.queue, Log: cfg.Log,
		Now: cfg.Clock.Now, Failpoint: cfg.Failpoint, Presence: h.presence, Stamps: h, Quotas: cfg.Quotas,
		Retention: cfg.Retention})
	if leaser, ok := cfg.Store.(store.Leaser); ok {
		// Several hubs may serve this store: the presence this one
		// reports lives on its lease, and it follows the others'.
		h.share = &presenceShare{leaser: leaser, ttl: cfg.Lease, hub: h.stream.Epoch(), log: cfg.Log, granted: h.announce}
		h.presence.Share()
		if _, err := h.share.current(ctx); err != nil {
			return nil, fmt.Errorf("hub: %w", err)
		}
		// A start that fails from here on gives its lease back, so that
		// no other hub or `store status` counts a hub that never ran.
		defer func() {
			if err != nil {
				rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopRevoke)
				defer cancel()
				h.share.revoke(rctx)
			}
		}()
	}
	// Operators enrolled through any hub, then this home's token files
	// recorded (an older home's, once; and any change since the last run).
	if err := h.tokens.loadEnrolments(ctx); err != nil {
		return nil, err
	}
	if err := h.tokens.refreshOperators(); err != nil {
		return nil, fmt.Errorf("hub: %w", err)
	}
	rev, err := h.st.Rev(ctx)
	if err != nil {
		return nil, fmt.Errorf("hub: %w", err)
	}
	h.startRev, h.applied = rev, rev
	// Presence, token hashes and persona records are read side by side:
	// on two cores the start takes about the longest read, not the sum.
	// (Restored presence is in the tracker before records refresh it.)
	restored, hashes := make(chan error, 1), make(chan tokenHashes, 1)
	go func() { restored <- h.restorePresence(ctx) }()
	go func() {
		known, err := loadTokenHashes(ctx, h.st)
		hashes <- tokenHashes{known, err}
	}()
	ps, err := h.reg.List(ctx, roster.ListOptions{All: true})
	rerr, th := <-restored, <-hashes
	if err != nil {
		err = fmt.Errorf("hub: %w", err)
	}
	if err = errors.Join(err, rerr, th.err); err != nil {
		return nil, err
	}
	if _, err := h.cases.SweepStampDirs(ps); err != nil {
		return nil, fmt.Errorf("hub: %w", err)
	}
	// Stamps are checked after startup (checkAllStamps), not here: at
	// about a millisecond each, 10,000 would hold the socket closed.
	// Tokens and presence are separate books: filled side by side.
	tokensDone := make(chan error, 1)
	go func() { tokensDone <- h.startTokens(ctx, ps, th.known) }()
	for _, p := range ps {
		h.trackPresence(p)
	}
	h.stamps.awaitCheck(ps)
	// The stat of every active generation's stamp file (10,000 system
	// calls at 10,000 personas, a third of a start) runs beside the rest
	// of the start and after it: its persona requests and decisions
	// check their own file meanwhile, and presence is held back until
	// the pass is done, so no reader is told that one whose file is gone
	// stands. The pass is bounded and ends on its own.
	release := h.presence.Hold()
	h.present = make(chan struct{})
	go func() {
		defer close(h.present)
		defer release()
		h.checkPresent(ps)
	}()
	if err := <-tokensDone; err != nil {
		return nil, err
	}
	h.started = ps
	// Only what is undecided is read: the start costs the same however
	// many confirmations were ever decided.
	undecided, err := h.queue.Undecided(ctx)
	if err != nil {
		return nil, fmt.Errorf("hub: %w", err)
	}
	for _, c := range undecided {
		if c.StateAt(cfg.Clock.Now()) == confirm.StatePending {
			h.countWaiting(c)
		}
	}
	// The starting state is the snapshot, not news; and all of it is
	// derived from the store (restored presence, persona records), so
	// there is nothing to write back until something changes.
	h.presence.Baseline()
	return h, nil
}

// Registry is the hub's registry over its store.
func (h *Hub) Registry() *roster.Registry { return h.reg }

// Queue is the hub's confirmation queue.
func (h *Hub) Queue() *queue.Queue { return h.queue }

// Presence is the hub's presence tracker.
func (h *Hub) Presence() *Tracker { return h.presence }

// Stream is the hub's change stream.
func (h *Hub) Stream() *Stream { return h.stream }

// restorePresence reloads the last flushed presence, so last-seen, activity
// and summary survive a restart.
func (h *Hub) restorePresence(ctx context.Context) error {
	kvs, err := h.st.List(ctx, presencePrefix)
	if err != nil {
		return fmt.Errorf("hub: restore presence: %w", err)
	}
	for _, kv := range kvs {
		var rec presenceRecord
		if err := strictjson.DecodeOpen(kv.Value, &rec); err != nil {
			h.log.Warn("skipping unreadable presence record", "key", kv.Key, "err", err)
			continue
		}
		p := rec.Presence
		if h.share != nil && rec.Hub != "" {
			// A live hub's report (a dead one's went with its lease).
			if err := checkRemote(p); err == nil {
				h.presence.ApplyRemote(rec.Hub, p)
			}
			continue
		}
		// What a run derives is derived again by this one: the waiting
		// count from the queue, a stamp problem from the stamp check, the
		// state from last-seen; beats count from this start. Only what a
		// runtime said (and when) carries over.
		p.Waiting, p.Beats, p.Problem = 0, 0, ""
		if p.State != hubapi.StateRetired {
			p.State = ""
		}
		h.presence.Track(p)
	}
	return nil
}

// trackPersona brings presence and tokens in line with a changed persona
// record: an active generation is tracked and holds a token (after its
// stamp is checked, with check); a retired one has its token retired at
// once (answered `retired` from then on) and is retired in presence.
func (h *Hub) trackPersona(p registry.Persona, check bool) error {
	if p.State == registry.StateRetired {
		h.tokens.Retire(p.ID)
		h.stamps.forget(p.ID)
		if err := hubapi.ClearSeat(h.cfg.Home.Dir, seatOf(p)); err != nil {
			h.log.Warn("the seat file of a retired generation could not be removed; its token is refused all the same", "persona", p.Address, "err", err)
		}
	}
	h.trackPresence(p)
	if p.State != registry.StateActive || (check && !h.checkStanding(p)) {
		return nil
	}
	return h.ensureToken(context.Background(), p)
}

// trackPresence tracks an active generation's presence, and retires a
// retired one's.
func (h *Hub) trackPresence(p registry.Persona) {
	switch p.State {
	case registry.StateActive:
		h.presence.Track(hubapi.Presence{ID: p.ID, Address: p.Address, Name: p.Name, Generation: p.Generation})
	case registry.StateRetired:
		h.presence.Track(hubapi.Presence{ID: p.ID, Address: p.Address, Name: p.Name, Generation: p.Generation, State: hubapi.StateRetired})
		h.presence.Retire(p.ID)
	}
}

// Run runs the hub's loops until ctx ends: the store watch feeding the
// stream, the presence publisher, the revocation check of open streams
// and the sweep-and-flush ticker. It flushes presence a last time before
// it returns.
func (h *Hub) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Add(5)
	started := h.started
	h.started = nil
	go func() {
		defer wg.Done()
		began := time.Now()
		<-h.present
		n := h.checkAllStamps(ctx, started)
		if ctx.Err() == nil {
			h.log.Info(StartChecked, "generations", n, "took", time.Since(began).Round(time.Millisecond))
		}
	}()
	go func() { defer wg.Done(); h.watchStore(ctx) }()
	go func() { defer wg.Done(); h.publishPresence(ctx) }()
	go func() { defer wg.Done(); h.runJobs(ctx) }()
	go func() { defer wg.Done(); h.checkRevocations(ctx) }()
	t := time.NewTicker(h.cfg.FlushEvery)
	defer t.Stop()
	sweep := time.NewTicker(h.cfg.StampSweep)
	defer sweep.Stop()
	flushing := newRetryLog(h.log, "presence flush")
	for {
		select {
		case <-ctx.Done():
			wg.Wait()
			if h.share != nil {
				// What it reported goes offline everywhere now (or, if
				// the store does not answer soon, when the lease expires).
				rctx, cancel := context.WithTimeout(context.Background(), stopRevoke)
				defer cancel()
				h.share.revoke(rctx)
				return nil
			}
			return h.Flush(context.Background())
		case <-sweep.C:
			h.sweepStamps()
		case <-t.C:
			h.tokens.retryEnrolments()
			h.presence.Sweep()
			switch err := h.Flush(ctx); {
			case err == nil:
				flushing.succeeded()
			case ctx.Err() == nil:
				flushing.failed(err)
			}
		}
	}
}

// Flush writes every presence entry changed since the last flush, in as
// few store transactions as the store's limits allow (each record stands
// alone, so a flush need not be atomic). On a store shared by several
// hubs it writes only what runtimes reported here, on this hub's lease
// (granted anew, and everything reported here written again, when the
// lease was lost).
func (h *Hub) Flush(ctx context.Context) error {
	var lease store.LeaseID
	var hub string
	if h.share != nil {
		id, err := h.share.current(ctx)
		if err != nil {
			return fmt.Errorf("flush presence: %w", err)
		}
		lease, hub = id, h.share.hub
	}
	dirty := h.presence.TakeDirty()
	if len(dirty) == 0 {
		return nil
	}
	ops := make([]store.Op, 0, len(dirty))
	for _, p := range dirty {
		b, err := json.Marshal(presenceRecord{Presence: p, Hub: hub})
		if err != nil {
			return fmt.Errorf("flush presence: %w", err)
		}
		ops = append(ops, store.PutOnLease(presencePrefix+p.ID, b, lease))
	}
	if _, err := store.WriteAll(ctx, h.st, ops); err != nil {
		h.presence.Redirty(dirty)
		return fmt.Errorf("flush presence of %d personas: %w", len(dirty), err)
	}
	return nil
}

// publishPresence turns coalesced presence changes into stream changes: it
// wakes on the first change, lets the window fill, then publishes each
// changed persona once.
func (h *Hub) publishPresence(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.presence.Notify():
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(h.cfg.Coalesce):
		}
		h.publishPresenceNow()
	}
}

func (h *Hub) publishPresenceNow() {
	ps := h.presence.TakeChanged()
	if len(ps) == 0 {
		return
	}
	evs := make([]events.Event, 0, len(ps))
	for _, p := range ps {
		ev, err := events.NewEvent(events.EventPresence, p.ID, p)
		if err != nil {
			continue
		}
		evs = append(evs, ev)
	}
	h.publish(evs...)
}
