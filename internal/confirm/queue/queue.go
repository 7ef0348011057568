package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// DefaultTTL is how long a confirmation waits before it expires (and then
// counts as denied).
const DefaultTTL = time.Hour

// Options tune a Queue; the zero value is the default.
type Options struct {
	// TTL is the expiry of a new confirmation; 0 means DefaultTTL.
	TTL time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Seats finds the active holder of the owning lead seat; nil leaves
	// every deputy-scope confirmation unroutable.
	Seats SeatHolders
	// Pending counts what is pending, for the limits below; nil sets no
	// limit.
	Pending PendingCounter
	// PerPersona and PerAuthority bound the pending confirmations one
	// persona generation may have asked for and one authority may be
	// routed, so no persona can flood a queue (ErrTooManyPending).
	PerPersona, PerAuthority int
}

// PendingCounter tells how many confirmations are pending, by the persona
// generation that asked and by the authority they are routed to.
type PendingCounter interface {
	PendingOf(personaID string) int
	PendingFor(authority confirm.Principal) int
}

// Queue is the durable confirmation queue over a store. Every state change
// is one compare-and-swap transaction that also appends its audit entry;
// store.Txn is synced to stable storage before it returns, so a decision
// is durable before any caller hears of it.
type Queue struct {
	st      store.Store
	ttl     time.Duration
	now     func() time.Time
	seats   SeatHolders
	prompts *Prompts
	limits  Options // Pending, PerPersona, PerAuthority
}

// New opens the confirmation queue on st.
func New(st store.Store, opts Options) *Queue {
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Queue{st: st, ttl: opts.TTL, now: opts.Now, seats: opts.Seats, prompts: NewPrompts(st, opts.Now), limits: opts}
}

// Prompts is the queue's prompt registry.
func (q *Queue) Prompts() *Prompts { return q.prompts }

// PlanRequest plans answering caller's request to do op under p. Allow and
// deny answer at once and plan nothing — p applies the remembered choices
// it was given (Options.Learned, from Prompts.Active); a confirm verdict
// plans joining a pending confirmation with the same fingerprint or
// queueing a new one routed to its authority. Retrying
// under the same correlation id answers the same result, planning nothing:
// the terminal one once it is known, StatusUnknown until then. The caller
// commits the plan (with any conditions of its own: the persona's record
// unchanged) and plans again on store.ErrConflict.
func (q *Queue) PlanRequest(ctx context.Context, caller confirm.Principal, p *confirm.Policy, op confirm.Operation, correlationID string) (confirm.Result, store.Plan, error) {
	if err := checkCaller(caller, op.Persona); err != nil {
		return confirm.Result{}, store.Plan{}, err
	}
	if _, err := confirm.NormalizeID(correlationID); err != nil {
		return confirm.Result{}, store.Plan{}, fmt.Errorf("correlation id: %w (%w)", confirm.ErrNoCorrelation, err)
	}
	fp := confirm.Fingerprint(caller, p.Hash(), op)
	if c, ok, err := q.byCorrelation(ctx, caller, correlationID); err != nil || ok {
		res, err := q.retried(c, ok, fp, err)
		return res, store.Plan{}, err
	}
	d := p.Authorize(op)
	switch d.Verdict {
	case confirm.Allow:
		return confirm.Result{Status: confirm.StatusAllowed, Decision: d}, store.Plan{}, nil
	case confirm.Deny:
		return confirm.Result{Status: confirm.StatusDenied, Decision: d}, store.Plan{}, nil
	}
	st := p.Stamp()
	// The correlation id was looked up above: plan the new or joined
	// confirmation without reading it again (the plan's condition on its
	// key still refuses a concurrent request under the same id).
	return q.planPending(ctx, caller, pendingInput{kind: confirm.KindOperation, op: op, stamp: st, hash: p.Hash(),
		classKey: p.Keys().ClassKey, decision: d, corr: correlationID, fp: fp})
}

func checkCaller(caller confirm.Principal, persona string) error {
	if caller.IsZero() {
		return fmt.Errorf("request: no caller identity: %w", confirm.ErrBadPrincipal)
	}
	if caller.IsModel() && caller.Name != persona {
		return fmt.Errorf("request by %s under the stamp of %s: %w", caller, persona, confirm.ErrWrongPersona)
	}
	return nil
}

func (q *Queue) retried(c *confirm.Confirmation, ok bool, fp string, err error) (confirm.Result, error) {
	if err != nil {
		return confirm.Result{}, err
	}
	if c.Fingerprint != fp {
		return confirm.Result{}, fmt.Errorf("correlation id %s (confirmation %s): %w", c.CorrelationID, c.ID, confirm.ErrCorrelationReuse)
	}
	return confirm.ResultOf(c, confirm.Decision{Verdict: confirm.Confirm, Boundary: c.Boundary, Reason: c.Reason}, q.now()), nil
}

