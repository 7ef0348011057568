package stamp

import (
	"slices"
	"testing"
)

// The class key hashes capability content only: identity fields never
// change it, order of tools and mutable paths never changes it, and every
// capability or routing field does.
func TestClassKeyIsCapabilityContent(t *testing.T) {
	base := mustBuild(t, "work/core/lead")
	key := func(s Stamp) string {
		t.Helper()
		k, err := ClassKey(s)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	want := key(base)
	same := map[string]func(*Stamp){
		"identity": func(s *Stamp) {
			s.Persona = Identity{ID: "p-other", Name: "Other", Generation: 7}
			s.CompositionHash, s.GraphNamespace, s.Workspace.Root = "sha256:00", "elsewhere", "ws/other"
			s.Path.Address, s.Path.Project = "work/web/lead", "web"
		},
		"surfaces":       func(s *Stamp) { s.HumanSurfaces = []SurfaceBinding{{Surface: DefaultSurface, Target: "human:ada"}} },
		"tool order":     func(s *Stamp) { slices.Reverse(s.Tools) },
		"path order":     func(s *Stamp) { slices.Reverse(s.Workspace.MutablePaths) },
		"nil, not empty": func(s *Stamp) {},
	}
	differ := map[string]func(*Stamp){
		"profile":       func(s *Stamp) { s.Path.Profile = "secretary" },
		"access":        func(s *Stamp) { s.Tools[0].Access = AccessConfirm },
		"scope":         func(s *Stamp) { s.Tools[0].Scope = ScopeOwn },
		"a tool less":   func(s *Stamp) { s.Tools = s.Tools[1:] },
		"mutable paths": func(s *Stamp) { s.Workspace.MutablePaths = append(s.Workspace.MutablePaths, "x/**") },
		"repository":    func(s *Stamp) { s.Workspace.Repository = "git@example.org:other.git" },
		"bound human":   func(s *Stamp) { s.Authority.Human = "human:ada" },
		"owning lead":   func(s *Stamp) { s.Authority.OwningLead = "work/core/lead" },
		"lane approver": func(s *Stamp) { s.Authority.LaneApprover = "human:ada" },
	}
	copyOf := func() Stamp {
		s := base
		s.Tools = slices.Clone(base.Tools)
		s.Workspace.MutablePaths = slices.Clone(base.Workspace.MutablePaths)
		return s
	}
	for name, change := range same {
		s := copyOf()
		change(&s)
		if got := key(s); got != want {
			t.Errorf("%s changed the class key", name)
		}
	}
	for name, change := range differ {
		s := copyOf()
		change(&s)
		if got := key(s); got == want {
			t.Errorf("%s kept the class key", name)
		}
	}
	empty, nilPaths := copyOf(), copyOf()
	empty.Workspace.MutablePaths, nilPaths.Workspace.MutablePaths = []string{}, nil
	if key(empty) != key(nilPaths) {
		t.Error("no mutable paths keys differently as nil and as empty")
	}
}
