package hub

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/store/leader"
)

// idempotencySweep is how often idempotency records past their window (or
// beyond their bound) are dropped.
const idempotencySweep = time.Minute

// retentionSweep is how often what is past its retention is deleted
// (usecase.Cases.SweepRetention): retention is counted in days, so an hour
// late costs little, and each sweep reads every channel item and
// confirmation.
const retentionSweep = time.Hour

// JobsElection names the election of the run-once jobs under leader.Prefix.
const JobsElection = "jobs"

// campaignRetry is how long a hub waits to campaign again after a
// campaign failed (the store unavailable).
const campaignRetry = time.Second

// The run-once jobs are the periodic writers whose work is the
// installation's, not a hub's: run by every hub they would do it twice and
// race each other. They run on the hub that leads the jobs' election, and
// every write they make is fenced by its term (leader.Term.Store):
//   - the expiry sweep (usecase.Cases.Sweep): records expired
//     confirmations, and withdraws what retired generations left open;
//   - the idempotency sweep (usecase.Cases.SweepIdempotency);
//   - the retention sweep (usecase.Cases.SweepRetention).
//
// Not jobs: the presence flush (each hub writes what its own runtimes
// report, on its own lease), the stamp check and the stamp-directory sweep
// (each hub's own home), and re-routing (part of the activation's own
// transaction, confirm.PlanReroute).
func (h *Hub) runJobs(ctx context.Context) {
	e := leader.For(h.st, leader.Options{Name: JobsElection, TTL: h.cfg.Lease,
		Holder: fmt.Sprintf("%s pid %d hub %s", h.cfg.Host, os.Getpid(), h.stream.Epoch())})
	for ctx.Err() == nil {
		term, err := e.Campaign(ctx)
		if err != nil {
			if ctx.Err() == nil {
				h.log.Error("campaign for the run-once jobs failed; will retry", "err", err)
				select {
				case <-ctx.Done():
				case <-time.After(campaignRetry):
				}
			}
			continue
		}
		h.lead(ctx, term)
	}
}

// lead runs the jobs for one term, until ctx ends (the hub stops: it
// resigns, so another hub leads at once) or the term is over.
func (h *Hub) lead(ctx context.Context, term *leader.Term) {
	h.leading.Store(true)
	defer h.leading.Store(false)
	if term.Fence.Key != "" {
		h.log.Info("leading the run-once jobs", "key", term.Fence.Key, "revision", term.Fence.ModRev)
	}
	jobs := h.cases.Over(term.Store(h.st))
	expiry := time.NewTicker(h.cfg.ExpirySweep)
	defer expiry.Stop()
	idempotency := time.NewTicker(idempotencySweep)
	defer idempotency.Stop()
	retention := time.NewTicker(retentionSweep)
	defer retention.Stop()
	dropping, expiring := newRetryLog(h.log, "dropping old idempotency records"), newRetryLog(h.log, "expiring confirmations")
	ageing := newRetryLog(h.log, "deleting what is past its retention")
	for {
		select {
		case <-ctx.Done():
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopRevoke)
			if err := term.Resign(rctx); err != nil {
				h.log.Warn("resigning the run-once jobs failed; another hub leads once the lease expires", "err", err)
			}
			cancel()
			return
		case <-term.Done():
			h.log.Warn("no longer leader: the run-once jobs stop until this hub is elected again", "key", term.Fence.Key)
			return
		case <-idempotency.C:
			_, err := jobs.SweepIdempotency(ctx)
			report(ctx, term, dropping, err)
		case <-retention.C:
			_, err := jobs.SweepRetention(ctx)
			report(ctx, term, ageing, err)
		case <-expiry.C:
			_, err := jobs.Sweep(ctx)
			report(ctx, term, expiring, err)
		}
	}
}

// report logs a job's outcome on its retry log: not when the hub stops,
// nor when the term is over (a use case that retries its conflicts may
// report the fence's refusal as contention; the loop says "no longer
// leader" next).
func report(ctx context.Context, term *leader.Term, log *retryLog, err error) {
	switch {
	case err == nil:
		log.succeeded()
	case ctx.Err() != nil, errors.Is(err, leader.ErrNotLeader):
	default:
		select {
		case <-term.Done():
		default:
			log.failed(err)
		}
	}
}
