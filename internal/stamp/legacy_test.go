package stamp

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

func TestLegacyFixturesMapToRolePaths(t *testing.T) {
	// "The runtime remains an explicit reader for existing v1/v2 stamps and
	// maps their capability class to a canonical role path."
	cases := []struct {
		file, address string
		version       int
		profile       registry.Profile
	}{
		{"v1-secretary.json", "root/secretary", 1, registry.ProfileSecretary},
		{"v1-operator.json", "root/operator", 1, registry.ProfileProjectLead},
		{"v1-deputy.json", "work/core/deputy", 1, registry.ProfileCoderDeputy},
		{"v2-lead.json", "home/garden/lead", 2, registry.ProfileProjectLead},
		{"v2-coordinator.json", "work/coordinator", 2, registry.ProfileTeamCoordinator},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			p := filepath.Join("testdata", c.file)
			before, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			h, _ := Hash(before)
			s, err := load(p, h)
			if err != nil {
				t.Fatal(err)
			}
			if s.Path.Address != c.address || s.SchemaVersion != c.version || s.Path.Profile != string(c.profile) {
				t.Errorf("mapped to %s v%d %s, want %s v%d %s", s.Path.Address, s.SchemaVersion, s.Path.Profile, c.address, c.version, c.profile)
			}
			// A legacy stamp carries its class's tools but the versioned
			// ones added after it was written.
			required := slices.DeleteFunc(ToolsFor(c.profile), func(t Tool) bool { inv, _ := LookupTool(t.Name); return inv.Optional })
			if !slices.Equal(toolNames(s.Tools), toolNames(required)) {
				t.Errorf("tools %v", toolNames(s.Tools))
			}
			err = BootCheck(s, Handlers())
			if c.file == "v1-secretary.json" {
				// v1 recorded no surface bindings: its messaging tools have
				// nothing to reach, and boot says so by tool.
				if !hasRule(err, RuleBindingMissing) {
					t.Errorf("boot check of an unbound v1 secretary: %v", err)
				}
			} else if err != nil {
				t.Errorf("boot check: %v", err)
			}
			after, _ := os.ReadFile(p)
			if !bytes.Equal(before, after) {
				t.Error("reading rewrote the legacy file; old stamps are never rewritten in place")
			}
		})
	}
}

func TestLegacyDeputyAnswersToItsProjectLead(t *testing.T) {
	b, _ := os.ReadFile(filepath.Join("testdata", "v1-deputy.json"))
	s, err := Read(b)
	if err != nil {
		t.Fatal(err)
	}
	if s.Authority.OwningLead != "work/core/lead" || s.Authority.Human != "human:henry" {
		t.Errorf("authority %+v", s.Authority)
	}
}

func TestLegacyClassWithoutAPathIsRefused(t *testing.T) {
	_, err := Read([]byte(`{"version":1,"persona":"Porrima","class":"coder-deputy","owner":"henry","tools":[]}`))
	if !hasRule(err, RuleLegacyClass) {
		t.Fatalf("deputy without project: %v", err)
	}
	_, err = Read([]byte(`{"version":1,"persona":"X","class":"intern","owner":"henry","tools":[]}`))
	if !hasRule(err, RuleLegacyClass) {
		t.Fatalf("unknown class: %v", err)
	}
	// A legacy stamp missing a tool its class needs is refused by name too.
	_, err = Read([]byte(`{"version":1,"persona":"Heze","class":"project-lead","owner":"henry","tools":["workspace_list"]}`))
	if !hasRule(err, RuleMissingTool) {
		t.Fatalf("incomplete v1: %v", err)
	}
}

func TestLegacyAddressTable(t *testing.T) {
	for _, c := range []struct{ class, scope, project, want string }{
		{"secretary", "", "", "root/secretary"},
		{"secretary", "home", "", "home/secretary"},
		{"team-coordinator", "", "", "work/coordinator"},
		{"project-lead", "", "", "root/operator"},
		{"project-lead", "", "core", "work/core/lead"},
		{"coder-deputy", "home", "garden", "home/garden/deputy"},
	} {
		a, err := LegacyAddress(c.class, c.scope, c.project)
		if err != nil || a.String() != c.want {
			t.Errorf("LegacyAddress(%s,%q,%q) = %v, %v; want %s", c.class, c.scope, c.project, a, err, c.want)
		}
	}
}

func hasRule(err error, rule Rule) bool {
	for _, p := range ProblemsOf(err) {
		if p.Rule == rule {
			return true
		}
	}
	return false
}

func TestLegacyKeysMatchExactly(t *testing.T) {
	// encoding/json alone would take "ClAss" for "class".
	b, _ := os.ReadFile(filepath.Join("testdata", "v2-coordinator.json"))
	for _, bad := range []string{
		strings.Replace(string(b), `"class"`, `"ClAss"`, 1),
		strings.Replace(string(b), `"surface"`, `"Surface"`, 1),
		strings.Replace(string(b), `"generation"`, `"Generation"`, 1),
	} {
		_, err := Read([]byte(bad))
		if !hasRule(err, RuleSchema) || !strings.Contains(err.Error(), "field names match exactly") {
			t.Errorf("inexact key accepted: %v", err)
		}
	}
}
