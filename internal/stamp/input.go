package stamp

import "github.com/virgo-hub/virgo-tui/internal/registry"

// DefaultSurface is the human surface a secretary or team coordinator is
// bound to when registration names none: the bound human, reached through
// the hub's virgo-channel (spec: "Human-surface tools target the hub service
// through virgo-channel"). Without a binding its bound-surfaces tools would
// fail the boot check and the persona could never stand.
const DefaultSurface = "virgo-channel"

// Bindings are what a stamp binds beyond the registry's persona record:
// the persona's surfaces, a coordinator's lane approver, the graph namespace
// and extra workspace paths. Zero values take the defaults of InputFor.
type Bindings struct {
	HumanSurfaces []SurfaceBinding
	// LaneApprover defaults to the bound human for a team coordinator.
	LaneApprover string
	// GraphNamespace defaults to "virgo/<address>".
	GraphNamespace string
	// MutablePaths are added after the standard ones.
	MutablePaths []string
}

// InputFor is the one mapping from a registered persona generation to the
// factory's input, so that every caller (stamp build, the hub's
// registration) stamps the same thing: the registered address (never a
// default), the character hash as composition hash, the bound human, a
// deputy's owning lead <scope>/<project>/lead, and the workspace "ws/<address>".
func InputFor(p registry.Persona, b Bindings) Input {
	in := Input{
		Persona:         Identity{ID: p.ID, Name: p.Name, Generation: p.Generation, SessionLineage: p.SessionLineage},
		CompositionHash: p.CharacterHash,
		Address:         p.Address,
		GraphNamespace:  b.GraphNamespace,
		HumanSurfaces:   b.HumanSurfaces,
		Authority:       Authority{Human: p.Human},
		Workspace:       Workspace{Root: "ws/" + p.Address, MutablePaths: b.MutablePaths, Repository: p.Repository},
	}
	if in.GraphNamespace == "" {
		in.GraphNamespace = "virgo/" + p.Address
	}
	if len(in.HumanSurfaces) == 0 && bindsSurfaces(p.Profile) {
		in.HumanSurfaces = []SurfaceBinding{{Surface: DefaultSurface, Target: p.Human}}
	}
	switch p.Profile {
	case registry.ProfileCoderDeputy:
		in.Authority.OwningLead = registry.Address{Scope: p.Scope, Project: p.Project, Role: "lead"}.String()
	case registry.ProfileTeamCoordinator:
		in.Authority.LaneApprover = b.LaneApprover
		if in.Authority.LaneApprover == "" {
			in.Authority.LaneApprover = p.Human
		}
	}
	return in
}

// bindsSurfaces reports whether a class has tools scoped to bound surfaces.
func bindsSurfaces(p registry.Profile) bool {
	for _, t := range ToolsFor(p) {
		if t.Scope == ScopeBoundSurfaces {
			return true
		}
	}
	return false
}
