package stamp

import (
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

func TestInputForStampsEveryClassFromItsRegistryRecord(t *testing.T) {
	for _, p := range registry.Profiles {
		a, err := registry.ParseAddress(seats[p])
		if err != nil {
			t.Fatal(err)
		}
		rec := registry.Persona{ID: "0123abcd", Name: "Spica", Address: a.String(), Scope: a.Scope, Project: a.Project,
			Role: a.Role, Profile: p, Generation: 3, SessionLineage: "sess-9", CharacterHash: "sha256:00ff", Human: "human:ada.l"}
		var b Bindings
		if p == registry.ProfileSecretary || p == registry.ProfileTeamCoordinator {
			b.HumanSurfaces = []SurfaceBinding{{Surface: DefaultSurface, Target: "human:ada"}}
		}
		s, err := Build(InputFor(rec, b))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if err := BootCheck(s, Handlers()); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		if s.Persona.Generation != 3 || s.Path.Address != a.String() || s.CompositionHash != "sha256:00ff" {
			t.Errorf("%s: stamped %+v %+v", p, s.Persona, s.Path)
		}
	}
}

func TestCoordinatorWithoutLaneApproverDoesNotStand(t *testing.T) {
	// "A team coordinator resolves only when the bound lane approver
	// authorizes that decision."
	s := mustBuild(t, "work/coordinator")
	s.Authority.LaneApprover = ""
	err := BootCheck(s, Handlers())
	ps := ProblemsOf(err)
	if len(ps) != 1 || ps[0].Tool != "resolve_decision" || ps[0].Rule != RuleBindingMissing {
		t.Fatalf("boot: %v", err)
	}
}

// A secretary or coordinator registered without naming a surface is bound to
// its human through virgo-channel ("Human-surface tools target the hub
// service through virgo-channel"), so it can stand; a class without
// bound-surfaces tools gets no binding.
func TestInputForBindsTheDefaultSurface(t *testing.T) {
	for _, addr := range []string{"root/secretary", "work/coordinator", "work/core/lead", "work/core/deputy"} {
		a, _ := registry.ParseAddress(addr)
		rec := registry.Persona{ID: "0123abcd", Name: "Spica", Address: a.String(), Scope: a.Scope, Project: a.Project,
			Role: a.Role, Profile: a.Profile(), Generation: 1, CharacterHash: "sha256:00ff", Human: "human:ada"}
		s, err := Build(InputFor(rec, Bindings{}))
		if err != nil {
			t.Fatalf("%s: %v", addr, err)
		}
		if err := BootCheck(s, Handlers()); err != nil {
			t.Errorf("%s does not stand without explicit bindings: %v", addr, err)
		}
		wantBound := bindsSurfaces(a.Profile())
		if got := len(s.HumanSurfaces) == 1 && s.HumanSurfaces[0] == (SurfaceBinding{Surface: DefaultSurface, Target: "human:ada"}); got != wantBound {
			t.Errorf("%s: surfaces %+v, want the default binding: %v", addr, s.HumanSurfaces, wantBound)
		}
	}
}
