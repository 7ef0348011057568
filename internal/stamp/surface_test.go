package stamp

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// Spec: "Human-surface tools target the hub service
// through virgo-channel; persona stamps contain bindings, never Microsoft
// 365 tenant credentials or gateway setup." A binding is virgo-channel to a
// human principal; the validator refuses anything else with a named rule,
// and its message never repeats the binding.
func TestSurfaceBindingsAreGrammar(t *testing.T) {
	for _, b := range []SurfaceBinding{
		{Surface: "m365", Target: "tenant:abc;client_secret=s3cr3t"},
		{Surface: "teams", Target: "chat:henry"},
		{Surface: DefaultSurface, Target: "tenant:abc;client_secret=s3cr3t"},
		{Surface: DefaultSurface, Target: "human:Henry"}, // not canonical
		{Surface: DefaultSurface, Target: "work/core/lead"},
		{Surface: "", Target: ""},
	} {
		if err := CheckSurfaceBinding(b); !errors.Is(err, ErrSurfaceBinding) {
			t.Errorf("%+v: %v, want ErrSurfaceBinding", b, err)
		}
		s := mustBuild(t, "root/secretary")
		s.HumanSurfaces = []SurfaceBinding{b}
		ps := Semantic(s)
		if len(ps) != 1 || ps[0].Rule != RuleSurfaceGrammar || ps[0].Field != "human_surfaces[0]" {
			t.Errorf("%+v: problems %v, want one %s", b, ps, RuleSurfaceGrammar)
		}
		if msg := ps[0].String(); strings.Contains(msg, "s3cr3t") || strings.Contains(msg, "tenant") {
			t.Errorf("the refusal repeats the binding: %s", msg)
		}
		in := inputFor("root/secretary")
		in.HumanSurfaces = []SurfaceBinding{b}
		if _, err := Build(in); !errors.Is(err, ErrInvalidStamp) {
			t.Errorf("the factory built a stamp bound %+v: %v", b, err)
		}
	}
	if err := CheckSurfaceBinding(SurfaceBinding{Surface: DefaultSurface, Target: "human:henry"}); err != nil {
		t.Fatal(err)
	}
	// v1 and v2 stamps are read as written, never rewritten.
	b, err := os.ReadFile("testdata/v2-coordinator.json")
	if err != nil {
		t.Fatal(err)
	}
	if s, err := Read(b); err != nil || s.HumanSurfaces[0].Surface != "teams" {
		t.Fatalf("legacy v2 stamp: %+v, %v", s.HumanSurfaces, err)
	}
}
