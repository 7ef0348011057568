// Package demo builds a throw-away Virgo installation and a population of
// simulated persona runtimes that beat, change activity and ask for
// confirmations of every kind — what a newcomer runs first (`virgo-tui
// demo`), and a live load for tests. It talks to the hub only through
// hubclient.Client, as a real runtime and a real operator would.
package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// seats is the demo installation, in registration order: the root
// secretary, two scopes (home, work) with their scope-wide roles, and three
// projects with a lead and a deputy each. The deputy marked regrant retires
// and its seat goes to a second generation under a new name.
var seats = []struct {
	address string
	regrant bool
}{
	{address: "root/secretary"},
	{address: "home/secretary"},
	{address: "work/coordinator"},
	{address: "work/core/lead"},
	{address: "work/core/deputy", regrant: true},
	{address: "work/web/lead"},
	{address: "work/web/deputy"},
	{address: "home/garden/lead"},
	{address: "home/garden/deputy"},
}

// pendingSeat is registered but left awaiting its activation, so the
// approval queue opens with a permission change and its class-matrix diff.
const pendingSeat = "root/operator"

// retireAsked is the persona whose retirement is asked and left pending.
const retireAsked = "home/garden/deputy"

// Installation is what Seed built.
type Installation struct {
	// Active are the active generations, in seat order.
	Active []registry.Persona
	// Retired is the deputy whose seat was regranted.
	Retired registry.Persona
	// Pending is the generation awaiting activation.
	Pending registry.Persona
}

// Seed registers the demo installation through op (an operator client
// acting as human, the bound human of every persona) and approves each
// activation, as an operator at the console would.
func Seed(ctx context.Context, op *hubclient.Client, human string) (Installation, error) {
	var in Installation
	for _, s := range seats {
		p, err := addActive(ctx, op, s.address, human)
		if err != nil {
			return in, err
		}
		if !s.regrant {
			in.Active = append(in.Active, p)
			continue
		}
		if err := retire(ctx, op, p.Address, "context exhausted; seat regranted to a fresh generation"); err != nil {
			return in, err
		}
		in.Retired = p
		if p, err = addActive(ctx, op, s.address, human); err != nil {
			return in, err
		}
		in.Active = append(in.Active, p)
	}
	name, err := freeName(ctx, op)
	if err != nil {
		return in, err
	}
	reg, err := op.Register(ctx, hubapi.RegisterRequest{Address: pendingSeat, Name: name, Human: human})
	if err != nil {
		return in, err
	}
	in.Pending = reg.Persona
	if _, err := op.RequestRetirement(ctx, retireAsked, "the garden project is paused"); err != nil {
		return in, err
	}
	return in, seedInbox(ctx, op.Home(), in.Active)
}

// letters is what the demo's personas have sent their human when the
// console opens, so the inbox view shows each kind of item: a message, a
// card with actions, a todo card. Each is sent by the persona with its own
// token, as a runtime sends it.
var letters = []struct {
	address, tool, args string
}{
	{"root/secretary", "send_human_message", `{"text":"Good morning. Two activations and a retirement wait for you in the queue;\nthe work coordinator sent a card about the core release."}`},
	{"work/coordinator", "send_human_card", `{"title":"Core v1.3 is green","body":"Every host built and passed its checks. Ship it this week?","actions":["approve","reject"]}`},
	{"root/secretary", "send_human_todo", `{"title":"Before the freeze","items":["review the garden retirement","rotate the gateway token","read the release notes"]}`},
}

// seedInbox sends the letters, each from the active persona at its address.
func seedInbox(ctx context.Context, home string, active []registry.Persona) error {
	for _, l := range letters {
		i := slices.IndexFunc(active, func(p registry.Persona) bool { return p.Address == l.address })
		if i < 0 {
			return fmt.Errorf("demo: no active persona at %s to write to its human", l.address)
		}
		token := filepath.Join(registry.Home{Dir: home}.GenerationDir(active[i].ID), hubapi.TokenFile)
		rt, err := hubclient.Dial(ctx, home, hubclient.WithTokenFile(token))
		if err != nil {
			return fmt.Errorf("demo: %s: %w", l.address, err)
		}
		_, err = rt.CallTool(ctx, "", l.tool, json.RawMessage(l.args), "")
		rt.Close()
		if err != nil {
			return fmt.Errorf("demo: %s %s: %w", l.address, l.tool, err)
		}
	}
	return nil
}

func freeName(ctx context.Context, op *hubclient.Client) (string, error) {
	names, err := op.SuggestNames(ctx, 1)
	if err != nil {
		return "", err
	}
	if len(names) == 0 {
		return "", fmt.Errorf("demo: no free constellation name left")
	}
	return names[0], nil
}

// addActive registers a generation at address and approves its activation.
func addActive(ctx context.Context, op *hubclient.Client, address, human string) (registry.Persona, error) {
	name, err := freeName(ctx, op)
	if err != nil {
		return registry.Persona{}, err
	}
	reg, err := op.Register(ctx, hubapi.RegisterRequest{Address: address, Name: name, Human: human})
	if err != nil {
		return registry.Persona{}, fmt.Errorf("demo: %w", err)
	}
	if _, err := op.Decide(ctx, reg.Confirmation.ID, hubapi.DecideRequest{Approve: true}); err != nil {
		return registry.Persona{}, fmt.Errorf("demo: activate %s: %w", address, err)
	}
	v, err := op.Persona(ctx, reg.Persona.ID)
	return v.Persona, err
}

// retire asks for a retirement and approves it.
func retire(ctx context.Context, op *hubclient.Client, ref, reason string) error {
	r, err := op.RequestRetirement(ctx, ref, reason)
	if err != nil {
		return fmt.Errorf("demo: retire %s: %w", ref, err)
	}
	if r.Confirmation == nil {
		return nil
	}
	_, err = op.Decide(ctx, r.Confirmation.ID, hubapi.DecideRequest{Approve: true})
	return err
}
