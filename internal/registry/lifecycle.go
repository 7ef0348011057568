package registry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// Registration is what persona add asks for. Only Address and Name are
// required; the rest have defaults (see Register).
type Registration struct {
	// Address is the seat path, e.g. work/core/lead.
	Address string
	// Name is the for-life name, unique across the installation in any case.
	Name string
	// Human is the bound human authority (human:<name>); default human:$USER.
	Human string
	// Repository is an existing directory to bind; empty binds none.
	Repository string
	// SessionLineage is the native session lineage id; generated when empty.
	SessionLineage string
	// CharacterHash is the character composition hash; derived when empty.
	CharacterHash string
	// Pending registers the generation awaiting confirmation: it holds the
	// seat, but becomes active only through Activate.
	Pending bool
}

// Register grants the seat at reg.Address to a new persona generation and
// creates the generation's private directory. The seat must have no pending
// or active holder (ErrSeatTaken names it) and the name must never have been
// used (ErrNameTaken). The generation number is one more than the seat's
// holders so far.
func (r *Registry) Register(ctx context.Context, reg Registration) (Persona, error) {
	p, err := r.newPersona(reg)
	if err != nil {
		return Persona{}, err
	}
	dir, err := r.home.makeGenerationDir(p.ID)
	if err != nil {
		return Persona{}, fmt.Errorf("register %s: %w", p.Address, err)
	}
	err = r.update(ctx, func() ([]store.Cond, []store.Op, error) {
		seat, seatRev, err := r.getSeat(ctx, p.Address)
		if err != nil {
			return nil, nil, err
		}
		if seat.Holder != "" {
			return nil, nil, r.seatTaken(ctx, p.Address, seat.Holder)
		}
		nk := namePrefix + nameKey(p.Name)
		if kv, err := r.s.Get(ctx, nk); err == nil {
			return nil, nil, r.nameTaken(ctx, p.Name, string(kv.Value))
		} else if !errors.Is(err, store.ErrNotFound) {
			return nil, nil, fmt.Errorf("read name %s: %w", p.Name, err)
		}
		p.Generation = len(seat.History) + 1
		seat.Holder = p.ID
		seat.History = append(seat.History, p.ID)
		var o ops
		o.persona(p)
		o.seat(p.Address, seat)
		o.list = append(o.list, store.Put(nk, []byte(p.ID)))
		conds := []store.Cond{{Key: seatPrefix + p.Address, ModRev: seatRev}, {Key: nk}, {Key: personaPrefix + p.ID}}
		return conds, o.list, o.err
	})
	if err != nil {
		os.Remove(dir)
		return Persona{}, fmt.Errorf("register %s: %w", p.Address, err)
	}
	return p, nil
}

// newPersona validates a registration and fills the defaults; the seat's
// generation is decided inside the transaction.
func (r *Registry) newPersona(reg Registration) (Persona, error) {
	addr, err := ParseAddress(strings.TrimSpace(reg.Address))
	if err != nil {
		return Persona{}, err
	}
	name, err := NormalizeName(reg.Name)
	if err != nil {
		return Persona{}, err
	}
	human, err := NormalizeHuman(reg.Human)
	if err != nil {
		return Persona{}, err
	}
	repo, err := normalizeRepository(reg.Repository)
	if err != nil {
		return Persona{}, err
	}
	lineage := reg.SessionLineage
	if lineage == "" {
		lineage = "ses-" + randomHex(16)
	} else if err := checkToken("session lineage", lineage); err != nil {
		return Persona{}, err
	}
	character := reg.CharacterHash
	if character == "" {
		character = deriveCharacterHash(name, addr.String(), addr.Profile())
	} else if err := checkToken("character hash", character); err != nil {
		return Persona{}, err
	}
	now := r.stamp()
	p := Persona{
		ID: randomHex(8), Name: name,
		Address: addr.String(), Scope: addr.Scope, Project: addr.Project, Role: addr.Role, Profile: addr.Profile(),
		SessionLineage: lineage, CharacterHash: character, Repository: repo, Human: human,
		State: StateActive, CreatedAt: now, ActivatedAt: &now,
	}
	if reg.Pending {
		p.State, p.ActivatedAt = StatePending, nil
	}
	return p, nil
}

// seatTaken builds ErrSeatTaken naming the holder.
func (r *Registry) seatTaken(ctx context.Context, addr, holderID string) error {
	h, _, err := r.getPersona(ctx, holderID)
	if err != nil {
		return err
	}
	return SeatTakenError(addr, h)
}

// SeatTakenError is ErrSeatTaken for addr naming its holder h, in the words
// registration and the wizard's role step both show.
func SeatTakenError(addr string, h Persona) error {
	if h.State == StatePending {
		return fmt.Errorf("%w: %s is held by %s (generation %d, pending confirmation); refuse or retire it first",
			ErrSeatTaken, addr, h.Name, h.Generation)
	}
	return fmt.Errorf("%w: %s is held by %s (generation %d); retire it first", ErrSeatTaken, addr, h.Name, h.Generation)
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
	return fmt.Errorf("%w: %q belongs to %s (%s, generation %d, %s); names are for life, choose another%s",
		ErrNameTaken, name, o.Name, o.Address, o.Generation, o.State, hint)
}

