package demo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// Intervals are the presence thresholds the demo's hub runs with: short, so
// a ten-second demo shows a runtime going stale.
var Intervals = hub.Intervals{Heartbeat: time.Second, Stale: 3 * time.Second, Offline: 10 * time.Second, Idle: 8 * time.Second}

// activities are what simulated runtimes say they are doing, by role.
var activities = map[string][]string{
	"secretary":   {"triaging the inbox", "drafting the daily brief", "routing an approval request", "summarizing the week"},
	"coordinator": {"balancing the lanes", "reviewing the project queues", "planning the sprint"},
	"lead":        {"reviewing a deputy's report", "assigning a bounded task", "consolidating findings", "reading QUEUE.md"},
	"deputy":      {"running the test suite", "writing FINDINGS.md", "bisecting a regression", "reporting progress"},
}

// scenario is one kind of operation a runtime asks about.
type scenario struct {
	// role limits the scenario to one role; "" is any.
	role   string
	tool   string
	target string // %s is replaced by the persona's scope/project, %d by a counter
	shape  string
}

// scenarios cover every kind of confirmation (and one refusal): the three
// confirm-level global boundaries go to the bound human, a deputy acting
// outside its task goes to its owning lead, a secret read is denied.
var scenarios = []scenario{
	{tool: "publish_deployment_v1", target: "external:https://example.org/releases/r%d", shape: "deploy"},
	{tool: "workspace_write", target: "path:memory/old-notes-%d.md", shape: "delete"},
	{tool: "workspace_write", target: "path:credentials/api-token", shape: "write:overwrite"},
	{tool: "workspace_read", target: "path:secrets/token", shape: "credential:read"},
	{role: "deputy", tool: "append_run_event", target: "run:%s/t-9/r-%d", shape: "record:write"},
}

// Options tune Simulate.
type Options struct {
	// Home is the installation's home (for the runtimes' token files).
	Home string
	// Operator is the operator client; with AutoDecide it decides the
	// confirmations routed to its human after a short pause (headless runs).
	Operator   *hubclient.Client
	AutoDecide bool
	// Beat is each runtime's heartbeat period; Intervals.Heartbeat by default.
	Beat time.Duration
	// Seed makes a run repeatable.
	Seed uint64
	// AskEvery is how many ticks a runtime lets pass between two operations
	// it asks about (DefaultAskEvery when 0): often enough that the queue
	// stays lively, rarely enough that an operator can read and decide.
	AskEvery int
	// MaxPending bounds the confirmations waiting at once
	// (DefaultMaxPending when 0): a runtime skips its turn to ask while
	// that many wait. The count is read through Operator; without one only
	// the simulation's own asks are counted.
	MaxPending int
	// Stats, when set, is where the run counts, so a caller can watch a run
	// while it goes (a test waits on it instead of on the clock); Simulate
	// returns it. A fresh one is used when nil.
	Stats *Stats
}

// DefaultAskEvery: with the demo's dozen runtimes beating once a second,
// about one confirmation every few seconds reaches the operator.
const DefaultAskEvery = 20

// Stats count what a simulation did.
type Stats struct {
	Runtimes, Beats, Activities, Requests, Queued, Denied, Decided atomic.Int64
	// Assigned, Reported and Resolved count the team's work through tool
	// calls: tasks assigned, tasks reported done (with a run and its
	// recorded findings), decisions resolved.
	Assigned, Reported, Resolved atomic.Int64
}

// String is the one-paragraph account the demo prints at the end.
func (s *Stats) String() string {
	return fmt.Sprintf("%d runtimes sent %d heartbeats and %d activity or summary changes, asked %d operations "+
		"(%d queued for confirmation, %d denied outright); %d confirmations decided; "+
		"%d tasks assigned, %d reported done, %d decisions resolved",
		s.Runtimes.Load(), s.Beats.Load(), s.Activities.Load(), s.Requests.Load(), s.Queued.Load(), s.Denied.Load(), s.Decided.Load(),
		s.Assigned.Load(), s.Reported.Load(), s.Resolved.Load())
}

// Simulate runs a runtime for every active generation but the first (the
// root secretary stays standing: its runtime never connects) until ctx
// ends. The second one's runtime goes away after a few beats, so it turns
// stale, then offline. Leads decide the deputy-scope confirmations routed to
// them.
func Simulate(ctx context.Context, in Installation, opts Options) (*Stats, error) {
	if opts.Beat <= 0 {
		opts.Beat = Intervals.Heartbeat
	}
	if opts.AskEvery <= 0 {
		opts.AskEvery = DefaultAskEvery
	}
	if opts.MaxPending <= 0 {
		opts.MaxPending = DefaultMaxPending
	}
	st := opts.Stats
	if st == nil {
		st = &Stats{}
	}
	pace := &pacer{max: opts.MaxPending}
	var wg sync.WaitGroup
	errs := make(chan error, len(in.Active)+2)
	if opts.Operator != nil {
		if err := pace.refresh(ctx, opts.Operator); err != nil {
			return nil, fmt.Errorf("demo: pending confirmations: %w", err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := pace.run(ctx, opts.Operator, opts.Beat); err != nil && ctx.Err() == nil {
				errs <- fmt.Errorf("demo: pending confirmations: %w", err)
			}
		}()
	}
	for i, p := range in.Active {
		if i == 0 {
			continue
		}
		rt, err := hubclient.Dial(ctx, opts.Home, hubclient.WithTokenFile(filepath.Join(registry.Home{Dir: opts.Home}.GenerationDir(p.ID), hubapi.TokenFile)))
		if err != nil {
			return nil, fmt.Errorf("demo: runtime of %s: %w", p.Address, err)
		}
		st.Runtimes.Add(1)
		stopAfter := 0
		if i == 1 {
			stopAfter = 3
		}
		r := &runtime{p: p, c: rt, home: opts.Home, st: st, pace: pace, beat: opts.Beat, stopAfter: stopAfter, rng: rand.New(rand.NewPCG(opts.Seed, uint64(i))), asks: i, askEvery: opts.AskEvery}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer rt.Close()
			if err := r.run(ctx); err != nil && ctx.Err() == nil {
				errs <- err
			}
		}()
	}
	if opts.AutoDecide && opts.Operator != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := autoDecide(ctx, opts.Operator, st); err != nil && ctx.Err() == nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return st, <-errs
}

