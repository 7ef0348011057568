package main

import (
	"context"
	"slices"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/ui/wizard"
)

// wizardOver connects a wizard backend to the cli's home as human:owner,
// through a hub started in this process.
func wizardOver(t *testing.T, c *cli) (wizardBackend, *hubclient.Client) {
	t.Helper()
	home, err := registry.CreateHome(c.home)
	if err != nil {
		t.Fatal(err)
	}
	hc, err := hubclient.Dial(context.Background(), home.Dir, hubclient.AsOperator("human:owner"), hubclient.WithStarter(hub.InProcessOn(home, "")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := hc.Close(); err != nil {
			t.Error(err)
		}
	})
	return wizardBackend{hc}, hc
}

func stampHash(t *testing.T, s stamp.Stamp) string {
	t.Helper()
	b, err := stamp.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	h, err := stamp.Hash(b)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// The wizard's preview is the stamp registration writes: once the identity
// registration draws (generation id, session lineage, character hash) is
// filled in, the hashes are equal. The second generation's preview diffs
// against the first generation's stamp.
func TestWizardPreviewIsWhatRegisterWrites(t *testing.T) {
	c := newCLI(t)
	w, hc := wizardOver(t, c)
	ctx := context.Background()
	snap, err := w.Snapshot(ctx)
	if err != nil || !snap.Empty || snap.Operator != "human:owner" || len(snap.Suggestions) == 0 {
		t.Fatalf("snapshot of an empty home = %+v, %v", snap, err)
	}
	addr, _ := registry.ParseAddress("work/core/deputy")
	var firstGen stamp.Stamp
	for gen, name := range []string{"Porrima", "Zaniah"} {
		reg := wizard.Registration{Address: addr, Name: name}
		pv, err := w.Preview(ctx, reg)
		if err != nil {
			t.Fatal(err)
		}
		if gen == 0 && pv.Previous != nil {
			t.Errorf("a seat never held has a previous stamp: %+v", pv.Previous)
		}
		if gen == 1 && (pv.Previous == nil || stampHash(t, *pv.Previous) != stampHash(t, firstGen)) {
			t.Errorf("generation 2's previous stamp is not generation 1's")
		}
		sub, err := w.Submit(ctx, reg)
		if err != nil || !sub.OperatorIsBoundHuman {
			t.Fatalf("submit = %+v, %v; the operator binds the persona to themselves", sub, err)
		}
		v, err := hc.Persona(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		p := v.Persona
		if p.State != registry.StatePending || p.Generation != gen+1 {
			t.Fatalf("%s is %s, generation %d", name, p.State, p.Generation)
		}
		written, err := hc.Stamp(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		pv.Stamp.Persona.ID, pv.Stamp.Persona.SessionLineage, pv.Stamp.CompositionHash = p.ID, p.SessionLineage, p.CharacterHash
		if got := stampHash(t, pv.Stamp); got != written.Hash || got != p.StampHash {
			t.Fatalf("%s: preview hashes %s, registration wrote %s", name, got, written.Hash)
		}
		if err := w.Approve(ctx, sub.ConfirmationID); err != nil {
			t.Fatal(err)
		}
		firstGen = written.Stamp
		if gen == 0 {
			if _, err := hc.RequestRetirement(ctx, name, "regrant"); err != nil {
				t.Fatal(err)
			}
			cs, err := hc.Confirmations(ctx, false)
			if err != nil || len(cs) != 1 {
				t.Fatalf("pending = %v, %v; want the retirement", cs, err)
			}
			if err := w.Approve(ctx, cs[0].ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	snap, err = w.Snapshot(ctx)
	if err != nil || snap.Empty || len(snap.Taken) != 2 || !slices.Equal(snap.Projects["work"], []string{"core"}) {
		t.Errorf("snapshot after two generations = %+v, %v; retired names stay taken", snap, err)
	}
	// The seat's holder is the active second generation, not the retired
	// first: the role step names it (and a seat with no holder is free).
	if h, ok := snap.Holders["work/core/deputy"]; !ok || h.Name != "Zaniah" || h.State != registry.StateActive || len(snap.Holders) != 1 {
		t.Errorf("holders after two generations = %+v; want work/core/deputy held by Zaniah, active", snap.Holders)
	}
}
