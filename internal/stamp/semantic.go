package stamp

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// Semantic checks what a JSON Schema cannot: the address against the role
// registry, the tools against the class matrix, workspace confinement and the
// authority bindings. It returns every problem, in field order. Fields that
// did not exist before schema v3 (identity, graph namespace, composition
// hash) are only required of v3 stamps.
func Semantic(s Stamp) []Problem {
	var ps []Problem
	add := func(rule Rule, field, tool, format string, args ...any) {
		ps = append(ps, Problem{Rule: rule, Field: field, Tool: tool, Message: fmt.Sprintf(format, args...)})
	}
	if s.SchemaVersion < 1 || s.SchemaVersion > SchemaVersion {
		add(RuleSchemaVersion, "schema_version", "", "version %d has no reader; known: 1, 2, %d", s.SchemaVersion, SchemaVersion)
	}
	if s.SchemaVersion == SchemaVersion {
		if s.Persona.Name == "" || s.Persona.Generation < 1 {
			add(RuleIdentity, "persona", "", "a persona needs a name and a generation of at least 1")
		}
		if s.GraphNamespace == "" {
			add(RuleGraphNamespace, "graph_namespace", "", "the graph namespace is empty; the graph query tool would have no bound")
		}
	}
	profile := checkPath(s.Path, add)
	checkTools(s.Tools, profile, add)
	checkWorkspace(s.Workspace, add)
	checkAuthority(s, profile, add)
	checkSurfaces(s, profile, add)
	return ps
}

// scopeSet is the vocabulary as a set, for the per-tool check.
var scopeSet = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range Scopes() {
		m[s] = true
	}
	return m
}()

type adder func(rule Rule, field, tool, format string, args ...any)

// checkPath checks the canonical address and returns the profile the role
// registry gives it ("" when neither the address nor the claim is usable).
func checkPath(p Path, add adder) registry.Profile {
	claimed := registry.Profile(p.Profile)
	if !slices.Contains(registry.Profiles, claimed) {
		add(RuleProfile, "path.profile", "", "%q is not a capability profile; known: %v", p.Profile, registry.Profiles)
		claimed = ""
	}
	a, err := registry.ParseAddress(p.Address)
	if err != nil {
		rule := ""
		if ae, ok := err.(*registry.AddressError); ok {
			rule = " (address rule " + string(ae.Rule) + ")"
		}
		add(RuleAddress, "path.address", "", "%v%s", err, rule)
		return claimed
	}
	for _, f := range []struct{ field, got, want string }{
		{"path.scope", p.Scope, a.Scope}, {"path.project", p.Project, a.Project}, {"path.role", p.Role, a.Role},
	} {
		if f.got != f.want {
			add(RuleAddressParts, f.field, "", "%q disagrees with address %s, which gives %q", f.got, a, f.want)
		}
	}
	if want := a.Profile(); claimed != "" && claimed != want {
		add(RuleProfile, "path.profile", "", "address %s is role %q, which the role registry stamps as %s, not %s",
			a, a.Role, want, claimed)
	}
	return a.Profile()
}

// checkTools checks every tool against the class matrix and names each
// missing one.
func checkTools(tools []Tool, profile registry.Profile, add adder) {
	names := make(map[string]int, len(tools))
	actions := make(map[string]int, len(tools))
	for i, t := range tools {
		at := func(f string) string { return fmt.Sprintf("tools[%d].%s", i, f) }
		if j, dup := names[t.Name]; dup {
			add(RuleDuplicateName, at("name"), t.Name, "tool name repeated (first at tools[%d])", j)
		} else {
			names[t.Name] = i
		}
		if j, dup := actions[t.HandlerAction]; dup {
			add(RuleDuplicateAction, at("handler_action"), t.Name, "handler action %q repeated (first at tools[%d])", t.HandlerAction, j)
		} else {
			actions[t.HandlerAction] = i
		}
		validAccess := t.Access == AccessAllow || t.Access == AccessConfirm
		if !validAccess {
			add(RuleAccess, at("access"), t.Name, "access %q is neither allow nor confirm; denied tools are not exposed", t.Access)
		}
		validScope := scopeSet[t.Scope]
		if !validScope {
			add(RuleScope, at("scope"), t.Name, "scope %q is not in the vocabulary %v", t.Scope, Scopes())
		}
		if profile == "" {
			continue
		}
		want, ok := ExpectedTool(profile, t.Name)
		if !ok {
			why := "the class matrix does not expose it to " + string(profile)
			if _, known := LookupTool(t.Name); !known {
				why = "it is not in the tool inventory"
			}
			add(RuleExtraTool, at("name"), t.Name, "tool beyond the class profile: %s", why)
			continue
		}
		if t.HandlerAction != want.HandlerAction {
			add(RuleToolAction, at("handler_action"), t.Name, "handler action %q, the inventory says %q", t.HandlerAction, want.HandlerAction)
		}
		if validAccess && t.Access != want.Access {
			add(RuleToolAccess, at("access"), t.Name, "access %s, the class matrix gives %s %s", t.Access, profile, want.Access)
		}
		if validScope && t.Scope != want.Scope {
			add(RuleToolScope, at("scope"), t.Name, "scope %s, the class matrix gives %s %s", t.Scope, profile, want.Scope)
		}
	}
	for _, want := range ToolsFor(profile) {
		if inv, _ := LookupTool(want.Name); inv.Optional {
			continue
		}
		if _, ok := names[want.Name]; !ok {
			add(RuleMissingTool, "tools", want.Name, "required tool %s of class %s is missing", want.Name, profile)
		}
	}
}

// checkWorkspace confines every mutable path to the persona's own workspace.
func checkWorkspace(ws Workspace, add adder) {
	seen := map[string]bool{}
	for i, p := range ws.MutablePaths {
		field := fmt.Sprintf("workspace.mutable_paths[%d]", i)
		switch {
		case strings.TrimSpace(p) == "":
			add(RulePathEmpty, field, "", "a mutable path is empty")
			continue
		case strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || len(p) > 1 && p[1] == ':':
			add(RulePathAbsolute, field, "", "%q is absolute; mutable paths are relative to the persona's own workspace", p)
		case slices.Contains(strings.Split(strings.ReplaceAll(p, `\`, "/"), "/"), ".."):
			add(RulePathEscape, field, "", "%q has a \"..\" segment and could leave the persona's own workspace", p)
		case strings.Contains(p, `\`) || path.Clean(p) != p:
			add(RulePathUnclean, field, "", "%q is not clean; write it as %q with '/' separators", p, path.Clean(strings.ReplaceAll(p, `\`, "/")))
		}
		if seen[p] {
			add(RulePathDuplicate, field, "", "%q is listed twice", p)
		}
		seen[p] = true
	}
}

// isHuman reports whether s is a canonical human authority, human:<name>,
// by the registry's own rule (registry.NormalizeHuman).
func isHuman(s string) bool {
	if !strings.HasPrefix(s, "human:") {
		return false
	}
	norm, err := registry.NormalizeHuman(s)
	return err == nil && norm == s
}

// checkAuthority binds the deputy to its owning lead, the coordinator to its
// lane approver, and every persona to a bound human.
func checkAuthority(s Stamp, profile registry.Profile, add adder) {
	au := s.Authority
	if !isHuman(au.Human) {
		add(RuleHumanAuthority, "authority.human", "", "bound human authority %q is not of the form human:<name>", au.Human)
	}
	if profile == registry.ProfileCoderDeputy {
		want := ""
		if a, err := registry.ParseAddress(s.Path.Address); err == nil {
			want = registry.Address{Scope: a.Scope, Project: a.Project, Role: "lead"}.String()
		}
		if au.OwningLead == "" || au.OwningLead != want {
			add(RuleOwningLead, "authority.owning_lead", "", "a coder-deputy answers to its own project's lead %q, not %q", want, au.OwningLead)
		}
	} else if au.OwningLead != "" {
		add(RuleOwningLead, "authority.owning_lead", "", "only a coder-deputy has an owning lead; %s has %q", profile, au.OwningLead)
	}
	if profile == registry.ProfileTeamCoordinator {
		// Absent is allowed here and refused at boot (the resolve tool has
		// nothing to route to); present must be a human or an address.
		_, addrErr := registry.ParseAddress(au.LaneApprover)
		if au.LaneApprover != "" && !isHuman(au.LaneApprover) && addrErr != nil {
			add(RuleLaneApprover, "authority.lane_approver", "", "a lane approver is human:<name> or a canonical address, not %q", au.LaneApprover)
		}
	} else if au.LaneApprover != "" {
		add(RuleLaneApprover, "authority.lane_approver", "", "only a team coordinator has a lane approver; %s has %q", profile, au.LaneApprover)
	}
}

// checkSurfaces refuses human-surface bindings a class has no tool for, and
// repeated or empty ones.
func checkSurfaces(s Stamp, profile registry.Profile, add adder) {
	canMessage := false
	for _, b := range bundles {
		for _, t := range b.Tools {
			canMessage = canMessage || exposes(CellFor(b, profile), t) && t.Scope == ScopeBoundSurfaces
		}
	}
	seen := map[SurfaceBinding]bool{}
	for i, b := range s.HumanSurfaces {
		field := fmt.Sprintf("human_surfaces[%d]", i)
		// v1 and v2 stamps are read as written; new ones bind by grammar.
		if err := CheckSurfaceBinding(b); err != nil && s.SchemaVersion == SchemaVersion {
			add(RuleSurfaceGrammar, field, "", "%v", err)
			continue
		}
		switch {
		case !canMessage && profile != "":
			add(RuleSurfaceBinding, field, "", "class %s has no human-surface tools, so it binds no surface (%s:%s)", profile, b.Surface, b.Target)
		case b.Surface == "" || b.Target == "":
			add(RuleSurfaceBinding, field, "", "a binding needs a surface and a target")
		case seen[b]:
			add(RuleSurfaceBinding, field, "", "binding %s:%s repeated", b.Surface, b.Target)
		}
		seen[b] = true
	}
}

// CheckSurfaceBinding checks a human-surface binding's grammar: the spec's
// "Human-surface tools target the hub service through virgo-channel; persona
// stamps contain bindings, never Microsoft 365 tenant credentials or gateway
// setup". So a binding is DefaultSurface (virgo-channel) to a canonical
// human principal, human:<name>; anything else ("m365" =
// "tenant:abc;client_secret=…") wraps ErrSurfaceBinding. The refusal
// repeats neither side of the binding, which may hold a secret.
func CheckSurfaceBinding(b SurfaceBinding) error {
	if b.Surface != DefaultSurface {
		return fmt.Errorf("the surface is not %s (%d bytes): %w", DefaultSurface, len(b.Surface), ErrSurfaceBinding)
	}
	if !isHuman(b.Target) {
		return fmt.Errorf("virgo-channel target is not a canonical human:<name> (%d bytes): %w", len(b.Target), ErrSurfaceBinding)
	}
	return nil
}
