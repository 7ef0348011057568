package usecase

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// Registration is what persona add asks for: the registry's registration
// (its Pending is ignored: a registration through the use case is always
// pending its activation) and the human-surface bindings of the stamp.
type Registration struct {
	registry.Registration
	// HumanSurfaces are the persona's human-surface bindings.
	HumanSurfaces []stamp.SurfaceBinding
}

// ErrCredentialValue: a registration field that goes into the stamp holds
// what looks like a credential; a stamp carries bindings, never credentials.
var ErrCredentialValue = errors.New("stamps carry bindings only, never credentials")

// prepare validates in and fills its defaults as a pending registration.
// The fields a registration writes into the stamp as given are first held
// to the secret material table's credential values (before the registry's
// checks, whose refusals quote what they refuse).
func (u *Cases) prepare(in Registration) (registry.Persona, error) {
	reg := in.Registration
	for _, f := range []struct{ name, value string }{
		{"character hash", reg.CharacterHash}, {"session lineage", reg.SessionLineage},
	} {
		if c, found := confirm.CredentialIn(f.value); found {
			return registry.Persona{}, fmt.Errorf("%s: the value (%d bytes, not repeated here) looks like a credential: %s; %w: give a hash or an id, or leave it empty to have one made",
				f.name, len(f.value), c.What, ErrCredentialValue)
		}
	}
	reg.Pending = true
	return u.reg.Prepare(reg)
}

// Registered is the answer of a registration: the pending generation and
// the activation confirmation queued for its bound human.
type Registered struct {
	Persona      registry.Persona      `json:"persona"`
	StampHash    string                `json:"stamp_hash"`
	Confirmation *confirm.Confirmation `json:"confirmation"`
}

// Register grants a seat to a new pending generation and queues its
// activation — a permission change — for the bound human, with the
// class-matrix diff against the seat's previous generation. The generation
// becomes active only when that confirmation is approved (Decide).
//
// It is one transaction: the persona, its seat, its name, its stamp hash
// and bytes (StampPrefix), the activation confirmation and its audit entry
// commit together or not at all. The stamp file (this host's local copy) is written (once, 0600, in the generation's private
// directory) just before that transaction; if the transaction does not
// commit, the directory is removed, and a directory a crash left behind is
// unreferenced and removed at the hub's next start (SweepStampDirs). A
// registration refused by validation stores nothing and uses up no name.
//
// With a Key, the answer is recorded in the same transaction, and the same
// request sent again with that Key is answered with it (see Key).
func (u *Cases) Register(ctx context.Context, k Key, in Registration) (Registered, error) {
	p, err := u.prepare(in)
	if err != nil {
		return Registered{}, err
	}
	dir := u.home.GenerationDir(p.ID)
	var out Registered
	wrote := false
	err = u.commit(ctx, UseRegister, "register "+p.Address, func() (store.Plan, error) {
		if ok, err := u.replayed(ctx, k, &out); ok || err != nil {
			if wrote { // a concurrent request with this key won
				wrote = false
				return store.Plan{}, errors.Join(err, os.RemoveAll(dir))
			}
			return store.Plan{}, err
		}
		// A plan made again after a conflict may decide another generation:
		// its stamp is written anew.
		if wrote {
			if err := os.RemoveAll(dir); err != nil {
				return store.Plan{}, err
			}
			wrote = false
		}
		wrote = true
		var plan store.Plan
		out, _, plan, err = u.planAdmission(ctx, p, in.HumanSurfaces, dir)
		if err != nil {
			return store.Plan{}, err
		}
		rec, err := u.record(k, out)
		plan.Join(rec)
		return plan, err
	})
	if err != nil && wrote {
		if rerr := os.RemoveAll(dir); rerr != nil {
			u.log.Warn("could not remove the stamp of a registration that did not commit; the next start removes it", "dir", dir, "err", rerr)
		}
	}
	if err != nil {
		return Registered{}, fmt.Errorf("register %s: %w", p.Address, err)
	}
	return out, nil
}

