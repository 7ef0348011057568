package stamp

import (
	"fmt"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// HandlerGrant is one row of the handler authorization table.
type HandlerGrant struct {
	// Tool is the tool name the action was stamped under.
	Tool   string `json:"tool"`
	Access Access `json:"access"`
	Scope  string `json:"scope"`
}

// Projections are the three consumers' views of one stamp file.
type Projections struct {
	// MCP is what the MCP/channel server exposes: exactly tools[].name.
	MCP []string `json:"mcp"`
	// Handler maps handler_action to its access and scope.
	Handler map[string]HandlerGrant `json:"handler"`
	// Launcher is the launcher's tool allowlist: exactly tools[].name.
	Launcher []string `json:"launcher"`
}

// toolsOnly is the part of a v3 file the projections read.
type toolsOnly struct {
	SchemaVersion int    `json:"schema_version"`
	Tools         []Tool `json:"tools"`
}

// Project derives the three projections from a stamp file's bytes alone. A v3
// file is read for its tools only (fast; Load has validated it at start); a
// v1/v2 file goes through its legacy reader, which supplies the handler
// actions those versions did not record. Each projection is built on its own
// so that CheckProjections compares three results, not one.
func Project(b []byte) (Projections, error) {
	// Sized for the largest class, so decoding never grows the slice.
	doc := toolsOnly{Tools: make([]Tool, 0, len(inventory))}
	if err := strictjson.DecodeOpen(b, &doc); err != nil || doc.SchemaVersion != SchemaVersion {
		s, rerr := Read(b)
		if rerr != nil {
			return Projections{}, fmt.Errorf("project stamp: %w", rerr)
		}
		doc.Tools = s.Tools
	}
	return ProjectTools(doc.Tools), nil
}

// ProjectTools builds the three projections from tool records.
func ProjectTools(tools []Tool) Projections {
	p := Projections{
		MCP:      make([]string, 0, len(tools)),
		Handler:  make(map[string]HandlerGrant, len(tools)),
		Launcher: make([]string, 0, len(tools)),
	}
	for _, t := range tools {
		p.MCP = append(p.MCP, t.Name)
	}
	for _, t := range tools {
		if _, taken := p.Handler[t.HandlerAction]; !taken {
			p.Handler[t.HandlerAction] = HandlerGrant{Tool: t.Name, Access: t.Access, Scope: t.Scope}
		}
	}
	for _, t := range tools {
		p.Launcher = append(p.Launcher, t.Name)
	}
	return p
}

// CheckProjections proves the three consumers carry the same tools with no
// loss: no repeated name, the launcher allowlist equal to the MCP list, and
// exactly one handler row per exposed tool. Every failure names its tool; the
// error wraps ErrNotStanding.
func CheckProjections(p Projections) error {
	var ps []Problem
	loss := func(tool, format string, args ...any) {
		ps = append(ps, Problem{Rule: RuleProjectionLoss, Tool: tool, Message: fmt.Sprintf(format, args...)})
	}
	// One map of which consumers carry each tool name.
	const inMCP, inLauncher, inHandler = 1, 2, 4
	seen := make(map[string]uint8, len(p.MCP))
	for _, n := range p.MCP {
		if seen[n]&inMCP != 0 {
			ps = append(ps, Problem{Rule: RuleDuplicateName, Tool: n, Message: "the MCP list names the tool twice"})
		}
		seen[n] |= inMCP
	}
	for _, n := range p.Launcher {
		if seen[n]&inMCP == 0 {
			loss(n, "the launcher allows a tool the MCP server does not expose")
		}
		seen[n] |= inLauncher
	}
	for action, g := range p.Handler {
		if seen[g.Tool]&inMCP == 0 {
			loss(g.Tool, "the handler authorizes action %s for a tool the MCP server does not expose", action)
		}
		seen[g.Tool] |= inHandler
	}
	for _, n := range p.MCP {
		if seen[n]&inLauncher == 0 {
			loss(n, "exposed over MCP but missing from the launcher allowlist")
		}
		if seen[n]&inHandler == 0 {
			loss(n, "exposed over MCP but no handler row authorizes it (its action is lost or shared)")
		}
	}
	if len(p.Launcher) != len(p.MCP) && len(ps) == 0 {
		loss("", "the launcher allowlist has %d entries, the MCP list %d", len(p.Launcher), len(p.MCP))
	}
	return problems("projections", ErrNotStanding, ps)
}

// BootCheck proves at start that every handler_action of the stamp has a
// registered handler in the runtime's table and that every tool's scope has
// its runtime binding (a bound surface, the bound human for confirmations and
// relays, the lane approver, the owning lead, the graph namespace). A failure
// names the exact tool and wraps ErrNotStanding: the persona is not standing.
func BootCheck(s Stamp, handlers map[string]bool) error {
	var ps []Problem
	missing := func(t Tool, format string, args ...any) {
		ps = append(ps, Problem{Rule: RuleBindingMissing, Tool: t.Name, Message: fmt.Sprintf(format, args...)})
	}
	for _, t := range s.Tools {
		if !handlers[t.HandlerAction] {
			ps = append(ps, Problem{Rule: RuleHandlerMissing, Tool: t.Name,
				Message: fmt.Sprintf("no handler registered for action %s", t.HandlerAction)})
		}
		switch {
		case t.Scope == ScopeBoundSurfaces && len(s.HumanSurfaces) == 0:
			missing(t, "scope %s but the stamp binds no human surface", t.Scope)
		case t.Scope == ScopeLaneApprover && s.Authority.LaneApprover == "":
			missing(t, "scope %s but no lane approver is bound", t.Scope)
		case t.Scope == ScopeAssignedTask && s.Authority.OwningLead == "":
			missing(t, "scope %s but no owning lead assigns its tasks", t.Scope)
		case t.Scope == ScopeGraphNamespace && s.GraphNamespace == "":
			missing(t, "scope %s but no graph namespace is bound", t.Scope)
		case (t.Access == AccessConfirm || t.Scope == ScopeRelayBoundHuman) && !isHuman(s.Authority.Human):
			missing(t, "its confirmations route to the bound human, and none is bound")
		}
	}
	return problems("boot "+s.Path.Address, ErrNotStanding, ps)
}
