package stamp

import (
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// LegacyScope is the scope a v1/v2 stamp stands in when it names none and its
// class needs one. v1 predates scopes: an installation had one workspace, and
// v2 called that workspace "work" unless told otherwise.
const LegacyScope = "work"

// stampV1 is the schema v1 shape: a flat capability class and tool names.
//
//	{"version":1,"persona":"Spica","class":"secretary","owner":"henry",
//	 "project":"core","tools":["workspace_list", ...]}
//
// project is present only for project-lead and coder-deputy stamps.
type stampV1 struct {
	Version int      `json:"version"`
	Persona string   `json:"persona"`
	Class   string   `json:"class"`
	Owner   string   `json:"owner"`
	Project string   `json:"project,omitempty"`
	Tools   []string `json:"tools"`
}

// stampV2 added address hints, the workspace binding, bindings and per-tool
// access to v1; still a flat class, not a role path.
type stampV2 struct {
	Version        int              `json:"version"`
	Persona        Identity         `json:"persona"`
	Class          string           `json:"class"`
	Scope          string           `json:"scope,omitempty"`
	Project        string           `json:"project,omitempty"`
	GraphNamespace string           `json:"graph_namespace,omitempty"`
	Human          string           `json:"human"`
	OwningLead     string           `json:"owning_lead,omitempty"`
	LaneApprover   string           `json:"lane_approver,omitempty"`
	Surfaces       []SurfaceBinding `json:"surfaces,omitempty"`
	Workspace      *Workspace       `json:"workspace,omitempty"`
	Tools          []struct {
		Name   string `json:"name"`
		Access Access `json:"access"`
	} `json:"tools"`
}

// LegacyAddress maps a v1/v2 capability class, with its optional scope and
// project hints, to a canonical role path using the role registry: with a
// project, the class's project-bound role under scope (default LegacyScope);
// without scope or project, the class's reserved root role if it has one
// (secretary -> root/secretary, project-lead -> root/operator), else its
// scope-wide role under LegacyScope (team-coordinator -> work/coordinator).
// A coder-deputy without a project maps to nothing.
func LegacyAddress(class, scope, project string) (registry.Address, error) {
	profile := registry.Profile(class)
	shapes := []registry.Arity{registry.ProjectBound}
	switch {
	case project != "" && scope == "":
		scope = LegacyScope
	case project == "" && scope == "":
		shapes = []registry.Arity{registry.AtRoot, registry.ScopeWide}
	case project == "" && scope == registry.RootScope:
		shapes = []registry.Arity{registry.AtRoot}
	case project == "":
		shapes = []registry.Arity{registry.ScopeWide}
	}
	for _, shape := range shapes {
		for _, r := range registry.RolesFor(shape) {
			if r.Profile != profile {
				continue
			}
			a := registry.Address{Scope: scope, Project: project, Role: r.Name}
			switch shape {
			case registry.AtRoot:
				a.Scope = registry.RootScope
			case registry.ScopeWide:
				if a.Scope == "" {
					a.Scope = LegacyScope
				}
			}
			return registry.ParseAddress(a.String())
		}
	}
	return registry.Address{}, fmt.Errorf("class %q with scope %q and project %q maps to no role path", class, scope, project)
}

// legacyStamp builds the in-memory stamp a v1/v2 file means; the defaults
// below are documented in docs/stamp-v3.md.
func legacyStamp(version int, a registry.Address) Stamp {
	s := Stamp{
		SchemaVersion: version,
		Path:          Path{Address: a.String(), Scope: a.Scope, Project: a.Project, Role: a.Role, Profile: string(a.Profile())},
		// Before v2 a persona's graph namespace was its path.
		GraphNamespace: a.String(),
		HumanSurfaces:  []SurfaceBinding{},
		Workspace:      Workspace{Root: a.String(), MutablePaths: StandardMutablePaths()},
	}
	if a.Profile() == registry.ProfileCoderDeputy {
		// One lead per project: a legacy deputy answered to it implicitly.
		s.Authority.OwningLead = registry.Address{Scope: a.Scope, Project: a.Project, Role: "lead"}.String()
	}
	return s
}

// legacyTool fills a legacy tool name from today's table: handler action and
// scope from the inventory, access as the file says or the class matrix
// gives. An unknown name keeps an empty action, and Semantic names it.
func legacyTool(profile registry.Profile, name string, access Access) Tool {
	t, ok := ExpectedTool(profile, name)
	if !ok {
		inv, _ := LookupTool(name)
		t = Tool{Name: name, HandlerAction: inv.HandlerAction, Access: AccessAllow, Scope: inv.Scope}
	}
	if access != "" {
		t.Access = access
	}
	return t
}

// readV1 maps a v1 stamp to the in-memory type. The file is never rewritten.
func readV1(source string, b []byte) (Stamp, error) {
	var v stampV1
	if err := strictjson.Decode(b, &v); err != nil {
		return Stamp{}, undecodable(source, err)
	}
	a, err := LegacyAddress(v.Class, "", v.Project)
	if err != nil {
		return Stamp{}, problems(source, ErrInvalidStamp, []Problem{{Rule: RuleLegacyClass, Field: "class", Message: err.Error()}})
	}
	s := legacyStamp(1, a)
	s.Persona = Identity{Name: v.Persona, Generation: 1}
	s.Authority.Human = "human:" + v.Owner
	if a.Profile() == registry.ProfileTeamCoordinator {
		// v1 coordinators resolved with the owner's approval.
		s.Authority.LaneApprover = s.Authority.Human
	}
	s.Tools = make([]Tool, 0, len(v.Tools))
	for _, name := range v.Tools {
		s.Tools = append(s.Tools, legacyTool(a.Profile(), name, ""))
	}
	return checked(source, s)
}

// readV2 maps a v2 stamp to the in-memory type. The file is never rewritten.
func readV2(source string, b []byte) (Stamp, error) {
	var v stampV2
	if err := strictjson.Decode(b, &v); err != nil {
		return Stamp{}, undecodable(source, err)
	}
	a, err := LegacyAddress(v.Class, v.Scope, v.Project)
	if err != nil {
		return Stamp{}, problems(source, ErrInvalidStamp, []Problem{{Rule: RuleLegacyClass, Field: "class", Message: err.Error()}})
	}
	s := legacyStamp(2, a)
	s.Persona = v.Persona
	if v.GraphNamespace != "" {
		s.GraphNamespace = v.GraphNamespace
	}
	s.Authority.Human = v.Human
	if v.OwningLead != "" {
		s.Authority.OwningLead = v.OwningLead
	}
	s.Authority.LaneApprover = v.LaneApprover
	if s.Authority.LaneApprover == "" && a.Profile() == registry.ProfileTeamCoordinator {
		s.Authority.LaneApprover = v.Human
	}
	if v.Surfaces != nil {
		s.HumanSurfaces = v.Surfaces
	}
	if v.Workspace != nil {
		s.Workspace = *v.Workspace
	}
	s.Tools = make([]Tool, 0, len(v.Tools))
	for _, t := range v.Tools {
		s.Tools = append(s.Tools, legacyTool(a.Profile(), t.Name, t.Access))
	}
	return checked(source, s)
}

// checked returns s when Semantic finds nothing, else every problem.
func checked(source string, s Stamp) (Stamp, error) {
	if err := problems(source, ErrInvalidStamp, Semantic(s)); err != nil {
		return Stamp{}, err
	}
	return s, nil
}
