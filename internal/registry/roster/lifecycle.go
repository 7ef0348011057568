package roster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// Register grants the seat at reg.Address to a new persona generation and
// creates the generation's private directory, in one transaction of its own
// (a use case that records more with the registration — a stamp hash, an
// activation request — uses Prepare and Admit instead). The seat must have
// no pending or active holder (ErrSeatTaken names it) and the name must
// never have been used (ErrNameTaken). The generation number is one more
// than the seat's holders so far.
func (r *Registry) Register(ctx context.Context, reg registry.Registration) (registry.Persona, error) {
	p, err := r.Prepare(reg)
	if err != nil {
		return registry.Persona{}, err
	}
	dir, err := r.home.MakeGenerationDir(p.ID)
	if err != nil {
		return registry.Persona{}, fmt.Errorf("register %s: %w", p.Address, err)
	}
	err = r.update(ctx, func() ([]store.Cond, []store.Op, error) {
		a, err := r.Admit(ctx, p)
		if err != nil {
			return nil, nil, err
		}
		p = a.Recorded("")
		plan, err := a.Plan("")
		return plan.Conds, plan.Ops, err
	})
	if err != nil {
		os.Remove(dir)
		return registry.Persona{}, fmt.Errorf("register %s: %w", p.Address, err)
	}
	return p, nil
}

// Admission is a registration read and decided but not committed: the
// persona as it will be stored (its generation decided) and the guarded
// writes that grant it the seat and the name.
type Admission struct {
	// Persona is the new generation, without its stamp hash until Plan.
	Persona registry.Persona
	seat    seatRecord
	conds   []store.Cond
}

// Admit reads p's seat and name and decides its generation. The seat must
// have no pending or active holder (ErrSeatTaken names it) and the name must
// never have been used (ErrNameTaken). Nothing is written: commit the
// admission's Plan, alone or joined with the rest of its use case.
func (r *Registry) Admit(ctx context.Context, p registry.Persona) (Admission, error) {
	seat, seatRev, err := r.getSeat(ctx, p.Address)
	if err != nil {
		return Admission{}, err
	}
	if seat.Holder != "" {
		return Admission{}, r.seatTaken(ctx, p.Address, seat.Holder)
	}
	keys := nameKeys(p.Name)
	for _, k := range keys {
		if kv, err := r.s.Get(ctx, k); err == nil {
			return Admission{}, r.nameTaken(ctx, p.Name, string(kv.Value))
		} else if !errors.Is(err, store.ErrNotFound) {
			return Admission{}, fmt.Errorf("read name %s: %w", p.Name, err)
		}
	}
	p.Generation = len(seat.History) + 1
	seat.Holder = p.ID
	seat.History = append(seat.History, p.ID)
	conds := []store.Cond{{Key: seatPrefix + p.Address, ModRev: seatRev}, {Key: personaPrefix + p.ID}}
	for _, k := range keys {
		conds = append(conds, store.Cond{Key: k})
	}
	return Admission{Persona: p, seat: seat, conds: conds}, nil
}

// Plan is the admission's guarded writes, the persona recorded with the hash
// of its capability stamp (written before the transaction; "" for none) and
// the composition hash that covers it (Compose).
func (a Admission) Plan(stampHash string) (store.Plan, error) {
	if stampHash != "" {
		if err := registry.CheckToken("stamp hash", stampHash); err != nil {
			return store.Plan{}, err
		}
	}
	p := a.Recorded(stampHash)
	var o ops
	o.persona(p)
	o.seat(p.Address, a.seat)
	for _, k := range nameKeys(p.Name) {
		o.list = append(o.list, store.Put(k, []byte(p.ID)))
	}
	return store.Plan{Conds: a.conds, Ops: o.list}, o.err
}

