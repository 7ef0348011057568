package registry

import (
	"errors"
	"fmt"
	"strings"
)

// RootScope is the reserved scope above every workspace. It cannot be created
// or deleted and has no projects.
const RootScope = "root"

// MaxSegmentLen is the longest a scope, project or role segment may be.
const MaxSegmentLen = 32

// placeholders are segments the spec forbids: project absence means
// scope-wide, so nothing may stand in for "no project" or "every project".
var placeholders = map[string]bool{"-": true, "all": true, "*": true}

// Address is a canonical persona path: the transport address of a seat.
// Project is empty for root and scope-wide roles.
type Address struct {
	Scope   string `json:"scope"`
	Project string `json:"project,omitempty"`
	Role    string `json:"role"`
}

// String renders the canonical path: two segments, or three for a project duty.
func (a Address) String() string {
	if a.Project == "" {
		return a.Scope + "/" + a.Role
	}
	return a.Scope + "/" + a.Project + "/" + a.Role
}

// IsRoot reports whether the address is a reserved installation-wide seat.
func (a Address) IsRoot() bool { return a.Scope == RootScope }

// Shape is the binding arity this address has.
func (a Address) Shape() Arity {
	switch {
	case a.Project != "":
		return ProjectBound
	case a.IsRoot():
		return AtRoot
	default:
		return ScopeWide
	}
}

// RoleInfo returns the role registry row; ok is false only for a zero Address.
func (a Address) RoleInfo() (Role, bool) { return LookupRole(a.Role) }

// Profile is the capability profile the role registry gives this address.
func (a Address) Profile() Profile {
	r, _ := LookupRole(a.Role)
	return r.Profile
}

// Rule names one rule of the address grammar. Every refusal carries one.
type Rule string

// The rules of the address grammar (spec: virgo-persona-paths.txt, "Address path").
const (
	RuleEmpty              Rule = "empty-address"
	RuleSegmentCount       Rule = "segment-count"
	RuleEmptySegment       Rule = "empty-segment"
	RuleSegmentSyntax      Rule = "segment-syntax"
	RuleSegmentLength      Rule = "segment-length"
	RulePlaceholder        Rule = "no-placeholder"
	RuleUnknownRole        Rule = "unknown-role"
	RuleRootRole           Rule = "root-role"
	RuleRootNoProjects     Rule = "root-has-no-projects"
	RuleRootReserved       Rule = "root-reserved"
	RuleProjectBound       Rule = "project-bound-role"
	RuleNotProjectBound    Rule = "scope-wide-role"
	RuleRootOnly           Rule = "root-only-role"
	RuleProjectNamedAsRole Rule = "project-named-like-role"
	RuleScopeNamedAsRole   Rule = "scope-named-like-role"
)

// ErrInvalidAddress is wrapped by every *AddressError, for errors.Is.
var ErrInvalidAddress = errors.New("invalid address")

// AddressError is a refused address: the input, the rule it broke, why, and
// a fix the operator can type.
type AddressError struct {
	Input  string
	Rule   Rule
	Reason string
	Fix    string
}

// Error renders "<input>: <reason>; <fix>" as the spec's example does.
func (e *AddressError) Error() string {
	msg := e.Input + ": " + e.Reason
	if e.Input == "" {
		msg = e.Reason
	}
	if e.Fix != "" {
		msg += "; " + e.Fix
	}
	return msg
}

// Unwrap lets errors.Is(err, ErrInvalidAddress) hold.
func (e *AddressError) Unwrap() error { return ErrInvalidAddress }

func refuse(input string, rule Rule, fix string, format string, args ...any) *AddressError {
	return &AddressError{Input: input, Rule: rule, Reason: fmt.Sprintf(format, args...), Fix: fix}
}

// ParseAddress parses a persona path by segment count and checks every rule
// of the grammar. The returned error is an *AddressError.
func ParseAddress(s string) (Address, error) {
	if s == "" {
		return Address{}, refuse(s, RuleEmpty, "use <scope>/<role> or <scope>/<project>/<role>, e.g. root/secretary", "address is empty")
	}
	segs := strings.Split(s, "/")
	if len(segs) < 2 || len(segs) > 3 {
		return Address{}, refuse(s, RuleSegmentCount, segmentCountFix(segs),
			"an address has 2 segments (scope/role) or 3 (scope/project/role), not %d", len(segs))
	}
	for i, seg := range segs {
		if err := checkSegment(s, segs, i, seg, validAddress); err != nil {
			return Address{}, err
		}
	}
	role := segs[len(segs)-1]
	r, ok := LookupRole(role)
	if !ok {
		return Address{}, refuse(s, RuleUnknownRole, "the last segment is the role: one of "+roleNames(),
			"%q is not a role", role)
	}
	scope := segs[0]
	if _, isRole := LookupRole(scope); isRole {
		return Address{}, refuse(s, RuleScopeNamedAsRole, "name the scope for what it holds, e.g. "+example(r, exampleScope+"/"+strings.Join(segs[1:], "/")),
			"scope %q is named like a role", scope)
	}
	if len(segs) == 2 {
		return parseTwo(s, scope, r)
	}
	return parseThree(s, scope, segs[1], r)
}

