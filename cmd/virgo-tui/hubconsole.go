package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/ui"
)

// consoleClient adapts the hub client to the console's ui.Client: the
// console knows nothing of the hub, and the hub nothing of the terminal.
// It keeps the last persona records so that a presence change (which
// carries presence only) becomes a whole row.
type consoleClient struct {
	c    *hubclient.Client
	home string

	mu       sync.Mutex
	personas map[string]ui.Persona
}

func newConsoleClient(c *hubclient.Client) *consoleClient {
	return &consoleClient{c: c, home: c.Home(), personas: map[string]ui.Persona{}}
}

// Snapshot maps the hub's snapshot: every generation but refused ones, and
// the pending confirmations.
func (k *consoleClient) Snapshot(ctx context.Context) (ui.Snapshot, error) {
	s, err := k.c.Snapshot(ctx)
	if err != nil {
		return ui.Snapshot{}, err
	}
	out := ui.Snapshot{Installation: filepath.Base(k.home), Home: k.home, Operator: s.Operator.Principal, Seq: s.Seq}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.personas = map[string]ui.Persona{}
	for _, v := range s.Personas {
		if v.Persona.State == registry.StateRefused {
			continue
		}
		p := uiPersona(v.Persona)
		if v.Presence != nil {
			withPresence(&p, *v.Presence)
		}
		k.personas[p.ID] = p
		out.Personas = append(out.Personas, p)
	}
	for _, c := range s.Confirmations {
		out.Confirmations = append(out.Confirmations, uiConfirmation(c))
	}
	return out, nil
}

// Subscribe maps the hub's stream. A resync ends the channel: the console
// then takes a fresh Snapshot and subscribes after its Seq.
func (k *consoleClient) Subscribe(ctx context.Context, after uint64) (<-chan ui.Batch, error) {
	ctx, cancel := context.WithCancel(ctx)
	in := k.c.Subscribe(ctx, after)
	out := make(chan ui.Batch, 16)
	go func() {
		defer close(out)
		defer cancel()
		for batch := range in {
			var b ui.Batch
			for _, ch := range batch {
				if ch.Kind == hubapi.KindResync {
					if len(b.Changes) > 0 {
						select {
						case out <- b:
						case <-ctx.Done():
						}
					}
					return
				}
				if c, ok := k.change(ch); ok {
					b.Changes = append(b.Changes, c)
				}
			}
			if len(b.Changes) == 0 {
				continue
			}
			select {
			case out <- b:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// change maps one hub change; ok is false for kinds the console ignores.
func (k *consoleClient) change(ch hubapi.Change) (ui.Change, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	switch ch.Kind {
	case hubapi.KindPresence:
		var pr hubapi.Presence
		if json.Unmarshal(ch.Data, &pr) != nil {
			return ui.Change{}, false
		}
		p, ok := k.personas[pr.ID]
		if !ok {
			p = ui.Persona{ID: pr.ID, Address: pr.Address, Name: pr.Name, Generation: pr.Generation}
		}
		withPresence(&p, pr)
		k.personas[p.ID] = p
		return ui.Change{Seq: ch.Seq, Kind: ui.PersonaChanged, Persona: p}, true
	case hubapi.KindPersona:
		var rp registry.Persona
		if json.Unmarshal(ch.Data, &rp) != nil {
			return ui.Change{}, false
		}
		if rp.State == registry.StateRefused {
			delete(k.personas, rp.ID)
			return ui.Change{Seq: ch.Seq, Kind: ui.PersonaRemoved, ID: rp.ID}, true
		}
		p := uiPersona(rp)
		if old, ok := k.personas[rp.ID]; ok && rp.State == registry.StateActive {
			p.State, p.Activity, p.Summary, p.LastSeen, p.Waiting = old.State, old.Activity, old.Summary, old.LastSeen, old.Waiting
		}
		k.personas[p.ID] = p
		return ui.Change{Seq: ch.Seq, Kind: ui.PersonaChanged, Persona: p}, true
	case hubapi.KindConfirmation:
		var c confirm.Confirmation
		if json.Unmarshal(ch.Data, &c) != nil {
			return ui.Change{}, false
		}
		if c.State == confirm.StatePending {
			return ui.Change{Seq: ch.Seq, Kind: ui.ConfirmationPending, Confirmation: uiConfirmation(&c)}, true
		}
		by := ""
		if c.Decision != nil {
			by = c.Decision.Decider.String()
		}
		return ui.Change{Seq: ch.Seq, Kind: ui.ConfirmationDecided, ID: c.ID, DecidedBy: by, Outcome: string(c.State)}, true
	}
	return ui.Change{}, false
}

// Decide sends the operator's decision; "remember" learns it in the
// overlay of the rule the remember dialog showed.
func (k *consoleClient) Decide(ctx context.Context, id string, d ui.Decision) error {
	req := hubapi.DecideRequest{Approve: d.Approve, Reason: d.Reason}
	if d.Remember {
		req.Remember = confirm.RememberPersona
		if d.Overlay == ui.OverlayClass {
			req.Remember = confirm.RememberClass
		}
	}
	_, err := k.c.Decide(ctx, id, req)
	return err
}

// uiPersona maps a registry record; presence comes separately. A pending
// generation shows as pending, a retired one as retired.
func uiPersona(p registry.Persona) ui.Persona {
	out := ui.Persona{ID: p.ID, Address: p.Address, Name: p.Name, Class: string(p.Profile), Generation: p.Generation,
		State: ui.PresenceState(p.State), StampHash: p.StampHash, StampSummary: string(p.Profile)}
	out.Bindings = append(out.Bindings, ui.Binding{Kind: "authority", Target: p.Human})
	if p.Repository != "" {
		out.Bindings = append(out.Bindings, ui.Binding{Kind: "repository", Target: p.Repository})
	}
	return out
}

// withPresence copies the live presence into a row.
func withPresence(p *ui.Persona, pr hubapi.Presence) {
	p.State = ui.PresenceState(pr.State)
	p.Activity, p.Summary, p.LastSeen, p.Waiting = pr.Activity, pr.Summary, pr.LastSeen, pr.Waiting
}

func uiConfirmation(c *confirm.Confirmation) ui.Confirmation {
	out := ui.Confirmation{ID: c.ID, CorrelationID: c.CorrelationID, Requester: c.Requester.String(),
		Boundary: c.Boundary.String(), Operation: c.Operation.String(), Action: c.Operation.HandlerAction,
		StampHash: c.StampHash, Created: c.CreatedAt, Expires: c.ExpiresAt}
	if !c.Unroutable {
		out.Authority = c.Authority.String()
	}
	if c.Kind == confirm.KindActivation {
		out.MatrixDiff = c.Detail
	}
	out.Remember = rememberRule(c)
	return out
}

// rememberRule is the rule "approve and remember" stores for c, from the
// record alone (confirm's RememberRule: the persona experience layer, keyed
// by stamp hash, handler action, normalized target and shape), or the
// reason the hub refuses to remember c.
func rememberRule(c *confirm.Confirmation) ui.RememberRule {
	r, err := c.RememberRule()
	if err != nil {
		return ui.RememberRule{Refusal: err.Error()}
	}
	out := ui.RememberRule{Overlay: ui.OverlayPersona, Key: r.Key.StampHash, Action: r.Key.HandlerAction,
		Target: r.Key.Target.String(), Shape: string(r.Key.Shape)}
	if r.Where == confirm.RememberClass {
		out.Overlay, out.Key = ui.OverlayClass, r.Key.ClassKey
	}
	return out
}