// pendingInput is what enqueue needs to queue a confirmation.
type pendingInput struct {
	kind     confirm.Kind
	op       confirm.Operation
	stamp    *stamp.Stamp
	hash     string
	classKey string
	decision confirm.Decision
	detail   string
	reason   string
	corr     string
	fp       string
}

// planEnqueue plans joining the pending confirmation with the same
// fingerprint or creating one. A correlation id already used answers with
// its confirmation and plans nothing.
func (q *Queue) planEnqueue(ctx context.Context, caller confirm.Principal, in pendingInput) (confirm.Result, store.Plan, error) {
	if c, ok, err := q.byCorrelation(ctx, caller, in.corr); err != nil || ok {
		res, err := q.retried(c, ok, in.fp, err)
		return res, store.Plan{}, err
	}
	return q.planPending(ctx, caller, in)
}

// planPending is planEnqueue once its correlation id is known to be unused.
func (q *Queue) planPending(ctx context.Context, caller confirm.Principal, in pendingInput) (confirm.Result, store.Plan, error) {
	ck := keyCorrelation(caller, in.corr)
	fk := keyFingerprint(in.fp)
	now := q.now().UTC()
	conds := []store.Cond{{Key: ck}}
	fkv, err := q.st.Get(ctx, fk)
	switch {
	case err == nil:
		c, rkv, err := q.load(ctx, string(fkv.Value))
		if err != nil {
			return confirm.Result{}, store.Plan{}, err
		}
		if c.StateAt(now) == confirm.StatePending {
			return q.planJoin(caller, in, c, append(conds, store.Cond{Key: fk, ModRev: fkv.ModRev},
				store.Cond{Key: keyConfirmation(c.ID), ModRev: rkv.ModRev}), now)
		}
		conds = append(conds, store.Cond{Key: fk, ModRev: fkv.ModRev})
	case errors.Is(err, store.ErrNotFound):
		conds = append(conds, store.Cond{Key: fk})
	default:
		return confirm.Result{}, store.Plan{}, fmt.Errorf("queue confirmation: %w", err)
	}
	return q.planCreate(ctx, caller, in, conds, now)
}

func (q *Queue) planJoin(caller confirm.Principal, in pendingInput, c *confirm.Confirmation, conds []store.Cond, now time.Time) (confirm.Result, store.Plan, error) {
	a, err := auditOp(confirm.AuditEntry{Time: now, Event: "joined", ConfirmationID: c.ID, CorrelationID: in.corr,
		Actor: caller, Persona: c.Operation.Persona, Operation: c.Operation.String(), Boundary: c.Boundary, StampHash: c.StampHash})
	if err != nil {
		return confirm.Result{}, store.Plan{}, err
	}
	ops := []store.Op{store.Put(keyCorrelation(caller, in.corr), []byte(c.ID)), a}
	return confirm.ResultOf(c, in.decision, now), store.Plan{Conds: conds, Ops: ops}, nil
}

func (q *Queue) planCreate(ctx context.Context, caller confirm.Principal, in pendingInput, conds []store.Cond, now time.Time) (confirm.Result, store.Plan, error) {
	rt, err := routeFor(ctx, q.seats, in.stamp, in.decision.Route())
	if err != nil {
		return confirm.Result{}, store.Plan{}, err
	}
	if err := q.underLimits(in.stamp.Persona.ID, in.op.Persona, rt.authority); err != nil {
		return confirm.Result{}, store.Plan{}, err
	}
	c := &confirm.Confirmation{
		ID: newID(now), Kind: in.kind, Requester: caller, Authority: rt.authority, AuthorityBinding: rt.binding,
		Route: in.decision.Route(), Unroutable: rt.unroutable, Operation: in.op, PersonaID: in.stamp.Persona.ID,
		Profile: in.stamp.Path.Profile, StampHash: in.hash, ClassKey: in.classKey, CorrelationID: in.corr, Fingerprint: in.fp,
		Boundary: in.decision.Boundary, Reason: in.decision.Reason, Detail: in.detail, RequestReason: in.reason,
		CreatedAt: now, ExpiresAt: now.Add(q.ttl), State: confirm.StatePending,
	}
	val, err := json.Marshal(c)
	if err != nil {
		return confirm.Result{}, store.Plan{}, err
	}
	a, err := auditOp(confirm.AuditEntry{Time: now, Event: "requested", ConfirmationID: c.ID, CorrelationID: in.corr,
		Actor: caller, Persona: in.op.Persona, Operation: in.op.String(), Boundary: c.Boundary,
		Authority: c.Authority, StampHash: in.hash, Reason: rt.binding})
	if err != nil {
		return confirm.Result{}, store.Plan{}, err
	}
	undecided, err := undecidedOp(c)
	if err != nil {
		return confirm.Result{}, store.Plan{}, err
	}
	conds = append(conds, store.Cond{Key: keyConfirmation(c.ID)})
	ops := []store.Op{
		store.Put(keyConfirmation(c.ID), val),
		store.Put(keyFingerprint(in.fp), []byte(c.ID)),
		store.Put(keyCorrelation(caller, in.corr), []byte(c.ID)),
		undecided,
		a,
	}
	return confirm.ResultOf(c, in.decision, now), store.Plan{Conds: conds, Ops: ops}, nil
}

