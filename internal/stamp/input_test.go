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
			Role: a.Role, Profile: p, Generation: 3, SessionLineage: "sess-9", CharacterHash: "sha256:00ff", Human: "human:Ada.L"}
		var b Bindings
		if p == registry.ProfileSecretary || p == registry.ProfileTeamCoordinator {
			b.HumanSurfaces = []SurfaceBinding{{Surface: "teams", Target: "chat:ada"}}
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