// Recorded is the persona as Plan(stampHash) records it: with the stamp
// hash and the composition hash that covers it (Compose).
func (a Admission) Recorded(stampHash string) registry.Persona {
	p := a.Persona
	p.StampHash, p.Composition = stampHash, registry.Compose(p.CharacterHash, stampHash)
	return p
}

// seatTaken builds ErrSeatTaken naming the holder.
func (r *Registry) seatTaken(ctx context.Context, addr, holderID string) error {
	h, _, err := r.getPersona(ctx, holderID)
	if err != nil {
		return err
	}
	return registry.SeatTakenError(addr, h)
}

// nameTaken builds ErrNameTaken naming the owner and offering a free name.
func (r *Registry) nameTaken(ctx context.Context, name, ownerID string) error {
	o, _, err := r.getPersona(ctx, ownerID)
	if err != nil {
		return err
	}
	hint := ""
	if free, err := r.SuggestNames(ctx, 1); err == nil {
		hint = ", e.g. " + free[0]
	}
	looks := ""
	if !strings.EqualFold(name, o.Name) {
		looks = " (they look alike)"
	}
	return fmt.Errorf("%w: %q%s belongs to %s (%s, generation %d, %s); names are for life, choose another%s",
		registry.ErrNameTaken, name, looks, o.Name, o.Address, o.Generation, o.State, hint)
}

// Activate turns a pending persona active, in one transaction of its own;
// see PlanActivate.
func (r *Registry) Activate(ctx context.Context, id string) (registry.Persona, error) {
	var p registry.Persona
	err := r.update(ctx, func() (conds []store.Cond, ops []store.Op, err error) {
		var plan store.Plan
		p, plan, err = r.PlanActivate(ctx, id)
		return plan.Conds, plan.Ops, err
	})
	if err != nil {
		return registry.Persona{}, fmt.Errorf("activate %s: %w", id, err)
	}
	return p, nil
}

// PlanActivate plans turning a pending persona active: the confirmation was
// approved. Activating an active persona plans nothing; a retired or refused
// one never becomes active (ErrRetired, ErrRefused).
func (r *Registry) PlanActivate(ctx context.Context, id string) (registry.Persona, store.Plan, error) {
	p, rev, err := r.getPersona(ctx, id)
	if err != nil {
		return registry.Persona{}, store.Plan{}, err
	}
	switch p.State {
	case registry.StateActive:
		return p, store.Plan{}, nil
	case registry.StatePending:
	default:
		return registry.Persona{}, store.Plan{}, ended(p)
	}
	now := r.stamp()
	p.State, p.ActivatedAt = registry.StateActive, &now
	var o ops
	o.persona(p)
	return p, store.Plan{Conds: []store.Cond{{Key: personaPrefix + id, ModRev: rev}}, Ops: o.list}, o.err
}

// ended is the error for a change asked of a retired or refused persona.
func ended(p registry.Persona) error {
	if p.State == registry.StateRefused {
		return fmt.Errorf("%w: %s (%s, generation %d) was refused and never becomes active", registry.ErrRefused, p.Name, p.Address, p.Generation)
	}
	return fmt.Errorf("%w: %s (%s, generation %d) retired and never becomes active again; register a new generation under a new name",
		registry.ErrRetired, p.Name, p.Address, p.Generation)
}

// Refuse records that a pending persona's activation was refused, in one
// transaction of its own; see PlanRefuse.
func (r *Registry) Refuse(ctx context.Context, id, reason string) (registry.Persona, error) {
	var p registry.Persona
	err := r.update(ctx, func() (conds []store.Cond, ops []store.Op, err error) {
		var plan store.Plan
		p, plan, err = r.PlanRefuse(ctx, id, reason)
		return plan.Conds, plan.Ops, err
	})
	if err != nil {
		return registry.Persona{}, fmt.Errorf("refuse %s: %w", id, err)
	}
	return p, nil
}

