package hub

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// Register grants a seat to a new pending generation, writes its stamp
// (once, 0600, in its private directory), and queues the activation — a
// permission change — for the bound human, with the class-matrix diff
// against the seat's previous generation. The persona becomes active only
// when that confirmation is approved.
func (h *Hub) Register(ctx context.Context, req hubapi.RegisterRequest) (hubapi.Registered, error) {
	p, err := h.reg.Register(ctx, registry.Registration{Address: req.Address, Name: req.Name, Human: req.Human,
		Repository: req.Repository, SessionLineage: req.SessionLineage, CharacterHash: req.CharacterHash, Pending: true})
	if err != nil {
		return hubapi.Registered{}, err
	}
	refuse := func(cause error) (hubapi.Registered, error) {
		if _, rerr := h.reg.Refuse(ctx, p.ID, "registration failed: "+cause.Error()); rerr != nil {
			cause = errors.Join(cause, rerr)
		}
		return hubapi.Registered{}, fmt.Errorf("register %s: %w", p.Address, cause)
	}
	in := stamp.InputFor(p, stamp.Bindings{HumanSurfaces: req.HumanSurfaces})
	st, err := stamp.Build(in)
	if err != nil {
		return refuse(err)
	}
	hash, err := stamp.Write(h.cfg.Home.GenerationDir(p.ID), st)
	if err != nil {
		return refuse(err)
	}
	if p, err = h.reg.SetStampHash(ctx, p.ID, hash); err != nil {
		return refuse(err)
	}
	prev, err := h.previousStamp(ctx, p)
	if err != nil {
		return refuse(err)
	}
	res, err := h.queue.RequestActivation(ctx, &st, hash, stamp.RenderDiff(stamp.Diff(prev, st)))
	if err != nil {
		return refuse(err)
	}
	return hubapi.Registered{Persona: p, StampHash: hash, Confirmation: res.Confirmation}, h.Settle(ctx)
}

// previousStamp is the stamp of the seat's previous generation, or the
// zero stamp ("nothing") for a new seat or one whose stamp is unreadable.
func (h *Hub) previousStamp(ctx context.Context, p registry.Persona) (stamp.Stamp, error) {
	hist, err := h.reg.SeatHistory(ctx, p.Address)
	if err != nil {
		return stamp.Stamp{}, err
	}
	for i := len(hist) - 1; i >= 0; i-- {
		if q := hist[i]; q.ID != p.ID && q.Generation < p.Generation && q.StampHash != "" {
			if st, err := h.loadStamp(q); err == nil {
				return st, nil
			}
		}
	}
	return stamp.Stamp{}, nil
}

// loadStamp reads a generation's stamp and checks it against its recorded hash.
func (h *Hub) loadStamp(p registry.Persona) (stamp.Stamp, error) {
	if p.StampHash == "" {
		return stamp.Stamp{}, fmt.Errorf("%s (%s): %w", p.Address, p.Name, hubapi.ErrNoStamp)
	}
	return stamp.Load(filepath.Join(h.cfg.Home.GenerationDir(p.ID), stamp.FileName), p.StampHash)
}

// lifecycle adapts the registry to what confirm.ApplyLifecycle needs.
type lifecycle struct{ reg *registry.Registry }

// Activate activates a pending generation.
func (l lifecycle) Activate(ctx context.Context, id string) error {
	_, err := l.reg.Activate(ctx, id)
	return err
}

// Refuse records a refused activation.
func (l lifecycle) Refuse(ctx context.Context, id, reason string) error {
	_, err := l.reg.Refuse(ctx, id, reason)
	return err
}

// Retire retires a generation by id; retiring a retired one is a no-op.
func (l lifecycle) Retire(ctx context.Context, id, reason string) error {
	p, err := l.reg.Get(ctx, id)
	if err != nil {
		return err
	}
	if p.State == registry.StateRetired {
		return nil
	}
	_, err = l.reg.Retire(ctx, p.Name, reason)
	return err
}

// seatHolders adapts the registry to confirm.SeatHolders.
type seatHolders struct{ reg *registry.Registry }

// ActiveHolder is the name of the seat's active holder.
func (s seatHolders) ActiveHolder(ctx context.Context, address string) (string, bool, error) {
	p, err := s.reg.Resolve(ctx, address)
	if errors.Is(err, registry.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	if p.State != registry.StateActive {
		return "", false, nil
	}
	return p.Name, true, nil
}

// reconcileLifecycle applies decided activations and retirements whose
// effect did not land (the hub stopped between the decision's commit and
// the registry's change), so a decision is never half carried out.
func (h *Hub) reconcileLifecycle(ctx context.Context) error {
	cs, err := h.queue.List(ctx, true)
	if err != nil {
		return fmt.Errorf("hub: reconcile decisions: %w", err)
	}
	for _, c := range cs {
		if c.Kind == confirm.KindOperation || c.Decision == nil {
			continue
		}
		p, err := h.reg.Get(ctx, c.PersonaID)
		if err != nil {
			continue
		}
		pending := p.State == registry.StatePending
		retiring := c.Kind == confirm.KindRetirement && c.State == confirm.StateApproved && p.State == registry.StateActive
		if !pending && !retiring {
			continue
		}
		if err := confirm.ApplyLifecycle(ctx, c, lifecycle{h.reg}); err != nil {
			h.log.Warn("could not apply a decided confirmation", "confirmation", c.ID, "err", err)
		}
	}
	return nil
}
