// Package hubconsole adapts the hub client to the console's ui.Client: the
// console (internal/ui) knows nothing of the hub, and the hub nothing of the
// terminal. It imports the hub client and the wire contract, never the
// server.
package hubconsole

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"github.com/virgo-hub/virgo-tui/internal/channel"
	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/ui"
)

// Client is the console's ui.Client over a hub client. It keeps the last
// persona records so that a presence change (which carries presence only)
// becomes a whole row, and every generation's seat record so that a row
// carries its seat's whole history.
type Client struct {
	c    *hubclient.Client
	home string

	mu       sync.Mutex
	personas map[string]ui.Persona
	// seats holds each generation's record in its seat's history, by id;
	// held lists the ids of the generations of each address.
	seats map[string]ui.SeatRecord
	held  map[string][]string
	// kept is the file of each generation's kept snapshot, by id, as the
	// hub's snapshot listed them.
	kept map[string]string
	// operator is the human this console acts as: the stream carries every
	// human's channel, the console shows only its own.
	operator string
	// remote marks a console served to a human elsewhere (over SSH): files
	// it saved would land on the server, not with the human.
	remote bool
}

// New adapts c for the console; c stays the caller's to close.
func New(c *hubclient.Client) *Client {
	return &Client{c: c, home: c.Home(), personas: map[string]ui.Persona{}, seats: map[string]ui.SeatRecord{},
		held: map[string][]string{}}
}

// NewRemote is New for a console served to a human at another machine (the
// SSH console): everything works the same but saving an inbox file, which
// would write on the server as the server's user (ErrSaveRemote).
func NewRemote(c *hubclient.Client) *Client {
	k := New(c)
	k.remote = true
	return k
}

