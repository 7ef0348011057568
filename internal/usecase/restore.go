package usecase

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/snapshot"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// ErrNotThisGeneration: a snapshot names a generation id this installation
// holds, but of another seat or session lineage: it is not that
// generation's snapshot, and nothing of it is restored.
var ErrNotThisGeneration = errors.New("the snapshot's generation id belongs to another generation here")

// ErrRestoreUnfinished: a restore committed its first transaction and not
// all of the rest; running the same restore again writes what is missing.
var ErrRestoreUnfinished = errors.New("restore unfinished: run the same restore again to write the rest")

// restoreReserve is room kept in a restore's first transaction beside the
// learned choices it carries.
const restoreReserve = 4

// Restored is the answer of a snapshot restore.
type Restored struct {
	// Persona is the generation the layer was restored to.
	Persona registry.Persona `json:"persona"`
	// Registered: the snapshot's generation is not this installation's,
	// so a new pending generation of its seat was registered, its
	// activation queued (Confirmation) for the bound human.
	Registered   bool                  `json:"registered"`
	Confirmation *confirm.Confirmation `json:"confirmation,omitempty"`
	// Renamed: the snapshot's name is taken here; the new generation has
	// the name in Persona.
	Renamed bool `json:"renamed"`
	// Unbound is the repository binding the snapshot had and this host
	// lacks: the new generation is registered without it.
	Unbound string `json:"unbound,omitempty"`
	// StampEqual: the generation's stamp hash here is the snapshot's, so
	// its learned choices match as they were. Otherwise every one of them
	// waits for a human's review (prompts review): never silently widened.
	StampEqual bool `json:"stamp_equal"`
	// Written is how many learned choices were written, Present how many
	// were there already, Review how many of the snapshot's wait for a
	// human's review.
	Written int `json:"written"`
	Present int `json:"present"`
	Review  int `json:"review"`
	// Stamp is true when the stamp bytes, missing from the store, were
	// written back.
	Stamp bool `json:"stamp_restored"`
}

// Restore restores a verified snapshot (snapshot.Open) into this
// installation. When the snapshot's generation is this installation's own
// (its id, seat and lineage), its layer is put back under the same lineage:
// the learned choices and, when the store lost them, the stamp bytes;
// whatever is stored is kept. Otherwise a new pending generation of the
// seat is registered — the same id, lineage, character and bound human, a
// new name when its own is taken here — with the stamp the factory builds
// for it, its activation queued for the bound human as any registration's
// is, and the learned choices written under the keys they were learned
// under: when the new stamp's hash is the snapshot's they match as they
// were; when it is not they wait in prompts review, and the first matching
// request asks again until a human carries them forward. A class-overlay
// choice then waits in the persona's experience layer instead, so it
// widens no other persona of the class.
//
// The registration (or the guard on the generation's record), the stamp
// and the first learned choices are one transaction; choices beyond one
// transaction's size follow in transactions of their own right after. A
// restore cut between them left the generation with part of its layer,
// and running it again writes the rest (ErrRestoreUnfinished).
func (u *Cases) Restore(ctx context.Context, s snapshot.Contents) (Restored, error) {
	src := s.Persona
	var out Restored
	var pending []confirm.Choice
	dir := u.home.GenerationDir(src.ID)
	wrote := false
	err := u.commit(ctx, UseRestore, "restore "+src.Address, func() (store.Plan, error) {
		if wrote {
			if err := os.RemoveAll(dir); err != nil {
				return store.Plan{}, err
			}
			wrote = false
		}
		out = Restored{}
		var plan store.Plan
		var keys confirm.Keys
		here, cond, err := u.reg.GetGuarded(ctx, src.ID)
		switch {
		case err == nil:
			if here.Address != src.Address || here.SessionLineage != src.SessionLineage {
				return store.Plan{}, fmt.Errorf("%w: %s is %s (%s, lineage %s), the snapshot's is %s (lineage %s)", ErrNotThisGeneration,
					src.ID, here.Name, here.Address, here.SessionLineage, src.Address, src.SessionLineage)
			}
			out.Persona = here
			plan.Conds = append(plan.Conds, cond)
			if plan, err = u.planStampBack(ctx, here, s.Stamp, plan, &out); err != nil {
				return store.Plan{}, err
			}
			if here.StampHash != "" {
				if keys, err = u.LearnKeys(ctx, here); err != nil {
					return store.Plan{}, err
				}
			}
		case errors.Is(err, registry.ErrNotFound):
			wrote = true
			if plan, keys, err = u.planRestoredGeneration(ctx, s, dir, &out); err != nil {
				return store.Plan{}, err
			}
		default:
			return store.Plan{}, err
		}
		out.StampEqual = keys.StampHash == src.StampHash
		pending = layer(s, out.Persona, out.StampEqual)
		for _, c := range pending {
			if !(c.Where == confirm.RememberClass && c.Key.ClassKey == keys.ClassKey || c.Key.StampHash == keys.StampHash) {
				out.Review++
			}
		}
		room := max(0, min(store.MaxTxnOps-len(plan.Ops), store.MaxTxnOps-len(plan.Conds))-restoreReserve)
		first, rest, there, err := u.queue.Prompts().PlanRestore(ctx, pending, room)
		if err != nil {
			return store.Plan{}, err
		}
		out.Written, out.Present = len(first.Ops), there
		plan.Join(first)
		pending = rest
		return plan, nil
	})
	if err != nil && wrote {
		if rerr := os.RemoveAll(dir); rerr != nil {
			u.log.Warn("could not remove the stamp of a restore that did not commit; the next start removes it", "dir", dir, "err", rerr)
		}
	}
	if err != nil {
		return Restored{}, fmt.Errorf("restore %s: %w", src.Address, err)
	}
	for len(pending) > 0 {
		batch := pending
		var written, there int
		err := u.commit(ctx, UseRestore, "restore "+src.Address+" learned choices", func() (store.Plan, error) {
			plan, rest, present, err := u.queue.Prompts().PlanRestore(ctx, batch, store.MaxTxnOps)
			written, there, pending = len(plan.Ops), present, rest
			return plan, err
		})
		if err != nil {
			return out, fmt.Errorf("restore %s: %w (%d learned choices not written): %w", src.Address, ErrRestoreUnfinished, len(batch), err)
		}
		out.Written, out.Present = out.Written+written, out.Present+there
	}
	return out, nil
}