// PlanRefuse plans recording that a pending persona's activation was
// refused, freeing its seat. Refusing an already refused persona plans
// nothing.
func (r *Registry) PlanRefuse(ctx context.Context, id, reason string) (registry.Persona, store.Plan, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return registry.Persona{}, store.Plan{}, registry.ErrReasonRequired
	}
	p, rev, err := r.getPersona(ctx, id)
	if err != nil {
		return registry.Persona{}, store.Plan{}, err
	}
	switch p.State {
	case registry.StateRefused:
		return p, store.Plan{}, nil
	case registry.StateRetired:
		return registry.Persona{}, store.Plan{}, ended(p)
	case registry.StateActive:
		return registry.Persona{}, store.Plan{}, fmt.Errorf("%w: %s (%s) is already active; retire it instead", registry.ErrNotPending, p.Name, p.Address)
	}
	now := r.stamp()
	p.State, p.RefusedAt, p.RefuseReason = registry.StateRefused, &now, reason
	plan, err := r.leaveSeat(ctx, p, rev)
	return p, plan, err
}

// Retire retires the persona named by ref, in one transaction of its own;
// see PlanRetire.
func (r *Registry) Retire(ctx context.Context, ref, reason string) (registry.Persona, error) {
	var p registry.Persona
	err := r.update(ctx, func() (conds []store.Cond, ops []store.Op, err error) {
		var plan store.Plan
		p, plan, err = r.PlanRetire(ctx, ref, reason)
		return plan.Conds, plan.Ops, err
	})
	if err != nil {
		return registry.Persona{}, fmt.Errorf("retire %s: %w", ref, err)
	}
	return p, nil
}

// PlanRetire plans moving the persona named by ref (an address: its current
// holder; a name; or a generation id) to retired with a reason, freeing its
// seat. Records and the seat's history stay; the persona never becomes
// active again (retiring a retired or refused one is ErrRetired or
// ErrRefused).
func (r *Registry) PlanRetire(ctx context.Context, ref, reason string) (registry.Persona, store.Plan, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return registry.Persona{}, store.Plan{}, fmt.Errorf("%w: say why with --reason", registry.ErrReasonRequired)
	}
	p, rev, err := r.getPersona(ctx, ref)
	if errors.Is(err, registry.ErrNotFound) {
		var found registry.Persona
		if found, err = r.Resolve(ctx, ref); err != nil {
			return registry.Persona{}, store.Plan{}, err
		}
		p, rev, err = r.getPersona(ctx, found.ID)
	}
	if err != nil {
		return registry.Persona{}, store.Plan{}, err
	}
	if !p.State.HoldsSeat() {
		return registry.Persona{}, store.Plan{}, ended(p)
	}
	now := r.stamp()
	p.State, p.RetiredAt, p.RetireReason = registry.StateRetired, &now, reason
	plan, err := r.leaveSeat(ctx, p, rev)
	return p, plan, err
}

// leaveSeat plans writing p (now retired or refused) and clearing its seat's
// holder, guarded on both records' revisions.
func (r *Registry) leaveSeat(ctx context.Context, p registry.Persona, rev int64) (store.Plan, error) {
	seat, seatRev, err := r.getSeat(ctx, p.Address)
	if err != nil {
		return store.Plan{}, err
	}
	if seat.Holder == p.ID {
		seat.Holder = ""
	}
	var o ops
	o.persona(p)
	o.seat(p.Address, seat)
	conds := []store.Cond{{Key: personaPrefix + p.ID, ModRev: rev}, {Key: seatPrefix + p.Address, ModRev: seatRev}}
	return store.Plan{Conds: conds, Ops: o.list}, o.err
}

// Prepare validates a registration and fills its defaults, reading and
// writing nothing: a registration refused here uses up no name and no seat.
// The seat's generation is decided by Admit, inside the transaction.
func (r *Registry) Prepare(reg registry.Registration) (registry.Persona, error) {
	return registry.Prepare(reg, r.home, r.stamp())
}