// Snapshot maps the hub's snapshot: every generation but refused ones, and
// the pending confirmations.
func (k *Client) Snapshot(ctx context.Context) (ui.Snapshot, error) {
	s, err := k.c.Snapshot(ctx)
	if err != nil {
		return ui.Snapshot{}, err
	}
	out := ui.Snapshot{Installation: filepath.Base(k.home), Home: k.home, Operator: s.Operator.Principal, Seq: s.Seq}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.operator = s.Operator.Principal
	k.personas = make(map[string]ui.Persona, len(s.Personas))
	k.seats = make(map[string]ui.SeatRecord, len(s.Personas))
	k.held = make(map[string][]string, len(s.Personas))
	k.kept = make(map[string]string, len(s.Kept))
	for _, kept := range s.Kept {
		k.kept[kept.ID] = kept.Path
	}
	for _, v := range s.Personas {
		if v.Persona.State == registry.StateRefused {
			continue
		}
		p := uiPersona(v.Persona)
		if v.Presence != nil {
			withPresence(&p, *v.Presence)
		}
		k.personas[p.ID] = p
		k.seats[p.ID] = k.seatRecord(v.Persona)
		k.held[p.Address] = append(k.held[p.Address], p.ID)
	}
	histories := make(map[string][]ui.SeatRecord, len(k.held))
	for _, v := range s.Personas {
		p, ok := k.personas[v.Persona.ID]
		if !ok {
			continue
		}
		h, ok := histories[p.Address]
		if !ok {
			h = k.seatHistory(p.Address)
			histories[p.Address] = h
		}
		p.Seats = h
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
func (k *Client) Subscribe(ctx context.Context, after uint64) (<-chan ui.Batch, error) {
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
				b.Changes = append(b.Changes, k.change(ch)...)
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

// change maps one hub change event, read as its typed payload, to the
// console's; kinds the console ignores (or does not know: a newer hub's)
// map to none. A registration or retirement changes its seat's history,
// so every generation of the seat is sent again with the new history.
func (k *Client) change(ch hubapi.Change) []ui.Change {
	switch ch.Kind {
	case hubapi.KindPresence, hubapi.KindPersona, hubapi.KindConfirmation, hubapi.KindChannelItem, hubapi.KindTyping:
	default:
		// Not decoded: audit entries, runs, messages and the rest are
		// most of the stream, and the console shows none of them.
		return nil
	}
	payload, err := ch.Payload()
	if err != nil {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	switch v := payload.(type) {
	case hubapi.Presence:
		p, ok := k.personas[v.ID]
		if !ok {
			p = ui.Persona{ID: v.ID, Address: v.Address, Name: v.Name, Generation: v.Generation}
		}
		withPresence(&p, v)
		k.personas[p.ID] = p
		return []ui.Change{{Seq: ch.Seq, Kind: ui.PersonaChanged, Persona: p}}
	case registry.Persona:
		return k.personaChanged(ch.Seq, v)
	case confirm.Confirmation:
		if v.State == confirm.StatePending {
			return []ui.Change{{Seq: ch.Seq, Kind: ui.ConfirmationPending, Confirmation: uiConfirmation(&v)}}
		}
		by := ""
		if v.Decision != nil {
			by = v.Decision.Decider.String()
		}
		return []ui.Change{{Seq: ch.Seq, Kind: ui.ConfirmationDecided, ID: v.ID, DecidedBy: by, Outcome: string(v.State)}}
	case channel.Item, channel.Typing:
		return channelChange(ch, v, k.operator)
	}
	if ch.Kind == hubapi.KindTyping && ch.Delete { // a cleared indicator carries no payload
		return channelChange(ch, nil, k.operator)
	}
	return nil
}

// personaChanged maps a generation's new record: a refused one leaves the
// console; any other is sent whole, with its seat's history.
func (k *Client) personaChanged(seq uint64, rp registry.Persona) []ui.Change {
	if rp.State == registry.StateRefused {
		delete(k.personas, rp.ID)
		delete(k.seats, rp.ID)
		k.held[rp.Address] = slices.DeleteFunc(k.held[rp.Address], func(id string) bool { return id == rp.ID })
		return append([]ui.Change{{Seq: seq, Kind: ui.PersonaRemoved, ID: rp.ID}}, k.seatChanged(rp.Address, "")...)
	}
	p := uiPersona(rp)
	if old, ok := k.personas[rp.ID]; ok && rp.State == registry.StateActive {
		p.State, p.Activity, p.Summary, p.LastSeen, p.Waiting, p.Session = old.State, old.Activity, old.Summary, old.LastSeen, old.Waiting, old.Session
	}
	if !slices.Contains(k.held[p.Address], p.ID) {
		k.held[p.Address] = append(k.held[p.Address], p.ID)
	}
	k.personas[p.ID] = p
	k.seats[p.ID] = k.seatRecord(rp)
	return append([]ui.Change{{Seq: seq, Kind: ui.PersonaChanged, Persona: k.withHistory(p)}}, k.seatChanged(rp.Address, p.ID)...)
}

// Decide sends the operator's decision; "remember" learns it in the
// overlay of the rule the remember dialog showed.
func (k *Client) Decide(ctx context.Context, id string, d ui.Decision) error {
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

// withHistory gives p its seat's current history and keeps it.
func (k *Client) withHistory(p ui.Persona) ui.Persona {
	p.Seats = k.seatHistory(p.Address)
	k.personas[p.ID] = p
	return p
}

// seatChanged returns, as changes, the other generations of the seat at
// address than the one with id, each with the seat's new history. They
// carry no sequence number: they restate records the console holds, so
// the console applies them after the numbered change they follow.
func (k *Client) seatChanged(address, id string) []ui.Change {
	var out []ui.Change
	for _, other := range k.held[address] {
		if other != id {
			out = append(out, ui.Change{Kind: ui.PersonaChanged, Persona: k.withHistory(k.personas[other])})
		}
	}
	return out
}

// seatHistory is every generation that held or holds the seat at address,
// oldest first.
func (k *Client) seatHistory(address string) []ui.SeatRecord {
	out := make([]ui.SeatRecord, 0, len(k.held[address]))
	for _, id := range k.held[address] {
		out = append(out, k.seats[id])
	}
	slices.SortFunc(out, func(a, b ui.SeatRecord) int { return cmp.Compare(a.Generation, b.Generation) })
	return out
}

// uiPersona maps a registry record; presence and the seat's history come
// separately. A pending generation shows as pending, a retired one as
// retired.
func uiPersona(p registry.Persona) ui.Persona {
	out := ui.Persona{ID: p.ID, Address: p.Address, Name: p.Name, Class: string(p.Profile), Generation: p.Generation,
		State: ui.PresenceState(p.State), StampHash: p.StampHash, StampSummary: stampSummary(p.Profile)}
	out.Bindings = append(out.Bindings, ui.Binding{Kind: "authority", Target: p.Human})
	if p.Repository != "" {
		out.Bindings = append(out.Bindings, ui.Binding{Kind: "repository", Target: p.Repository})
	}
	if p.SessionLineage != "" {
		out.Bindings = append(out.Bindings, ui.Binding{Kind: "session lineage", Target: p.SessionLineage})
	}
	return out
}

// stampSummary is a one-line account of a class's stamp: a v3 stamp
// carries exactly the tools of its class's matrix row
// ("coder-deputy, 34 tools, 2 confirm").
func stampSummary(p registry.Profile) string {
	tools := stamp.ToolsFor(p)
	confirms := 0
	for _, t := range tools {
		if t.Access == stamp.AccessConfirm {
			confirms++
		}
	}
	return fmt.Sprintf("%s, %d tools, %d confirm", p, len(tools), confirms)
}

// seatRecord is a generation's entry in its seat's history: held from its
// activation (its registration while pending) until its retirement, and
// the snapshot the home keeps of it.
func (k *Client) seatRecord(p registry.Persona) ui.SeatRecord {
	s := ui.SeatRecord{Generation: p.Generation, Name: p.Name, State: string(p.State), From: p.CreatedAt, Snapshot: k.kept[p.ID]}
	if p.ActivatedAt != nil {
		s.From = *p.ActivatedAt
	}
	if p.RetiredAt != nil {
		s.Until = *p.RetiredAt
	}
	return s
}

// withPresence copies the live presence into a row.
func withPresence(p *ui.Persona, pr hubapi.Presence) {
	p.State = ui.PresenceState(pr.State)
	p.Activity, p.Summary, p.LastSeen, p.Waiting = pr.Activity, pr.Summary, pr.LastSeen, pr.Waiting
	p.Session = string(pr.SessionShown())
}

func uiConfirmation(c *confirm.Confirmation) ui.Confirmation {
	op := c.Operation
	out := ui.Confirmation{ID: c.ID, CorrelationID: c.CorrelationID, Requester: c.Requester.String(),
		Boundary: c.Boundary.String(), Operation: op.String(), Tool: op.Tool, Target: op.Target.String(),
		Shape: string(op.Shape), Action: op.HandlerAction, StampHash: c.StampHash, Created: c.CreatedAt, Expires: c.ExpiresAt}
	if !c.Unroutable {
		out.Authority = c.Authority.String()
	}
	for _, a := range op.Arguments {
		out.Arguments = append(out.Arguments, ui.Argument{Name: a.Name, Value: a.Value})
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
