package usecase

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// The spec (virgo-capability-surface): the stamp "is covered by its
// composition hash". A generation stands only while its stored record's
// composition is the one its character hash and stamp hash compose, and its
// stamp was built from that character hash: a record changed in the store
// behind the registry's back is not standing, whichever of the covered
// values was changed.
func TestCompositionMismatchIsNotStanding(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	p := in.register(t, "work/core/lead", "Spica")
	if want := registry.Compose(p.CharacterHash, p.StampHash); p.Composition != want {
		t.Fatalf("registered with composition %q, want %s", p.Composition, want)
	}
	mustNil(t, in.fresh().CheckStanding(p))
	for _, c := range []struct {
		name   string
		change func(*registry.Persona)
	}{
		{"composition changed", func(p *registry.Persona) { p.Composition = registry.Compose(p.CharacterHash, "") }},
		{"composition absent", func(p *registry.Persona) { p.Composition = "" }},
		{"stamp hash changed", func(p *registry.Persona) { p.StampHash = "sha256:" + p.StampHash[len(p.StampHash)-8:] }},
		// Changed with a composition that matches it: the stamp, built from
		// the old character hash, no longer matches the record.
		{"character hash changed and composed again", func(p *registry.Persona) {
			p.CharacterHash = "sha256:0123"
			p.Composition = registry.Compose(p.CharacterHash, p.StampHash)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := p
			c.change(&q)
			b, err := json.Marshal(q)
			mustNil(t, err)
			_, err = in.st.Txn(ctx, nil, []store.Op{store.Put(roster.PrefixPersona+q.ID, b)})
			mustNil(t, err)
			stored, err := in.reg.Get(ctx, q.ID)
			mustNil(t, err)
			if err := in.fresh().CheckStanding(stored); !errors.Is(err, registry.ErrCompositionMismatch) {
				t.Fatalf("CheckStanding = %v, want ErrCompositionMismatch", err)
			}
		})
	}
}