func parseTwo(s, scope string, r Role) (Address, error) {
	a := Address{Scope: scope, Role: r.Name}
	if scope == RootScope {
		if !r.Arity.Allows(AtRoot) {
			return Address{}, refuse(s, RuleRootRole, rootRoleFix(r),
				"root holds only the reserved roles %s; %q is not one", rootRoles(), r.Name)
		}
		return a, nil
	}
	if r.Arity.Allows(ScopeWide) {
		return a, nil
	}
	if r.Arity == ProjectBound {
		return Address{}, refuse(s, RuleProjectBound, fmt.Sprintf("use %s/<project>/%s", scope, r.Name),
			"role %q is project-bound", r.Name)
	}
	return Address{}, refuse(s, RuleRootOnly, "use root/"+r.Name, "role %q is reserved to root", r.Name)
}

func parseThree(s, scope, project string, r Role) (Address, error) {
	if scope == RootScope {
		return Address{}, refuse(s, RuleRootNoProjects, "use a scope of your own, e.g. "+example(r, exampleScope+"/"+project+"/"+r.Name),
			"root is reserved above workspaces and has no projects")
	}
	if project == RootScope {
		return Address{}, refuse(s, RuleRootReserved, "name the project, e.g. "+example(r, scope+"/"+exampleProject+"/"+r.Name),
			"%q is reserved and cannot be reused as a project", RootScope)
	}
	if _, isRole := LookupRole(project); isRole {
		return Address{}, refuse(s, RuleProjectNamedAsRole, projectLikeRoleFix(scope, project, r),
			"project %q is named like a role", project)
	}
	if !r.Arity.Allows(ProjectBound) {
		fix := "use " + scope + "/" + r.Name
		rule := RuleNotProjectBound
		if r.Arity == AtRoot {
			fix, rule = "use root/"+r.Name, RuleRootOnly
		}
		return Address{}, refuse(s, rule, fix, "role %q is %s and takes no project", r.Name, r.Arity)
	}
	return Address{Scope: scope, Project: project, Role: r.Name}, nil
}

// validAddress reports whether s parses as an address.
func validAddress(s string) bool {
	_, err := ParseAddress(s)
	return err == nil
}

// checkSegment applies the rules every segment shares: not empty, not a
// placeholder, lowercase letters, digits and '-', starting with a letter, at
// most MaxSegmentLen characters. A refusal for upper case suggests s in
// lower case only when valid accepts it, so a suggested fix is never
// refused in turn (Work/lead must not be "fixed" to the project-bound
// work/lead).
func checkSegment(s string, segs []string, i int, seg string, valid func(string) bool) error {
	what := segmentName(len(segs), i)
	if seg == "" {
		return refuse(s, RuleEmptySegment, "remove the extra '/'", "the %s segment is empty", what)
	}
	if placeholders[seg] {
		fix := "leave the project out for a scope-wide role"
		if what != "project" {
			fix = "name a real " + what
		}
		return refuse(s, RulePlaceholder, fix, "%q is a placeholder, and addresses have none", seg)
	}
	if len(seg) > MaxSegmentLen {
		return refuse(s, RuleSegmentLength, fmt.Sprintf("shorten it to at most %d characters", MaxSegmentLen),
			"the %s segment is %d characters long", what, len(seg))
	}
	if j := badByte(seg); j >= 0 {
		fix := "use lowercase letters, digits and '-', starting with a letter"
		if lower := strings.ToLower(s); lower != s && syntaxOK(lower) && valid(lower) {
			fix = "use " + lower
		}
		if j == 0 {
			return refuse(s, RuleSegmentSyntax, fix, "the %s segment %q must start with a lowercase letter", what, seg)
		}
		return refuse(s, RuleSegmentSyntax, fix, "the %s segment %q has %s", what, seg, describeByte(seg, j))
	}
	return nil
}

