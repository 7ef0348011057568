package stamp

import (
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// seats are one registered address per class, as the spec's examples write
// them: "root/secretary, work/coordinator ... work/core/lead".
var seats = map[registry.Profile]string{
	registry.ProfileSecretary:       "root/secretary",
	registry.ProfileTeamCoordinator: "work/coordinator",
	registry.ProfileProjectLead:     "work/core/lead",
	registry.ProfileCoderDeputy:     "work/core/deputy",
}

// inputFor is a complete factory input for a registered address.
func inputFor(addr string) Input {
	in := Input{
		Persona:         Identity{ID: "p-" + strings.ReplaceAll(addr, "/", "-"), Name: "Spica", Generation: 1, SessionLineage: "sess-0001"},
		CompositionHash: "sha256:" + strings.Repeat("ab", 32),
		Address:         addr,
		GraphNamespace:  "virgo/" + addr,
		Authority:       Authority{Human: "human:henry"},
		Workspace:       Workspace{Root: "ws/" + addr},
	}
	a, err := registry.ParseAddress(addr)
	if err != nil {
		return in
	}
	switch a.Profile() {
	case registry.ProfileSecretary:
		in.HumanSurfaces = []SurfaceBinding{{Surface: DefaultSurface, Target: "human:henry"}}
	case registry.ProfileTeamCoordinator:
		in.HumanSurfaces = []SurfaceBinding{{Surface: DefaultSurface, Target: "human:henry"}}
		in.Authority.LaneApprover = "human:henry"
	case registry.ProfileProjectLead:
		in.Workspace.MutablePaths = []string{"worktree/**"}
		in.Workspace.Repository = "git@example.org:virgo/core.git"
	case registry.ProfileCoderDeputy:
		in.Workspace.MutablePaths = []string{"worktree/**"}
		in.Authority.OwningLead = a.Scope + "/" + a.Project + "/lead"
	}
	return in
}

// mustBuild builds the stamp of a registered address or fails the test.
func mustBuild(t testing.TB, addr string) Stamp {
	t.Helper()
	s, err := Build(inputFor(addr))
	if err != nil {
		t.Fatalf("Build(%s): %v", addr, err)
	}
	return s
}

// mustMarshal renders a stamp's file bytes or fails the test.
func mustMarshal(t testing.TB, s Stamp) []byte {
	t.Helper()
	b, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func toolNames(tools []Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name
	}
	return out
}

// load reads a stamp file as the home reads one: its bytes, then Verify.
func load(path, wantHash string) (Stamp, error) {
	b, err := ReadFile(path)
	if err != nil {
		return Stamp{}, err
	}
	return Verify(path, b, wantHash)
}
