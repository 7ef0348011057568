package registry

import (
	"errors"
	"strings"
	"testing"
)

// TestParseAddressSpecExamples covers every address the spec names:
// "root/secretary,root/operator: reserved installation-wide roles.
// home/secretary,work/coordinator: scope-wide, two segments.
// work/core/lead,work/core/deputy: project duties, three segments."
func TestParseAddressSpecExamples(t *testing.T) {
	tests := []struct {
		in      string
		want    Address
		shape   Arity
		profile Profile
	}{
		{"root/secretary", Address{Scope: "root", Role: "secretary"}, AtRoot, ProfileSecretary},
		{"root/operator", Address{Scope: "root", Role: "operator"}, AtRoot, ProfileProjectLead},
		{"home/secretary", Address{Scope: "home", Role: "secretary"}, ScopeWide, ProfileSecretary},
		{"work/coordinator", Address{Scope: "work", Role: "coordinator"}, ScopeWide, ProfileTeamCoordinator},
		{"work/core/lead", Address{Scope: "work", Project: "core", Role: "lead"}, ProjectBound, ProfileProjectLead},
		{"work/core/deputy", Address{Scope: "work", Project: "core", Role: "deputy"}, ProjectBound, ProfileCoderDeputy},
		// Segment syntax at its edges: digits and '-' after the first letter, 32 characters.
		{"w2/p-1/lead", Address{Scope: "w2", Project: "p-1", Role: "lead"}, ProjectBound, ProfileProjectLead},
		{strings.Repeat("a", 32) + "/coordinator", Address{Scope: strings.Repeat("a", 32), Role: "coordinator"}, ScopeWide, ProfileTeamCoordinator},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseAddress(tt.in)
			if err != nil {
				t.Fatalf("ParseAddress(%q) = %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("ParseAddress(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
			if got.String() != tt.in {
				t.Errorf("String() = %q, want %q", got.String(), tt.in)
			}
			if got.Shape() != tt.shape {
				t.Errorf("Shape() = %v, want %v", got.Shape(), tt.shape)
			}
			if got.Profile() != tt.profile {
				t.Errorf("Profile() = %q, want %q", got.Profile(), tt.profile)
			}
		})
	}
}

// TestParseAddressRefusals: "Every refusal names the rule it broke and
// suggests the fix".
func TestParseAddressRefusals(t *testing.T) {
	long := strings.Repeat("a", 33)
	tests := []struct {
		in   string
		rule Rule
		msg  string
	}{
		{"", RuleEmpty, "address is empty; use <scope>/<role> or <scope>/<project>/<role>, e.g. root/secretary"},
		{"work", RuleSegmentCount, "work: an address has 2 segments (scope/role) or 3 (scope/project/role), not 1; use <scope>/<role> or <scope>/<project>/<role>"},
		{"secretary", RuleSegmentCount, "secretary: an address has 2 segments (scope/role) or 3 (scope/project/role), not 1; use root/secretary"},
		{"lead", RuleSegmentCount, "lead: an address has 2 segments (scope/role) or 3 (scope/project/role), not 1; use <scope>/<project>/lead"},
		{"coordinator", RuleSegmentCount, "coordinator: an address has 2 segments (scope/role) or 3 (scope/project/role), not 1; use <scope>/coordinator"},
		{"work/core/lead/x", RuleSegmentCount, "work/core/lead/x: an address has 2 segments (scope/role) or 3 (scope/project/role), not 4; use <scope>/<role> or <scope>/<project>/<role>"},
		{"work//lead", RuleEmptySegment, "work//lead: the project segment is empty; remove the extra '/'"},
		{"/secretary", RuleEmptySegment, "/secretary: the scope segment is empty; remove the extra '/'"},
		{"work/", RuleEmptySegment, "work/: the role segment is empty; remove the extra '/'"},
		{"Work/lead", RuleSegmentSyntax, `Work/lead: the scope segment "Work" must start with a lowercase letter; use lowercase letters, digits and '-', starting with a letter`},
		{"Work/core/lead", RuleSegmentSyntax, `Work/core/lead: the scope segment "Work" must start with a lowercase letter; use work/core/lead`},
		{"work/Core/lead", RuleSegmentSyntax, `work/Core/lead: the project segment "Core" must start with a lowercase letter; use work/core/lead`},
		{"1work/secretary", RuleSegmentSyntax, `1work/secretary: the scope segment "1work" must start with a lowercase letter; use lowercase letters, digits and '-', starting with a letter`},
		{"work/core_x/lead", RuleSegmentSyntax, `work/core_x/lead: the project segment "core_x" has the character '_'; use lowercase letters, digits and '-', starting with a letter`},
		{"WORK/CORE_1/LEAD", RuleSegmentSyntax, `WORK/CORE_1/LEAD: the scope segment "WORK" must start with a lowercase letter; use lowercase letters, digits and '-', starting with a letter`},
		{"wörk/secretary", RuleSegmentSyntax, `wörk/secretary: the scope segment "wörk" has a non-ASCII character; use lowercase letters, digits and '-', starting with a letter`},
		{"work/core/lead ", RuleSegmentSyntax, `work/core/lead : the role segment "lead " has the character ' '; use lowercase letters, digits and '-', starting with a letter`},
		{long + "/secretary", RuleSegmentLength, long + "/secretary: the scope segment is 33 characters long; shorten it to at most 32 characters"},
		{"-/secretary", RulePlaceholder, `-/secretary: "-" is a placeholder, and addresses have none; name a real scope`},
		{"work/-/coordinator", RulePlaceholder, `work/-/coordinator: "-" is a placeholder, and addresses have none; leave the project out for a scope-wide role`},
		{"work/all/lead", RulePlaceholder, `work/all/lead: "all" is a placeholder, and addresses have none; leave the project out for a scope-wide role`},
		{"work/*/deputy", RulePlaceholder, `work/*/deputy: "*" is a placeholder, and addresses have none; leave the project out for a scope-wide role`},
		{"work/core/all", RulePlaceholder, `work/core/all: "all" is a placeholder, and addresses have none; name a real role`},
		{"work/core/boss", RuleUnknownRole, `work/core/boss: "boss" is not a role; the last segment is the role: one of secretary, operator, coordinator, lead, deputy`},
		{"root/root", RuleUnknownRole, `root/root: "root" is not a role; the last segment is the role: one of secretary, operator, coordinator, lead, deputy`},
		{"root/coordinator", RuleRootRole, `root/coordinator: root holds only the reserved roles root/secretary and root/operator; "coordinator" is not one; use <scope>/coordinator`},
		{"root/lead", RuleRootRole, `root/lead: root holds only the reserved roles root/secretary and root/operator; "lead" is not one; use <scope>/<project>/lead`},
		{"root/core/lead", RuleRootNoProjects, "root/core/lead: root is reserved above workspaces and has no projects; use a scope of your own, e.g. work/core/lead"},
		{"root/core/secretary", RuleRootNoProjects, "root/core/secretary: root is reserved above workspaces and has no projects; use a scope of your own, e.g. work/secretary"},
		{"work/root/lead", RuleRootReserved, `work/root/lead: "root" is reserved and cannot be reused as a project; name the project, e.g. work/core/lead`},
		{"work/lead", RuleProjectBound, `work/lead: role "lead" is project-bound; use work/<project>/lead`},
		{"home/deputy", RuleProjectBound, `home/deputy: role "deputy" is project-bound; use home/<project>/deputy`},
		{"work/core/coordinator", RuleNotProjectBound, `work/core/coordinator: role "coordinator" is scope-wide and takes no project; use work/coordinator`},
		{"work/core/secretary", RuleNotProjectBound, `work/core/secretary: role "secretary" is root or scope-wide and takes no project; use work/secretary`},
		{"work/operator", RuleRootOnly, `work/operator: role "operator" is reserved to root; use root/operator`},
		{"work/core/operator", RuleRootOnly, `work/core/operator: role "operator" is root only and takes no project; use root/operator`},
		{"work/lead/deputy", RuleProjectNamedAsRole, `work/lead/deputy: project "lead" is named like a role; name the project, e.g. work/core/deputy`},
		{"work/secretary/lead", RuleProjectNamedAsRole, `work/secretary/lead: project "secretary" is named like a role; use work/secretary for the scope-wide role, or name the project`},
		{"lead/secretary", RuleScopeNamedAsRole, `lead/secretary: scope "lead" is named like a role; name the scope for what it holds, e.g. work/secretary`},
		{"deputy/core/lead", RuleScopeNamedAsRole, `deputy/core/lead: scope "deputy" is named like a role; name the scope for what it holds, e.g. work/core/lead`},
	}
	seen := map[Rule]bool{}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ParseAddress(tt.in)
			var ae *AddressError
			if !errors.As(err, &ae) {
				t.Fatalf("ParseAddress(%q) error = %v, want *AddressError", tt.in, err)
			}
			if !errors.Is(err, ErrInvalidAddress) {
				t.Errorf("error does not wrap ErrInvalidAddress")
			}
			if ae.Rule != tt.rule {
				t.Errorf("rule = %s, want %s", ae.Rule, tt.rule)
			}
			if err.Error() != tt.msg {
				t.Errorf("message\n got %s\nwant %s", err.Error(), tt.msg)
			}
		})
		seen[tt.rule] = true
	}
	if len(tests) < 25 {
		t.Errorf("only %d refusals; want at least 25", len(tests))
	}
	for _, r := range allRules {
		if !seen[r] {
			t.Errorf("rule %s has no refusal in the table", r)
		}
	}
}