// badByte is the index of the first byte of seg the segment syntax refuses,
// or -1 when every byte is allowed.
func badByte(seg string) int {
	for j := 0; j < len(seg); j++ {
		c := seg[j]
		if !(c >= 'a' && c <= 'z' || j > 0 && (c >= '0' && c <= '9' || c == '-')) {
			return j
		}
	}
	return -1
}

// syntaxOK reports whether every '/'-separated part of s has valid segment
// syntax and is no placeholder, so that a suggested lowercase spelling is one the parser accepts
// (WORK/CORE_1/LEAD must not be "fixed" to work/core_1/lead).
func syntaxOK(s string) bool {
	for _, seg := range strings.Split(s, "/") {
		if seg == "" || placeholders[seg] || badByte(seg) >= 0 {
			return false
		}
	}
	return true
}

func segmentName(n, i int) string {
	switch {
	case i == 0:
		return "scope"
	case i == n-1:
		return "role"
	default:
		return "project"
	}
}

func describeByte(seg string, j int) string {
	c := seg[j]
	if c < 0x80 {
		return fmt.Sprintf("the character %q", rune(c))
	}
	return "a non-ASCII character"
}

func segmentCountFix(segs []string) string {
	if len(segs) == 1 {
		if r, ok := LookupRole(segs[0]); ok {
			switch {
			case r.Arity.Allows(AtRoot):
				return "use root/" + r.Name
			case r.Arity == ProjectBound:
				return "use <scope>/<project>/" + r.Name
			default:
				return "use <scope>/" + r.Name
			}
		}
	}
	return "use <scope>/<role> or <scope>/<project>/<role>"
}

func rootRoleFix(r Role) string {
	if r.Arity == ProjectBound {
		return "use <scope>/<project>/" + r.Name
	}
	return "use <scope>/" + r.Name
}

func projectLikeRoleFix(scope, project string, r Role) string {
	pr, _ := LookupRole(project)
	if pr.Arity.Allows(ScopeWide) {
		return "use " + scope + "/" + project + " for the scope-wide role, or name the project"
	}
	return "name the project, e.g. " + example(r, scope+"/"+exampleProject+"/"+r.Name)
}

// The scope and project an example address uses when the input's own
// cannot stand in it.
const (
	exampleScope   = "work"
	exampleProject = "core"
)

// example is an address a refusal may suggest: the first candidate the
// parser accepts, else the canonical address of role r (root/<role>,
// work/<role> or work/core/<role>). A suggested fix is always itself a
// valid address, so an operator who types it is not
// refused again.
func example(r Role, candidates ...string) string {
	for _, c := range candidates {
		if _, err := ParseAddress(c); err == nil {
			return c
		}
	}
	switch {
	case r.Arity.Allows(ScopeWide):
		return exampleScope + "/" + r.Name
	case r.Arity.Allows(ProjectBound):
		return exampleScope + "/" + exampleProject + "/" + r.Name
	}
	return RootScope + "/" + r.Name
}

func rootRoles() string {
	var names []string
	for _, r := range Roles {
		if r.Arity.Allows(AtRoot) {
			names = append(names, RootScope+"/"+r.Name)
		}
	}
	return strings.Join(names, " and ")
}

func roleNames() string {
	names := make([]string, len(Roles))
	for i, r := range Roles {
		names[i] = r.Name
	}
	return strings.Join(names, ", ")
}

// CheckSegment validates a lone scope or project name typed into the wizard,
// with the same rules and words as ParseAddress. what is "scope" or "project".
func CheckSegment(what, name string) error {
	segs := []string{name, "x"}
	if what == "project" {
		segs = []string{"x", name, "x"}
	}
	i := 0
	if what == "project" {
		i = 1
	}
	valid := func(lower string) bool { return CheckSegment(what, lower) == nil }
	if err := checkSegment(name, segs, i, name, valid); err != nil {
		return err
	}
	if _, isRole := LookupRole(name); isRole {
		rule := RuleScopeNamedAsRole
		if what == "project" {
			rule = RuleProjectNamedAsRole
		}
		return refuse(name, rule, "choose a name that is not a role ("+roleNames()+")", "%s %q is named like a role", what, name)
	}
	if what == "project" && name == RootScope {
		return refuse(name, RuleRootReserved, "name the project", "%q is reserved and cannot be reused as a project", RootScope)
	}
	return nil
}
