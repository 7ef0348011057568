package stamp

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

func TestProjectionEqualityOverAllFourClasses(t *testing.T) {
	// "the MCP/channel server exposes exactly tools[].name; the handler
	// authorizes the matching tools[].handler_action, access, and scope; and
	// the launcher passes exactly tools[].name as its tool allowlist."
	for _, p := range registry.Profiles {
		s := mustBuild(t, seats[p])
		proj, err := Project(mustMarshal(t, s))
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckProjections(proj); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		names := toolNames(s.Tools)
		if !slices.Equal(proj.MCP, names) || !slices.Equal(proj.Launcher, names) {
			t.Errorf("%s: MCP %v launcher %v", p, proj.MCP, proj.Launcher)
		}
		for _, tl := range s.Tools {
			if g := proj.Handler[tl.HandlerAction]; g != (HandlerGrant{Tool: tl.Name, Access: tl.Access, Scope: tl.Scope}) {
				t.Errorf("%s: handler row of %s is %+v", p, tl.HandlerAction, g)
			}
		}
		if err := BootCheck(s, Handlers()); err != nil {
			t.Errorf("%s: boot: %v", p, err)
		}
	}
}

func TestProjectionLossNamesTheTool(t *testing.T) {
	s := mustBuild(t, "work/core/lead")
	s.Tools[find(&s, "get_run")].HandlerAction = "run.list" // shared action: one handler row lost
	proj := ProjectTools(s.Tools)
	err := CheckProjections(proj)
	if !errors.Is(err, ErrNotStanding) || !strings.Contains(err.Error(), "[get_run]") {
		t.Fatalf("want a loss naming get_run, got %v", err)
	}
	proj = ProjectTools(mustBuild(t, "work/core/lead").Tools)
	proj.Launcher = proj.Launcher[1:]
	if err := CheckProjections(proj); err == nil || !strings.Contains(err.Error(), "[workspace_list]") {
		t.Fatalf("launcher loss not named: %v", err)
	}
}

func TestBootCheckNamesTheUnhandledTool(t *testing.T) {
	// "Boot validation reports the exact missing tool and refuses to
	// advertise the persona as standing."
	s := mustBuild(t, "work/coordinator")
	handlers := Handlers()
	delete(handlers, "human.apply_reaction")
	err := BootCheck(s, handlers)
	if !errors.Is(err, ErrNotStanding) {
		t.Fatalf("boot with a missing handler = %v", err)
	}
	ps := ProblemsOf(err)
	if len(ps) != 1 || ps[0].Tool != "apply_human_reaction" || ps[0].Rule != RuleHandlerMissing {
		t.Fatalf("problems %v", ps)
	}
	s.Authority.LaneApprover = ""
	if err := BootCheck(s, Handlers()); !hasRule(err, RuleBindingMissing) {
		t.Fatalf("coordinator without lane approver booted: %v", err)
	}
}

func TestProjectReadsLegacyFilesThroughTheirReader(t *testing.T) {
	b := []byte(`{"version":1,"persona":"Heze","class":"project-lead","owner":"henry","tools":["workspace_list"]}`)
	if _, err := Project(b); err == nil {
		t.Fatal("an incomplete v1 stamp was projected")
	}
	if _, err := Project([]byte("{")); err == nil {
		t.Fatal("garbage was projected")
	}
}

// A stamp that gives its tools twice has no one meaning: encoding/json
// keeps the last list, another language's parser may keep the first.
// Neither the projections nor Decode pick one; both refuse the file,
// naming the key under the canonical-form rule (a duplicate key has no
// RFC 8785 form, so no hash).
func TestAStampWithItsToolsTwiceIsRefused(t *testing.T) {
	b := mustMarshal(t, mustBuild(t, "work/core/lead"))
	end := bytes.LastIndexByte(b, '}')
	twice := append(append(bytes.Clone(b[:end]), `, "tools": []`...), b[end:]...)
	if _, err := Project(twice); !hasRule(err, RuleCanonical) || !strings.Contains(err.Error(), `"tools" is given twice`) {
		t.Errorf("Project of a stamp with tools twice: %v; want it refused under %s, naming the key", err, RuleCanonical)
	}
	if _, err := Decode("stamp", twice); !hasRule(err, RuleCanonical) || !strings.Contains(err.Error(), `"tools" is given twice`) {
		t.Errorf("Decode of a stamp with tools twice: %v; want it refused under %s, naming the key", err, RuleCanonical)
	}
}

// A legacy stamp with its class twice is refused the same way, by every
// reader: which class it means decides its role path.
func TestALegacyStampWithItsClassTwiceIsRefused(t *testing.T) {
	b := []byte(`{"version":1,"persona":"Heze","class":"coder-deputy","owner":"henry","project":"core","class":"secretary","tools":[]}`)
	for name, read := range map[string]func() error{
		"Read":    func() error { _, err := Read(b); return err },
		"Decode":  func() error { _, err := Decode("stamp", b); return err },
		"Project": func() error { _, err := Project(b); return err },
	} {
		if err := read(); !hasRule(err, RuleCanonical) || !strings.Contains(err.Error(), `"class" is given twice`) {
			t.Errorf("%s of a v1 stamp with class twice: %v; want it refused under %s, naming the key", name, err, RuleCanonical)
		}
	}
}
