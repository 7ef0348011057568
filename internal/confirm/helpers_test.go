package confirm

import (
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm/confirmtest"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// policyFor indexes a fresh stamp of address.
func policyFor(t testing.TB, address string, opts Options, extraMutable ...string) *Policy {
	t.Helper()
	st, hash := confirmtest.BuildStamp(t, address, 1, extraMutable...)
	p, err := NewPolicy(st, hash, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// op builds an operation of p's persona for tool (its handler action from
// the stamp), on the target text form, with shape.
func op(t testing.TB, p *Policy, tool, target string, shape stamp.Shape) Operation {
	t.Helper()
	tg, err := ParseTarget(target)
	if err != nil {
		t.Fatalf("target %s: %v", target, err)
	}
	action, ok := p.Tool(tool)
	if !ok {
		action = "unknown." + tool
	}
	return Operation{Persona: p.Address(), Generation: p.stamp.Persona.Generation, Tool: tool, HandlerAction: action,
		Target: tg, Shape: shape}
}

// assigned is an Assignments of fixed tasks.
type assigned map[string]bool

func (a assigned) IsAssigned(_, task string) bool { return a[task] }

var henry = Principal{Kind: PrincipalHuman, Name: "henry"}
