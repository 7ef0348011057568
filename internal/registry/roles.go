// Package registry owns the address grammar, the role registry, and the
// personas, seats, generations and names of a Virgo installation.
//
// The role registry is the one table that maps an address role to its binding
// arity and capability profile (spec: virgo-persona-paths.txt). The address
// parser, the wizard and the stamp factory all read it; nothing keeps a second
// list.
package registry

// Profile is a capability profile: the class whose tools a stamp carries.
type Profile string

// The four capability profiles of the class matrix.
const (
	ProfileSecretary       Profile = "secretary"
	ProfileTeamCoordinator Profile = "team-coordinator"
	ProfileProjectLead     Profile = "project-lead"
	ProfileCoderDeputy     Profile = "coder-deputy"
)

// Profiles lists every capability profile in the order of the spec's class
// matrix columns.
var Profiles = []Profile{ProfileSecretary, ProfileTeamCoordinator, ProfileProjectLead, ProfileCoderDeputy}

// Arity is the set of address shapes a role may take.
type Arity uint8

// Binding arities; a role may allow more than one (secretary: root or scope-wide).
const (
	// AtRoot: the two-segment reserved root address root/<role>.
	AtRoot Arity = 1 << iota
	// ScopeWide: the two-segment address <scope>/<role>.
	ScopeWide
	// ProjectBound: the three-segment address <scope>/<project>/<role>.
	ProjectBound
)

// Allows reports whether every shape in b is allowed by a.
func (a Arity) Allows(b Arity) bool { return a&b == b && b != 0 }

// String names the arity the way the spec's role table does.
func (a Arity) String() string {
	switch a {
	case AtRoot:
		return "root only"
	case ScopeWide:
		return "scope-wide"
	case ProjectBound:
		return "project-bound"
	case AtRoot | ScopeWide:
		return "root or scope-wide"
	}
	return "invalid arity"
}

// Role is one row of the role registry.
type Role struct {
	// Name is the address segment ("lead").
	Name string
	// Arity is where in the path the role may stand.
	Arity Arity
	// Profile is the capability profile the role is stamped with.
	Profile Profile
	// Duty is one line an operator reads when choosing the role.
	Duty string
}

// Roles is the role registry, in the spec's order.
var Roles = []Role{
	{Name: "secretary", Arity: AtRoot | ScopeWide, Profile: ProfileSecretary,
		Duty: "routes results and approval requests to the owner"},
	{Name: "operator", Arity: AtRoot, Profile: ProfileProjectLead,
		Duty: "installation-wide operator seat"},
	{Name: "coordinator", Arity: ScopeWide, Profile: ProfileTeamCoordinator,
		Duty: "coordinates the projects of one scope"},
	{Name: "lead", Arity: ProjectBound, Profile: ProfileProjectLead,
		Duty: "persistent lead session of one project"},
	{Name: "deputy", Arity: ProjectBound, Profile: ProfileCoderDeputy,
		Duty: "bounded work delegated by the project's lead"},
}

// LookupRole returns the registry row of a role name.
func LookupRole(name string) (Role, bool) {
	for _, r := range Roles {
		if r.Name == name {
			return r, true
		}
	}
	return Role{}, false
}

// RolesFor lists the roles whose arity fits an address of the given shape, in
// registry order. The wizard offers exactly these.
func RolesFor(shape Arity) []Role {
	var out []Role
	for _, r := range Roles {
		if r.Arity.Allows(shape) {
			out = append(out, r)
		}
	}
	return out
}