// underLimits refuses a new confirmation when its requester or its
// authority already has as many pending as the limits allow. A retry
// joining its own confirmation is never refused: it adds nothing.
func (q *Queue) underLimits(personaID, persona string, authority confirm.Principal) error {
	l := q.limits
	if l.Pending == nil {
		return nil
	}
	if n := l.Pending.PendingOf(personaID); l.PerPersona > 0 && n >= l.PerPersona {
		return fmt.Errorf("%s has %d confirmations pending, the limit: %w; wait for decisions before asking more", persona, n, confirm.ErrTooManyPending)
	}
	if n := l.Pending.PendingFor(authority); l.PerAuthority > 0 && n >= l.PerAuthority && authority.Name != "" {
		return fmt.Errorf("%s has %d confirmations pending, the limit: %w; ask again when they are decided", authority, n, confirm.ErrTooManyPending)
	}
	return nil
}

// byCorrelation finds the confirmation a requester's correlation id names.
func (q *Queue) byCorrelation(ctx context.Context, requester confirm.Principal, corr string) (*confirm.Confirmation, bool, error) {
	kv, err := q.st.Get(ctx, keyCorrelation(requester, corr))
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("correlation id %s: %w", corr, err)
	}
	c, _, err := q.load(ctx, string(kv.Value))
	return c, err == nil, err
}

// load reads one confirmation and its stored revisions.
func (q *Queue) load(ctx context.Context, id string) (*confirm.Confirmation, store.KV, error) {
	kv, err := q.st.Get(ctx, keyConfirmation(id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, kv, fmt.Errorf("confirmation %s: %w", id, confirm.ErrNoConfirmation)
	}
	if err != nil {
		return nil, kv, fmt.Errorf("confirmation %s: %w", id, err)
	}
	var c confirm.Confirmation
	if err := strictjson.DecodeOpen(kv.Value, &c); err != nil {
		return nil, kv, fmt.Errorf("confirmation %s: %w", id, err)
	}
	return &c, kv, nil
}

// Get returns one confirmation as stored (see Confirmation.StateAt for the
// state as it counts now).
func (q *Queue) Get(ctx context.Context, id string) (*confirm.Confirmation, error) {
	c, _, err := q.load(ctx, id)
	return c, err
}

// List returns the pending confirmations (those not yet expired), or with
// all every confirmation, oldest first. The pending ones are read through
// the undecided index: the cost is what is pending, not every confirmation
// ever decided (at 10,000 activated personas, 32 MB of decided records that
// a scan decoded for each console's snapshot).
func (q *Queue) List(ctx context.Context, all bool) ([]*confirm.Confirmation, error) {
	if !all {
		return q.pending(ctx)
	}
	kvs, err := q.st.List(ctx, PrefixConfirmation)
	if err != nil {
		return nil, fmt.Errorf("list confirmations: %w", err)
	}
	now := q.now()
	var out []*confirm.Confirmation
	for _, kv := range kvs {
		var c confirm.Confirmation
		if err := strictjson.DecodeOpen(kv.Value, &c); err != nil {
			return nil, fmt.Errorf("confirmation %s: %w", kv.Key, err)
		}
		if all || c.StateAt(now) == confirm.StatePending {
			out = append(out, &c)
		}
	}
	slices.SortStableFunc(out, func(a, b *confirm.Confirmation) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return out, nil
}

// pending is List's answer read through the undecided index: the
// undecided confirmations that have not expired.
func (q *Queue) pending(ctx context.Context) ([]*confirm.Confirmation, error) {
	undecided, err := q.Undecided(ctx)
	if err != nil {
		return nil, fmt.Errorf("list confirmations: %w", err)
	}
	now := q.now()
	out := undecided[:0]
	for _, c := range undecided {
		if c.StateAt(now) == confirm.StatePending {
			out = append(out, c)
		}
	}
	return out, nil
}

// Undecided returns the confirmations not yet decided (pending, or past
// their expiry but not yet recorded expired), oldest first, read through
// their index: the cost is what is pending, however long the history.
func (q *Queue) Undecided(ctx context.Context) ([]*confirm.Confirmation, error) {
	kvs, err := q.st.List(ctx, prefixUndecided)
	if err != nil {
		return nil, fmt.Errorf("list undecided confirmations: %w", err)
	}
	out := make([]*confirm.Confirmation, 0, len(kvs))
	for _, kv := range kvs {
		c, _, err := q.load(ctx, kv.Key[len(prefixUndecided):])
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b *confirm.Confirmation) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return out, nil
}

// Now is the queue's clock.
func (q *Queue) Now() time.Time { return q.now() }