// runtime is one simulated persona runtime.
type runtime struct {
	p         registry.Persona
	c         *hubclient.Client
	home      string
	st        *Stats
	pace      *pacer
	beat      time.Duration
	stopAfter int
	rng       *rand.Rand
	n, asks   int
	askEvery  int
}

func (r *runtime) run(ctx context.Context) error {
	for r.n = 1; ; r.n++ {
		jitter := time.Duration(r.rng.Int64N(int64(r.beat / 2)))
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(r.beat*3/4 + jitter):
		}
		if r.stopAfter > 0 && r.n > r.stopAfter {
			return nil // the runtime went away
		}
		if err := r.step(ctx); err != nil {
			if errors.Is(err, hubapi.ErrUnauthenticated) || errors.Is(err, registry.ErrRetired) {
				return nil // retired from the console: its token no longer works, and a runtime stops
			}
			return fmt.Errorf("demo: %s: %w", r.p.Address, err)
		}
	}
}

// step is one tick: a beat, maybe with a new activity or summary, maybe an
// operation to ask about, and the persona's turn of work (work.go).
func (r *runtime) step(ctx context.Context) error {
	var err error
	if (r.n+r.asks)%r.askEvery == 0 {
		if err := r.ask(ctx); err != nil {
			return err
		}
	}
	switch roll := r.rng.IntN(10); {
	case roll < 3:
		act := pick(r.rng, activities[r.p.Role])
		_, err = r.c.SetPresence(ctx, &act, nil)
		r.st.Activities.Add(1)
	case roll < 4:
		sum := fmt.Sprintf("%s: %d items in QUEUE.md", r.p.Address, r.rng.IntN(12))
		_, err = r.c.SetPresence(ctx, nil, &sum)
		r.st.Activities.Add(1)
	default:
		_, err = r.c.Beat(ctx)
	}
	r.st.Beats.Add(1)
	if err != nil {
		return err
	}
	return r.work(ctx)
}

// ask requests one operation, unless the queue is as full as the demo
// keeps it. A runtime cycles through the scenarios that fit its role, its
// own role's first, so even a short demo asks every kind.
func (r *runtime) ask(ctx context.Context) error {
	if !r.pace.reserve() {
		return nil
	}
	var fit []scenario
	for _, s := range scenarios {
		if s.role == r.p.Role {
			fit = append([]scenario{s}, fit...)
		} else if s.role == "" {
			fit = append(fit, s)
		}
	}
	s := fit[r.asks%len(fit)]
	r.asks++
	target := s.target
	if strings.Contains(target, "%s") {
		target = fmt.Sprintf(target, r.p.Scope+"/"+r.p.Project, r.n)
	} else if strings.Contains(target, "%d") {
		target = fmt.Sprintf(target, r.n)
	}
	res, err := r.c.RequestConfirmation(ctx, hubapi.OperationRequest{Tool: s.tool, Target: target, Shape: s.shape,
		CorrelationID: fmt.Sprintf("demo-%s-%d", r.p.ID[:8], r.n)})
	r.pace.done(err == nil && res.Status != confirm.StatusDenied && res.Confirmation != nil)
	if err != nil {
		return err
	}
	r.st.Requests.Add(1)
	switch {
	case res.Status == confirm.StatusDenied:
		r.st.Denied.Add(1)
	case res.Confirmation != nil:
		r.st.Queued.Add(1)
	}
	return nil
}

// autoDecide is the headless stand-in for the operator: every second it
// decides the operation confirmations routed to it that have waited more
// than a second, approving two of three. Activations and retirements stay
// pending for a human.
func autoDecide(ctx context.Context, op *hubclient.Client, st *Stats) error {
	me, err := op.WhoAmI(ctx)
	if err != nil {
		return err
	}
	for n := 0; ; {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
		cs, err := op.Confirmations(ctx, false)
		if err != nil {
			return err
		}
		for _, c := range cs {
			if c.Kind != confirm.KindOperation || c.Authority.String() != me.Principal || time.Since(c.CreatedAt) < time.Second {
				continue
			}
			n++
			d := hubapi.DecideRequest{Approve: n%3 != 0}
			if !d.Approve {
				d.Reason = "not during the demo"
			}
			if _, err := op.Decide(ctx, c.ID, d); err != nil {
				if lost(err) {
					continue
				}
				return err
			}
			st.Decided.Add(1)
		}
	}
}

// lost reports a decision that came too late: decided elsewhere or expired.
func lost(err error) bool {
	return errors.Is(err, confirm.ErrAlreadyDecided) || errors.Is(err, confirm.ErrExpired)
}

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }
