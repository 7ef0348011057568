package stamp

import (
	"errors"
	"strings"
	"testing"
)

// damaged is one hand-damaged stamp: a valid stamp of seat, mutated, must be
// refused with rule named (and tool, when one is concerned).
type damaged struct {
	name   string
	seat   string
	mutate func(s *Stamp)
	raw    func(b []byte) []byte // edits the bytes instead, when set
	rule   Rule
	tool   string
}

func find(s *Stamp, name string) int {
	for i, t := range s.Tools {
		if t.Name == name {
			return i
		}
	}
	return -1
}

var damagedStamps = []damaged{
	{name: "duplicate tool name", seat: "root/secretary", rule: RuleDuplicateName, tool: "workspace_read",
		mutate: func(s *Stamp) { s.Tools = append(s.Tools, s.Tools[find(s, "workspace_read")]) }},
	{name: "duplicate handler action", seat: "work/core/lead", rule: RuleDuplicateAction, tool: "get_run",
		mutate: func(s *Stamp) { s.Tools[find(s, "get_run")].HandlerAction = "run.list" }},
	{name: "missing required tool", seat: "work/coordinator", rule: RuleMissingTool, tool: "get_human_surface_status",
		mutate: func(s *Stamp) {
			i := find(s, "get_human_surface_status")
			s.Tools = append(s.Tools[:i], s.Tools[i+1:]...)
		}},
	{name: "unknown access value", seat: "work/core/deputy", rule: RuleAccess, tool: "workspace_write",
		mutate: func(s *Stamp) { s.Tools[find(s, "workspace_write")].Access = "deny" }},
	{name: "extra tool beyond the profile: deputy resolves", seat: "work/core/deputy", rule: RuleExtraTool, tool: "resolve_decision",
		mutate: func(s *Stamp) {
			s.Tools = append(s.Tools, Tool{Name: "resolve_decision", HandlerAction: "decision.resolve", Access: AccessAllow, Scope: ScopeSubtree})
		}},
	{name: "extra tool not in the inventory", seat: "work/core/lead", rule: RuleExtraTool, tool: "read_secret",
		mutate: func(s *Stamp) {
			s.Tools = append(s.Tools, Tool{Name: "read_secret", HandlerAction: "secret.read", Access: AccessAllow, Scope: ScopeOwn})
		}},
	{name: "address/profile mismatch", seat: "work/core/deputy", rule: RuleProfile,
		mutate: func(s *Stamp) { s.Path.Profile = "project-lead" }},
	{name: "address parts disagree", seat: "work/core/lead", rule: RuleAddressParts,
		mutate: func(s *Stamp) { s.Path.Project = "web" }},
	{name: "unparsable address", seat: "work/coordinator", rule: RuleAddress,
		mutate: func(s *Stamp) { s.Path.Address = "work/all/coordinator" }},
	{name: "dot-dot in a mutable path", seat: "work/core/lead", rule: RulePathEscape,
		mutate: func(s *Stamp) {
			s.Workspace.MutablePaths = append(s.Workspace.MutablePaths, "memory/../../other/QUEUE.md")
		}},
	{name: "absolute mutable path", seat: "root/secretary", rule: RulePathAbsolute,
		mutate: func(s *Stamp) { s.Workspace.MutablePaths = append(s.Workspace.MutablePaths, "/etc/passwd") }},
	{name: "empty mutable path", seat: "root/secretary", rule: RulePathEmpty,
		mutate: func(s *Stamp) { s.Workspace.MutablePaths = append(s.Workspace.MutablePaths, "") }},
	{name: "unclean mutable path", seat: "root/secretary", rule: RulePathUnclean,
		mutate: func(s *Stamp) { s.Workspace.MutablePaths = append(s.Workspace.MutablePaths, "memory//x/") }},
	{name: "deputy bound to another project's lead", seat: "work/core/deputy", rule: RuleOwningLead,
		mutate: func(s *Stamp) { s.Authority.OwningLead = "work/web/lead" }},
	{name: "lead with an owning lead", seat: "work/core/lead", rule: RuleOwningLead,
		mutate: func(s *Stamp) { s.Authority.OwningLead = "work/core/lead" }},
	{name: "human authority not human:<name>", seat: "root/secretary", rule: RuleHumanAuthority,
		mutate: func(s *Stamp) { s.Authority.Human = "henry" }},
	{name: "coordinator with a malformed lane approver", seat: "work/coordinator", rule: RuleLaneApprover,
		mutate: func(s *Stamp) { s.Authority.LaneApprover = "henry" }},
	{name: "deputy with a lane approver", seat: "work/core/deputy", rule: RuleLaneApprover,
		mutate: func(s *Stamp) { s.Authority.LaneApprover = "human:henry" }},
	{name: "publication downgraded to allow", seat: "work/core/lead", rule: RuleToolAccess, tool: PublishTool,
		mutate: func(s *Stamp) { s.Tools[find(s, PublishTool)].Access = AccessAllow }},
	{name: "secretary resolve widened to subtree", seat: "root/secretary", rule: RuleToolScope, tool: "resolve_decision",
		mutate: func(s *Stamp) { s.Tools[find(s, "resolve_decision")].Scope = ScopeSubtree }},
	{name: "scope outside the vocabulary", seat: "root/secretary", rule: RuleScope, tool: "workspace_list",
		mutate: func(s *Stamp) { s.Tools[find(s, "workspace_list")].Scope = "everything" }},
	{name: "handler action differs from the inventory", seat: "root/secretary", rule: RuleToolAction, tool: "workspace_read",
		mutate: func(s *Stamp) { s.Tools[find(s, "workspace_read")].HandlerAction = "workspace.read_all" }},
	{name: "lead binds a human surface", seat: "work/core/lead", rule: RuleSurfaceBinding,
		mutate: func(s *Stamp) { s.HumanSurfaces = []SurfaceBinding{{Surface: DefaultSurface, Target: "human:henry"}} }},
	{name: "unknown schema version", seat: "root/secretary", rule: RuleSchemaVersion,
		raw: func(b []byte) []byte {
			return []byte(strings.Replace(string(b), `"schema_version": 3`, `"schema_version": 4`, 1))
		}},
	{name: "no version at all", seat: "root/secretary", rule: RuleSchemaVersion,
		raw: func(b []byte) []byte { return []byte(strings.Replace(string(b), `"schema_version": 3,`, ``, 1)) }},
	{name: "unknown field", seat: "root/secretary", rule: RuleSchema,
		raw: func(b []byte) []byte {
			return []byte(strings.Replace(string(b), `"graph_namespace"`, `"tenant_secret": "x", "graph_namespace"`, 1))
		}},
	{name: "duplicate key", seat: "root/secretary", rule: RuleCanonical,
		raw: func(b []byte) []byte {
			return []byte(strings.Replace(string(b), `"graph_namespace"`, `"tools": [], "graph_namespace"`, 1))
		}},
	{name: "not JSON", seat: "root/secretary", rule: RuleJSON,
		raw: func(b []byte) []byte { return b[:len(b)/2] }},
}

func TestDamagedStampsAreRefusedWithTheRuleNamed(t *testing.T) {
	if len(damagedStamps) < 15 {
		t.Fatalf("only %d damaged stamps", len(damagedStamps))
	}
	for _, d := range damagedStamps {
		t.Run(d.name, func(t *testing.T) {
			s := mustBuild(t, d.seat)
			if d.mutate != nil {
				d.mutate(&s)
			}
			b := mustMarshal(t, s)
			if d.raw != nil {
				b = d.raw(b)
			}
			_, err := Read(b)
			if err == nil {
				t.Fatal("damaged stamp accepted")
			}
			if !errors.Is(err, ErrInvalidStamp) && !errors.Is(err, ErrUnknownVersion) {
				t.Errorf("error %v wraps neither ErrInvalidStamp nor ErrUnknownVersion", err)
			}
			var hit bool
			for _, p := range ProblemsOf(err) {
				hit = hit || p.Rule == d.rule && (d.tool == "" || p.Tool == d.tool)
			}
			if !hit {
				t.Fatalf("want rule %s (tool %q), got:\n%v", d.rule, d.tool, err)
			}
			if d.mutate != nil {
				if _, _, werr := Write(t.TempDir(), s); werr == nil {
					t.Error("Write wrote a damaged stamp")
				}
			}
		})
	}
}

func TestEveryProblemIsListedNotJustTheFirst(t *testing.T) {
	s := mustBuild(t, "work/core/deputy")
	s.Tools = s.Tools[2:] // drops workspace_list and workspace_stat
	s.Tools[0].Access = "maybe"
	s.Workspace.MutablePaths = []string{"../up", "/abs"}
	s.Authority.OwningLead = "work/other/lead"
	_, err := Read(mustMarshal(t, s))
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want *ValidationError, got %v", err)
	}
	for _, want := range []Rule{RuleMissingTool, RuleAccess, RulePathEscape, RulePathAbsolute, RuleOwningLead, RuleSchema} {
		if !ve.Has(want) {
			t.Errorf("rule %s not reported in:\n%v", want, err)
		}
	}
	missing := map[string]bool{}
	for _, p := range ve.Problems {
		if p.Rule == RuleMissingTool {
			missing[p.Tool] = true
		}
	}
	if !missing["workspace_list"] || !missing["workspace_stat"] || len(missing) != 2 {
		t.Errorf("missing tools named %v, want workspace_list and workspace_stat", missing)
	}
}

func TestBuildNeedsARegisteredAddress(t *testing.T) {
	// "The factory has NO address default of its own"
	for _, addr := range []string{"", "secretary", "root/lead", "work/lead", "root/core/lead"} {
		in := inputFor("root/secretary")
		in.Address = addr
		if _, err := Build(in); !errors.Is(err, ErrNoAddress) {
			t.Errorf("Build(%q) = %v, want ErrNoAddress", addr, err)
		}
	}
	s := mustBuild(t, "root/operator")
	if s.Path.Profile != "project-lead" || s.Path.Address != "root/operator" {
		t.Errorf("root/operator stamped as %+v", s.Path)
	}
}

func TestBuildRefusesBadBindingsBeforeWriting(t *testing.T) {
	in := inputFor("work/core/deputy")
	in.Workspace.MutablePaths = []string{"../../etc"}
	in.Authority.OwningLead = "work/web/lead"
	_, err := Build(in)
	var ve *ValidationError
	if !errors.As(err, &ve) || !ve.Has(RulePathEscape) || !ve.Has(RuleOwningLead) {
		t.Fatalf("want path-escape and owning-lead, got %v", err)
	}
}