// planAdmission plans admitting the pending generation p to its seat with
// the stamp the factory builds for it (with surfaces), the stamp written
// to dir first, and queueing its activation for the bound human with the
// class-matrix diff against the seat's previous generation; it returns the
// stamp too. The caller removes dir when what it plans does not commit.
func (u *Cases) planAdmission(ctx context.Context, p registry.Persona, surfaces []stamp.SurfaceBinding, dir string) (Registered, stamp.Stamp, store.Plan, error) {
	a, err := u.reg.Admit(ctx, p)
	if err != nil {
		return Registered{}, stamp.Stamp{}, store.Plan{}, err
	}
	st, prev, err := u.stampFor(ctx, a.Persona, surfaces)
	if err != nil {
		return Registered{}, stamp.Stamp{}, store.Plan{}, err
	}
	diff := stamp.RenderDiff(stamp.Diff(prev, st))
	if _, err := u.home.MakeGenerationDir(p.ID); err != nil {
		return Registered{}, stamp.Stamp{}, store.Plan{}, err
	}
	hash, stampBytes, err := stamp.Write(dir, st)
	if err != nil {
		return Registered{}, stamp.Stamp{}, store.Plan{}, err
	}
	u.fail.at(UseRegister, StepAfterStamp)
	plan, err := a.Plan(hash)
	if err != nil {
		return Registered{}, stamp.Stamp{}, store.Plan{}, err
	}
	plan.Join(storeStampPlan(p.ID, stampBytes))
	res, activation, err := u.queue.PlanActivation(ctx, &st, hash, diff)
	if err != nil {
		return Registered{}, stamp.Stamp{}, store.Plan{}, err
	}
	plan.Join(activation)
	return Registered{Persona: a.Recorded(hash), StampHash: hash, Confirmation: res.Confirmation}, st, plan, nil
}

// stampFor builds the stamp of a new generation and reads the stamp of the
// seat's previous generation (the zero stamp for none) to diff it against.
func (u *Cases) stampFor(ctx context.Context, p registry.Persona, surfaces []stamp.SurfaceBinding) (stamp.Stamp, stamp.Stamp, error) {
	st, err := stamp.Build(stamp.InputFor(p, stamp.Bindings{HumanSurfaces: surfaces}))
	if err != nil {
		return stamp.Stamp{}, stamp.Stamp{}, err
	}
	prev, err := u.previousStamp(ctx, p)
	return st, prev, err
}

// previousStamp is the stamp of the seat's previous generation, or the
// zero stamp ("nothing") for a new seat or one whose stamp is unreadable.
func (u *Cases) previousStamp(ctx context.Context, p registry.Persona) (stamp.Stamp, error) {
	hist, err := u.reg.SeatHistory(ctx, p.Address)
	if errors.Is(err, registry.ErrNotFound) {
		return stamp.Stamp{}, nil // a seat never granted before
	}
	if err != nil {
		return stamp.Stamp{}, err
	}
	for i := len(hist) - 1; i >= 0; i-- {
		if q := hist[i]; q.ID != p.ID && q.Generation < p.Generation && q.StampHash != "" {
			if st, err := u.LoadStamp(ctx, q); err == nil {
				return st, nil
			}
		}
	}
	return stamp.Stamp{}, nil
}

// Preview is what a registration would write, planned by the registration
// use case itself and not committed: the generation as it would be stored,
// its stamp and hash, and the seat's previous stamp (nil for a seat never
// held) that the class-matrix diff is taken against. The generation's id,
// session lineage and character hash are drawn again when it registers.
type Preview struct {
	Persona   registry.Persona `json:"persona"`
	StampHash string           `json:"stamp_hash"`
	Stamp     stamp.Stamp      `json:"stamp"`
	Previous  *stamp.Stamp     `json:"previous"`
}

// Preview runs the registration use case as a dry run: the same
// validation, admission (seat and name), stamp and validators as Register,
// and writes nothing — no stamp file, no record, no name used up. A refusal
// here is the refusal Register would give.
func (u *Cases) Preview(ctx context.Context, in Registration) (Preview, error) {
	p, err := u.prepare(in)
	if err != nil {
		return Preview{}, err
	}
	a, err := u.reg.Admit(ctx, p)
	if err != nil {
		return Preview{}, fmt.Errorf("register %s: %w", p.Address, err)
	}
	st, prev, err := u.stampFor(ctx, a.Persona, in.HumanSurfaces)
	if err != nil {
		return Preview{}, err
	}
	hash, err := stamp.Encode(st)
	if err != nil {
		return Preview{}, err
	}
	out := Preview{Persona: a.Recorded(hash), StampHash: hash, Stamp: st}
	if prev.Persona.ID != "" {
		out.Previous = &prev
	}
	return out, nil
}
