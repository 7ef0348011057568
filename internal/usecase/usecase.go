// Package usecase owns what an installation does, one use case at a time:
// registration, decisions with their lifecycle effect (activation,
// refusal, retirement), and the expiry sweep. Each use case reads, decides
// and commits exactly one store transaction, so under any fault either all
// of it happened or none of it did; there is nothing to compensate and
// nothing left to finish at the next start. Transports (the hub's HTTP
// server, later an MCP server) decode, authenticate, call a use case and
// encode its answer; they hold no rules of their own.
package usecase

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/channel/mailbox"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/coord/switchboard"
	"github.com/virgo-hub/virgo-tui/internal/quota"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// A use case whose transaction lost to a concurrent writer (its
// conditions no longer held) reads and plans again: the use cases are the
// one place a conflict is retried, so concurrent callers (sixteen senders
// to one seat) all succeed rather than being refused for the hub's own
// contention. Each retry first pauses a growing, jittered time, so
// colliding writers spread out instead of colliding again; a use case
// gives up with registry.ErrContention only after conflictBudget of
// conflicts in a row, or when its context ends.
const (
	conflictBudget   = 10 * time.Second
	conflictPauseMin = 50 * time.Microsecond
	conflictPauseMax = 20 * time.Millisecond
)

// conflictRetry paces one use case's retries after conflicts.
type conflictRetry struct {
	started  time.Time
	attempts int
}

// again pauses before the next attempt after a conflict: nil to plan
// again, ctx's error when it ended, registry.ErrContention once the
// conflicts have lasted conflictBudget.
func (c *conflictRetry) again(ctx context.Context) error {
	if c.started.IsZero() {
		c.started = time.Now()
	}
	c.attempts++
	if time.Since(c.started) >= conflictBudget {
		return fmt.Errorf("%w (%d attempts in %v)", registry.ErrContention, c.attempts, conflictBudget)
	}
	pause := min(conflictPauseMin<<min(c.attempts, 16), conflictPauseMax)
	t := time.NewTimer(pause/2 + rand.N(pause/2))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Config is what the use cases run on. Every field is required but Log.
type Config struct {
	Store    store.Store
	Registry *roster.Registry
	Queue    *queue.Queue
	// Log receives what a use case could not tidy (a stamp directory left
	// by a transaction that did not commit).
	Log *slog.Logger
	// Now is the clock of idempotency records; time.Now by default.
	Now func() time.Time
	// IdempotencyLimit bounds the idempotency records kept;
	// MaxIdempotencyRecords by default.
	IdempotencyLimit int
	// Failpoint, for crash tests only, kills the process at one step of
	// one use case (ParseFailpoint); nil in production.
	Failpoint *Failpoint
	// Presence is the runtimes' presence the presence tools read and
	// report to (the hub's tracker); without it they fail ErrNoPresence.
	Presence PresenceBook
	// Quotas bound each seat's unacked message bytes and each human's
	// unread channel bytes; a zero field takes its default.
	Quotas quota.Limits
	// Retention is how long acked channel items and decided
	// confirmations are kept (SweepRetention); a zero field takes its
	// default.
	Retention Retention
	// Stamps proves, before every decision for a generation, what only
	// the front end on its host can: that its local stamp file is there
	// and intact (the hub's stamp watch). Without it only the stored stamp
	// is proven.
	Stamps StampProver
}

// StampProver proves a generation's local stamp file (spec: "Startup
// fails if the stamp is missing"): nil while it stands, else why not
// (stamp.ErrStampMissing, stamp.ErrStampUnreadable, stamp.ErrHashMismatch).
type StampProver interface {
	ProveStamp(ctx context.Context, personaID string) error
}

// Cases are an installation's use cases over one store.
type Cases struct {
	st    store.Store
	reg   *roster.Registry
	queue *queue.Queue
	home  registry.Home
	log   *slog.Logger
	now   func() time.Time
	fail  *Failpoint
	// idemLimit bounds the idempotency records kept.
	idemLimit int
	stamps    stampCache
	// coord is the coordination records: messages and instance fences.
	coord *switchboard.Book
	// human is the human channel; reactions its reaction outcomes.
	human     *mailbox.Book
	reactions *queue.Reactions
	// presence is the hub's presence of runtimes (nil: none kept).
	presence PresenceBook
	// prover proves a generation's stamp file before a decision (nil:
	// nothing beyond the stored stamp).
	prover StampProver
	// quotas are the books' quotas, kept for Over.
	quotas quota.Limits
	// retention is how long what is done is kept.
	retention Retention
}

// New returns the use cases over cfg's store, registry and queue.
func New(cfg Config) *Cases {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.IdempotencyLimit <= 0 {
		cfg.IdempotencyLimit = MaxIdempotencyRecords
	}
	u := &Cases{st: cfg.Store, reg: cfg.Registry, queue: cfg.Queue, home: cfg.Registry.Home(), log: cfg.Log,
		now: cfg.Now, fail: cfg.Failpoint, idemLimit: cfg.IdempotencyLimit, coord: switchboard.New(cfg.Store, cfg.Now, cfg.Quotas),
		human: mailbox.New(cfg.Store, cfg.Now, cfg.Quotas), reactions: queue.NewReactions(cfg.Store, cfg.Now),
		presence: cfg.Presence, prover: cfg.Stamps, quotas: cfg.Quotas,
		retention: cfg.Retention.withDefaults()}
	return u
}

// Over returns the same use cases writing through st — the store they
// were made over, fenced by a term of the jobs' election.
func (u *Cases) Over(st store.Store) *Cases {
	c := New(Config{Store: st, Registry: u.reg, Queue: u.queue, Log: u.log, Now: u.now, Failpoint: u.fail,
		IdempotencyLimit: u.idemLimit, Presence: u.presence, Stamps: u.prover, Quotas: u.quotas,
		Retention: u.retention})
	return c
}

// commit runs plan-and-commit until the plan's conditions hold: plan reads
// what it needs and returns the use case's one transaction, and commit
// applies it. A plan that writes nothing commits nothing. useCase names
// the use case for its failpoints.
func (u *Cases) commit(ctx context.Context, useCase, what string, plan func() (store.Plan, error)) error {
	var retry conflictRetry
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		p, err := plan()
		if err != nil || p.Empty() {
			return err
		}
		u.fail.at(useCase, StepBeforeCommit)
		_, err = p.Commit(ctx, u.st)
		if errors.Is(err, store.ErrConflict) {
			if err := retry.again(ctx); err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		u.fail.at(useCase, StepAfterCommit)
		return nil
	}
}