// allRules is every Rule constant; the refusal table must break each one.
var allRules = []Rule{
	RuleEmpty, RuleSegmentCount, RuleEmptySegment, RuleSegmentSyntax, RuleSegmentLength, RulePlaceholder,
	RuleUnknownRole, RuleRootRole, RuleRootNoProjects, RuleRootReserved, RuleProjectBound,
	RuleNotProjectBound, RuleRootOnly, RuleProjectNamedAsRole, RuleScopeNamedAsRole,
}

func TestCheckSegment(t *testing.T) {
	tests := []struct {
		what, name string
		rule       Rule // "" means accepted
	}{
		{"scope", "work", ""},
		{"scope", "root", ""},
		{"project", "core", ""},
		{"scope", "lead", RuleScopeNamedAsRole},
		{"project", "deputy", RuleProjectNamedAsRole},
		{"project", "root", RuleRootReserved},
		{"project", "all", RulePlaceholder},
		{"scope", "", RuleEmptySegment},
		{"scope", "Work", RuleSegmentSyntax},
		{"project", strings.Repeat("p", 33), RuleSegmentLength},
	}
	for _, tt := range tests {
		err := CheckSegment(tt.what, tt.name)
		var ae *AddressError
		switch {
		case tt.rule == "" && err != nil:
			t.Errorf("CheckSegment(%s, %q) = %v, want nil", tt.what, tt.name, err)
		case tt.rule != "" && !errors.As(err, &ae):
			t.Errorf("CheckSegment(%s, %q) = %v, want rule %s", tt.what, tt.name, err, tt.rule)
		case tt.rule != "" && ae.Rule != tt.rule:
			t.Errorf("CheckSegment(%s, %q) rule = %s, want %s", tt.what, tt.name, ae.Rule, tt.rule)
		}
	}
}

// FuzzParseAddress: no input panics; every accepted address formats back to
// itself and re-parses to the same value; every refusal is an *AddressError
// with a rule and a message that starts with the input.
func FuzzParseAddress(f *testing.F) {
	for _, s := range []string{"root/secretary", "work/core/lead", "work/lead", "a/b/c/d", "", "/", "Work/all/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAddress(s)
		if err != nil {
			var ae *AddressError
			if !errors.As(err, &ae) || ae.Rule == "" || ae.Reason == "" {
				t.Fatalf("ParseAddress(%q) = %#v, want *AddressError with a rule and reason", s, err)
			}
			if s != "" && !strings.HasPrefix(err.Error(), s+": ") {
				t.Fatalf("message %q does not name the input %q", err.Error(), s)
			}
			return
		}
		if a.String() != s {
			t.Fatalf("ParseAddress(%q).String() = %q", s, a.String())
		}
		b, err := ParseAddress(a.String())
		if err != nil || b != a {
			t.Fatalf("re-parse of %q = %+v, %v; want %+v", s, b, err, a)
		}
		if _, ok := a.RoleInfo(); !ok || a.Profile() == "" {
			t.Fatalf("accepted %q has no role registry row", s)
		}
	})
}
