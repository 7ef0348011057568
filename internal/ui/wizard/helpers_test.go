package wizard

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// fakeBackend stands in for the hub client (the one part that cannot run
// inside a unit test); the stamps it previews come from the real factory.
type fakeBackend struct {
	mu        sync.Mutex
	snap      Snapshot
	snapErr   error
	previous  map[string]*stamp.Stamp
	bound     bool
	submitErr error
	submits   []Registration
	approvals []string
}

func (f *fakeBackend) Snapshot(context.Context) (Snapshot, error) { return f.snap, f.snapErr }

func (f *fakeBackend) Preview(_ context.Context, r Registration) (Preview, error) {
	prev := f.previous[r.Address.String()]
	gen := 1
	if prev != nil {
		gen = prev.Persona.Generation + 1
	}
	s, err := stamp.Build(stampInput(r, gen))
	return Preview{Stamp: s, Previous: prev}, err
}

func stampInput(r Registration, gen int) stamp.Input {
	auth := stamp.Authority{Human: "human:ada"}
	a := r.Address
	switch a.Role {
	case "deputy":
		auth.OwningLead = a.Scope + "/" + a.Project + "/lead"
	case "coordinator":
		auth.LaneApprover = "human:ada"
	}
	var surfaces []stamp.SurfaceBinding
	if p := a.Profile(); p == registry.ProfileSecretary || p == registry.ProfileTeamCoordinator {
		surfaces = []stamp.SurfaceBinding{{Surface: stamp.DefaultSurface, Target: "human:ops"}}
	}
	return stamp.Input{
		Persona:         stamp.Identity{ID: "p-preview", Name: r.Name, Generation: gen, SessionLineage: "lineage-preview"},
		CompositionHash: "sha256:" + fmt.Sprintf("%064d", gen),
		Address:         a.String(),
		GraphNamespace:  "virgo/" + a.String(),
		HumanSurfaces:   surfaces,
		Authority:       auth,
		Workspace:       stamp.Workspace{Root: "ws/" + a.String()},
	}
}

func (f *fakeBackend) Submit(_ context.Context, r Registration) (Submitted, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.submits = append(f.submits, r)
	if f.submitErr != nil {
		return Submitted{}, f.submitErr
	}
	return Submitted{ConfirmationID: "c-0001", OperatorIsBoundHuman: f.bound}, nil
}

func (f *fakeBackend) Approve(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.approvals = append(f.approvals, id)
	return nil
}

var errNoSuchKey = errors.New("no such key")

// keyMsg builds the key press a terminal sends for a key name.
func keyMsg(t *testing.T, name string) tea.KeyPressMsg {
	t.Helper()
	special := map[string]tea.KeyPressMsg{
		"enter":     {Code: tea.KeyEnter},
		"esc":       {Code: tea.KeyEscape},
		"shift+tab": {Code: tea.KeyTab, Mod: tea.ModShift},
		"tab":       {Code: tea.KeyTab},
		"up":        {Code: tea.KeyUp},
		"down":      {Code: tea.KeyDown},
		"pgdown":    {Code: tea.KeyPgDown},
		"pgup":      {Code: tea.KeyPgUp},
		"backspace": {Code: tea.KeyBackspace},
		"space":     {Code: tea.KeySpace, Text: " "},
		"ctrl+c":    {Code: 'c', Mod: tea.ModCtrl},
	}
	if k, ok := special[name]; ok {
		if k.String() != name {
			t.Fatalf("key %q renders as %q", name, k.String())
		}
		return k
	}
	r := []rune(name)
	if len(r) != 1 {
		t.Fatalf("%v: %q", errNoSuchKey, name)
	}
	return tea.KeyPressMsg{Code: r[0], Text: name}
}

// harness drives a wizard the way the Bubble Tea runtime would: every
// command it returns runs and its message is fed back, and DoneMsg is kept.
type harness struct {
	t    *testing.T
	m    Model
	done *Result
}

func newHarness(t *testing.T, b Backend) *harness {
	h := &harness{t: t, m: New(b, Options{})}
	h.run(h.m.Init())
	return h
}

func (h *harness) send(msg tea.Msg) {
	var cmd tea.Cmd
	h.m, cmd = h.m.Update(msg)
	h.run(cmd)
}

func (h *harness) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case nil:
	case DoneMsg:
		r := msg.Result
		h.done = &r
	case tea.BatchMsg:
		for _, c := range msg {
			h.run(c)
		}
	default:
		h.send(msg)
	}
}

// keys presses each key in turn.
func (h *harness) keys(names ...string) {
	h.t.Helper()
	for _, n := range names {
		h.send(keyMsg(h.t, n))
	}
}

// typ types text one key at a time.
func (h *harness) typ(text string) {
	h.t.Helper()
	for _, r := range text {
		h.send(keyMsg(h.t, string(r)))
	}
}

// existing is a small installation: two scopes with projects, names taken.
func existing() Snapshot {
	return Snapshot{
		Scopes:      []string{"home", "work"},
		Projects:    map[string][]string{"work": {"core", "web"}},
		Suggestions: []string{"Porrima", "Vindemiatrix", "Zavijava"},
		Taken:       []string{"Spica", "Auva"},
		Operator:    "human:ada",
	}
}
