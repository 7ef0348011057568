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

// The memo of class keys answers a content it has seen with that content's
// hash and no other, and stays within its bound.
func TestClassKeyMemo(t *testing.T) {
	memo := classKeyMemo{max: 3, m: make(map[[32]byte]string)}
	contents := []string{`{"profile":"a"}`, `{"profile":"b"}`, `{"profile":"c"}`, `{"profile":"d"}`, `{"profile":"e"}`}
	for round := range 2 {
		for _, c := range contents {
			got, err := memo.hash([]byte(c))
			if err != nil {
				t.Fatal(err)
			}
			want, err := Hash([]byte(c))
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("round %d: memo gave %s for %s, its hash is %s", round, got, c, want)
			}
			if n := memo.len(); n > 3 {
				t.Fatalf("memo holds %d entries, its bound is 3", n)
			}
		}
	}
	if _, err := memo.hash([]byte(`{"profile":`)); err == nil {
		t.Error("malformed JSON hashed without an error")
	}
	// Through ClassKey: a stamp asked twice gets the key it got first.
	s := mustBuild(t, "work/core/lead")
	first, err := ClassKey(s)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := ClassKey(s); err != nil || again != first {
		t.Errorf("ClassKey again = %s, %v; first %s", again, err, first)
	}
}
