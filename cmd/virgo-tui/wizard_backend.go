package main

import (
	"context"
	"errors"
	"slices"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/ui/wizard"
)

// wizardBackend is the persona add wizard's backend over the hub client:
// the same registration persona add's flags make, read and written through
// the hub. The operator binds the new persona to themselves, so the preview
// is exactly the stamp registration writes (identity aside).
type wizardBackend struct{ c *hubclient.Client }

var _ wizard.Backend = wizardBackend{}

// operator is the human principal the client acts as.
func (w wizardBackend) operator(ctx context.Context) (string, error) {
	id, err := w.c.WhoAmI(ctx)
	if err != nil {
		return "", err
	}
	if !id.IsHuman() {
		return "", errors.New("the persona add wizard is for a human operator; " + id.Principal + " is a persona")
	}
	return id.Principal, nil
}

// Snapshot reads every generation ever registered (retired ones keep their
// names for life, holders keep their seats) and free name suggestions.
func (w wizardBackend) Snapshot(ctx context.Context) (wizard.Snapshot, error) {
	op, err := w.operator(ctx)
	if err != nil {
		return wizard.Snapshot{}, err
	}
	views, err := w.c.Personas(ctx, true)
	if err != nil {
		return wizard.Snapshot{}, err
	}
	names, err := w.c.SuggestNames(ctx, 10)
	if err != nil {
		return wizard.Snapshot{}, err
	}
	snap := wizard.Snapshot{Projects: map[string][]string{}, Holders: map[string]registry.Persona{},
		Suggestions: names, Empty: len(views) == 0, Operator: op}
	for _, v := range views {
		p := v.Persona
		snap.Taken = append(snap.Taken, p.Name)
		if p.State.HoldsSeat() {
			snap.Holders[p.Address] = p
		}
		if !slices.Contains(snap.Scopes, p.Scope) {
			snap.Scopes = append(snap.Scopes, p.Scope)
		}
		if p.Project != "" && !slices.Contains(snap.Projects[p.Scope], p.Project) {
			snap.Projects[p.Scope] = append(snap.Projects[p.Scope], p.Project)
		}
	}
	slices.Sort(snap.Scopes)
	for _, ps := range snap.Projects {
		slices.Sort(ps)
	}
	return snap, nil
}

// Preview is the hub's dry run of the registration Submit would make
// (bound to the operator), so the preview is exactly what registration
// writes but for the identity it draws; with the seat's previous stamp for
// the diff.
func (w wizardBackend) Preview(ctx context.Context, r wizard.Registration) (wizard.Preview, error) {
	op, err := w.operator(ctx)
	if err != nil {
		return wizard.Preview{}, err
	}
	pv, err := w.c.PreviewRegistration(ctx, hubapi.RegisterRequest{Address: r.Address.String(), Name: r.Name, Human: op})
	if err != nil {
		return wizard.Preview{}, err
	}
	return wizard.Preview{Stamp: pv.Stamp, Previous: pv.Previous}, nil
}

// Submit registers the persona bound to the operator; its activation is
// queued for them.
func (w wizardBackend) Submit(ctx context.Context, r wizard.Registration) (wizard.Submitted, error) {
	op, err := w.operator(ctx)
	if err != nil {
		return wizard.Submitted{}, err
	}
	res, err := w.c.Register(ctx, hubapi.RegisterRequest{Address: r.Address.String(), Name: r.Name, Human: op})
	if err != nil {
		return wizard.Submitted{}, err
	}
	if res.Confirmation == nil {
		return wizard.Submitted{}, errNoActivation
	}
	return wizard.Submitted{ConfirmationID: res.Confirmation.ID, OperatorIsBoundHuman: res.Persona.Human == op}, nil
}

// Approve approves the activation as the operator.
func (w wizardBackend) Approve(ctx context.Context, id string) error {
	_, err := w.c.Decide(ctx, id, hubapi.DecideRequest{Approve: true})
	return err
}
