package roster

import (
	"context"
	"errors"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// A generation is admitted with the composition of its character and stamp
// hashes, and a record whose composition does not cover them is named.
func TestAdmissionRecordsItsComposition(t *testing.T) {
	ctx := context.Background()
	in := newInstallation(t)
	in.step(func(r *Registry) {
		p, err := r.Prepare(registry.Registration{Address: "work/core/lead", Name: "Spica", CharacterHash: "sha256:aa", Pending: true})
		if err != nil {
			t.Fatal(err)
		}
		a, err := r.Admit(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := a.Plan("sha256:bb")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := plan.Commit(ctx, r.s); err != nil {
			t.Fatal(err)
		}
		got, err := r.Get(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := registry.Compose("sha256:aa", "sha256:bb")
		if got.Composition != want || a.Recorded("sha256:bb").Composition != want {
			t.Fatalf("recorded composition %q, want %s", got.Composition, want)
		}
		if err := got.CheckComposition(); err != nil {
			t.Fatalf("an intact record: %v", err)
		}
		for _, c := range []struct {
			name   string
			change func(*registry.Persona)
		}{
			{"stamp hash changed", func(p *registry.Persona) { p.StampHash = "sha256:bc" }},
			{"character hash changed", func(p *registry.Persona) { p.CharacterHash = "sha256:ab" }},
			{"composition changed", func(p *registry.Persona) { p.Composition = registry.Compose("sha256:aa", "") }},
			{"composition absent", func(p *registry.Persona) { p.Composition = "" }},
		} {
			q := got
			c.change(&q)
			if err := q.CheckComposition(); !errors.Is(err, registry.ErrCompositionMismatch) {
				t.Errorf("%s: %v, want ErrCompositionMismatch", c.name, err)
			}
		}
	})
	in.step(func(r *Registry) {
		q := mustRegister(t, r, registry.Registration{Address: "work/core/deputy", Name: "Porrima"})
		if want := registry.Compose(q.CharacterHash, ""); q.Composition != want {
			t.Fatalf("a generation registered without a stamp answers composition %q, want %s", q.Composition, want)
		}
	})
}