// planStampBack plans writing generation p's stamp bytes b back when the
// store lost them and they are the ones its record names (their hash).
func (u *Cases) planStampBack(ctx context.Context, p registry.Persona, b []byte, plan store.Plan, out *Restored) (store.Plan, error) {
	if p.StampHash == "" {
		return plan, nil
	}
	_, err := u.st.Get(ctx, stampStoreKey(p.ID))
	if err == nil || !errors.Is(err, store.ErrNotFound) {
		return plan, err
	}
	if err := stamp.VerifyHash("the snapshot's stamp", b, p.StampHash); err != nil {
		return store.Plan{}, err
	}
	plan.Join(storeStampPlan(p.ID, b))
	out.Stamp = true
	return plan, nil
}

// planRestoredGeneration plans registering the snapshot's generation as a
// new pending generation of its seat here (see Restore).
func (u *Cases) planRestoredGeneration(ctx context.Context, s snapshot.Contents, dir string, out *Restored) (store.Plan, confirm.Keys, error) {
	src := s.Persona
	var surfaces []stamp.SurfaceBinding
	if len(s.Stamp) > 0 {
		st, err := stamp.Decode(snapshot.MemberStamp, s.Stamp)
		if err != nil {
			return store.Plan{}, confirm.Keys{}, err
		}
		surfaces = st.HumanSurfaces
	}
	reg := registry.Registration{Address: src.Address, Name: src.Name, Human: src.Human, Repository: src.Repository,
		SessionLineage: src.SessionLineage, CharacterHash: src.CharacterHash}
	if fi, err := os.Stat(src.Repository); src.Repository != "" && (err != nil || !fi.IsDir()) {
		reg.Repository, out.Unbound = "", src.Repository
	}
	for {
		p, err := u.prepare(Registration{Registration: reg})
		if err != nil {
			return store.Plan{}, confirm.Keys{}, err
		}
		p.ID = src.ID
		r, st, plan, err := u.planAdmission(ctx, p, surfaces, dir)
		if errors.Is(err, registry.ErrNameTaken) && !out.Renamed {
			free, serr := u.reg.SuggestNames(ctx, 1)
			if serr != nil {
				return store.Plan{}, confirm.Keys{}, errors.Join(err, serr)
			}
			reg.Name, out.Renamed = free[0], true
			continue
		}
		if err != nil {
			return store.Plan{}, confirm.Keys{}, err
		}
		out.Persona, out.Registered, out.Confirmation = r.Persona, true, r.Confirmation
		keys, err := confirm.KeysOf(&st, r.StampHash)
		return plan, keys, err
	}
}

// layer is the snapshot's learned choices as they are written for p: the
// experience layer under the keys they were learned under, the seat's
// address being p's; the class-overlay entries as they were when the stamp
// is equal, and otherwise moved to p's experience layer under the
// snapshot's stamp hash, where they wait for review with the rest.
func layer(s snapshot.Contents, p registry.Persona, equal bool) []confirm.Choice {
	out := make([]confirm.Choice, 0, len(s.Experience)+len(s.ClassOverlay))
	out = append(out, s.Experience...)
	for _, c := range s.ClassOverlay {
		if !equal {
			c.Where, c.Persona = confirm.RememberPersona, p.Address
			c.Key.StampHash, c.Key.ClassKey = s.Persona.StampHash, ""
		}
		out = append(out, c)
	}
	return out
}
