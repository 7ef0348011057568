package registry

import (
	"context"
	"errors"
	"testing"
)

// The composition hash covers the stamp (spec, virgo-capability-surface:
// the stamp "is covered by its composition hash"): it changes when either
// covered input changes, and it is the documented formula, so another
// language recomputes it (docs/stamp-v3.md; the vector is
// printf 'virgo-composition-v1\nsha256:aa\nsha256:bb\n' | sha256sum).
func TestComposeCoversEachInput(t *testing.T) {
	const character, stampHash = "sha256:aa", "sha256:bb"
	base := Compose(character, stampHash)
	if want := "sha256:686a26383df5d2e6ce5d7caa71b5562ab4881b5793f0e7d1bf07363d0f1cd5c4"; base != want {
		t.Fatalf("Compose = %s, want the documented %s", base, want)
	}
	for _, c := range []struct {
		name, character, stampHash string
	}{
		{"another character hash", "sha256:ab", stampHash},
		{"another stamp hash", character, "sha256:bc"},
		{"no stamp", character, ""},
		{"the two swapped", stampHash, character},
		{"a byte moved across the boundary", "sha256:aas", "ha256:bb"},
	} {
		if got := Compose(c.character, c.stampHash); got == base {
			t.Errorf("%s: Compose(%q, %q) = the base hash; the input is not covered", c.name, c.character, c.stampHash)
		}
	}
}

// A generation is admitted with the composition of its character and stamp
// hashes, and a record whose composition does not cover them is named.
func TestAdmissionRecordsItsComposition(t *testing.T) {
	ctx := context.Background()
	in := newInstallation(t)
	in.step(func(r *Registry) {
		p, err := r.Prepare(Registration{Address: "work/core/lead", Name: "Spica", CharacterHash: "sha256:aa", Pending: true})
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
		want := Compose("sha256:aa", "sha256:bb")
		if got.Composition != want || a.Recorded("sha256:bb").Composition != want {
			t.Fatalf("recorded composition %q, want %s", got.Composition, want)
		}
		if err := got.CheckComposition(); err != nil {
			t.Fatalf("an intact record: %v", err)
		}
		for _, c := range []struct {
			name   string
			change func(*Persona)
		}{
			{"stamp hash changed", func(p *Persona) { p.StampHash = "sha256:bc" }},
			{"character hash changed", func(p *Persona) { p.CharacterHash = "sha256:ab" }},
			{"composition changed", func(p *Persona) { p.Composition = Compose("sha256:aa", "") }},
			{"composition absent", func(p *Persona) { p.Composition = "" }},
		} {
			q := got
			c.change(&q)
			if err := q.CheckComposition(); !errors.Is(err, ErrCompositionMismatch) {
				t.Errorf("%s: %v, want ErrCompositionMismatch", c.name, err)
			}
		}
	})
	in.step(func(r *Registry) {
		q := mustRegister(t, r, Registration{Address: "work/core/deputy", Name: "Porrima"})
		if want := Compose(q.CharacterHash, ""); q.Composition != want {
			t.Fatalf("a generation registered without a stamp answers composition %q, want %s", q.Composition, want)
		}
	})
}