// Activate turns a pending persona active: the confirmation was approved.
// Activating an active persona is a no-op; a retired or refused one never
// becomes active (ErrRetired, ErrRefused).
func (r *Registry) Activate(ctx context.Context, id string) (Persona, error) {
	var p Persona
	err := r.update(ctx, func() ([]store.Cond, []store.Op, error) {
		var rev int64
		var err error
		if p, rev, err = r.getPersona(ctx, id); err != nil {
			return nil, nil, err
		}
		switch p.State {
		case StateActive:
			return nil, nil, nil
		case StatePending:
		default:
			return nil, nil, ended(p)
		}
		now := r.stamp()
		p.State, p.ActivatedAt = StateActive, &now
		var o ops
		o.persona(p)
		return []store.Cond{{Key: personaPrefix + id, ModRev: rev}}, o.list, o.err
	})
	if err != nil {
		return Persona{}, fmt.Errorf("activate %s: %w", id, err)
	}
	return p, nil
}

// ended is the error for a change asked of a retired or refused persona.
func ended(p Persona) error {
	if p.State == StateRefused {
		return fmt.Errorf("%w: %s (%s, generation %d) was refused and never becomes active", ErrRefused, p.Name, p.Address, p.Generation)
	}
	return fmt.Errorf("%w: %s (%s, generation %d) retired and never becomes active again; register a new generation under a new name",
		ErrRetired, p.Name, p.Address, p.Generation)
}

// Refuse records that a pending persona's activation was refused and frees
// its seat. Refusing an already refused persona is a no-op.
func (r *Registry) Refuse(ctx context.Context, id, reason string) (Persona, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return Persona{}, fmt.Errorf("refuse %s: %w", id, ErrReasonRequired)
	}
	var p Persona
	err := r.update(ctx, func() ([]store.Cond, []store.Op, error) {
		var rev int64
		var err error
		if p, rev, err = r.getPersona(ctx, id); err != nil {
			return nil, nil, err
		}
		switch p.State {
		case StateRefused:
			return nil, nil, nil
		case StateRetired:
			return nil, nil, ended(p)
		case StateActive:
			return nil, nil, fmt.Errorf("%w: %s (%s) is already active; retire it instead", ErrNotPending, p.Name, p.Address)
		}
		now := r.stamp()
		p.State, p.RefusedAt, p.RefuseReason = StateRefused, &now, reason
		return r.leaveSeat(ctx, p, rev)
	})
	if err != nil {
		return Persona{}, fmt.Errorf("refuse %s: %w", id, err)
	}
	return p, nil
}

// Retire moves the persona named by ref (an address: its current holder; or
// a name) to retired with a reason, and frees its seat. Records and the
// seat's history stay; the persona never becomes active again.
func (r *Registry) Retire(ctx context.Context, ref, reason string) (Persona, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return Persona{}, fmt.Errorf("retire %s: %w: say why with --reason", ref, ErrReasonRequired)
	}
	var p Persona
	err := r.update(ctx, func() ([]store.Cond, []store.Op, error) {
		found, err := r.Resolve(ctx, ref)
		if err != nil {
			return nil, nil, err
		}
		var rev int64
		if p, rev, err = r.getPersona(ctx, found.ID); err != nil {
			return nil, nil, err
		}
		if !p.State.HoldsSeat() {
			return nil, nil, ended(p)
		}
		now := r.stamp()
		p.State, p.RetiredAt, p.RetireReason = StateRetired, &now, reason
		return r.leaveSeat(ctx, p, rev)
	})
	if err != nil {
		return Persona{}, fmt.Errorf("retire %s: %w", ref, err)
	}
	return p, nil
}

// leaveSeat writes p (now retired or refused) and clears its seat's holder,
// guarded on both records' revisions.
func (r *Registry) leaveSeat(ctx context.Context, p Persona, rev int64) ([]store.Cond, []store.Op, error) {
	seat, seatRev, err := r.getSeat(ctx, p.Address)
	if err != nil {
		return nil, nil, err
	}
	if seat.Holder == p.ID {
		seat.Holder = ""
	}
	var o ops
	o.persona(p)
	o.seat(p.Address, seat)
	conds := []store.Cond{{Key: personaPrefix + p.ID, ModRev: rev}, {Key: seatPrefix + p.Address, ModRev: seatRev}}
	return conds, o.list, o.err
}

// SetStampHash records the hash of the generation's capability stamp. A
// stamp is written once: setting the same hash again is a no-op, a different
// one is ErrStampSet.
func (r *Registry) SetStampHash(ctx context.Context, id, hash string) (Persona, error) {
	if err := checkToken("stamp hash", hash); err != nil {
		return Persona{}, fmt.Errorf("set stamp hash of %s: %w", id, err)
	}
	var p Persona
	err := r.update(ctx, func() ([]store.Cond, []store.Op, error) {
		var rev int64
		var err error
		if p, rev, err = r.getPersona(ctx, id); err != nil {
			return nil, nil, err
		}
		switch {
		case p.StampHash == hash:
			return nil, nil, nil
		case p.StampHash != "":
			return nil, nil, fmt.Errorf("%w: %s already has stamp %s; a stamp is never rewritten", ErrStampSet, p.Name, p.StampHash)
		case !p.State.HoldsSeat():
			return nil, nil, ended(p)
		}
		p.StampHash = hash
		var o ops
		o.persona(p)
		return []store.Cond{{Key: personaPrefix + id, ModRev: rev}}, o.list, o.err
	})
	if err != nil {
		return Persona{}, fmt.Errorf("set stamp hash of %s: %w", id, err)
	}
	return p, nil
}
