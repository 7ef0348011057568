package matrix

import (
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/ui/golden"
)

func press(t *testing.T, m Model, keys ...string) Model {
	t.Helper()
	special := map[string]tea.KeyPressMsg{
		"enter": {Code: tea.KeyEnter}, "esc": {Code: tea.KeyEscape},
		"left": {Code: tea.KeyLeft}, "right": {Code: tea.KeyRight},
		"down": {Code: tea.KeyDown}, "up": {Code: tea.KeyUp}, "pgdown": {Code: tea.KeyPgDown},
	}
	for _, k := range keys {
		msg, ok := special[k]
		if !ok {
			msg = tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
		}
		if msg.String() != k {
			t.Fatalf("key %q renders as %q", k, msg.String())
		}
		m, _ = m.Update(msg)
	}
	return m
}

// settled pins the matrix view at the console's sizes.
func settled(t *testing.T, name string, m Model) {
	t.Helper()
	golden.Settled(t, name, m.View)
}

func TestGoldenViews(t *testing.T) {
	m := New(Options{})
	settled(t, "matrix", m)
	settled(t, "dossier-coder-deputy", press(t, m, "left", "enter"))
	settled(t, "compare-lead-deputy", press(t, m, "right", "right", "c"))
}

// Every cell of the table appears as the spec writes it at 120 columns; at
// 80 the class headers shorten and qualifiers move under the table.
func TestMatrixShowsEveryCell(t *testing.T) {
	wide := ansi.Strip(New(Options{}).View(120, 40))
	for _, p := range registry.Profiles {
		if !strings.Contains(wide, string(p)) {
			t.Errorf("120 wide lacks header %s", p)
		}
	}
	for _, b := range stamp.Bundles() {
		var want []string
		for _, p := range registry.Profiles {
			want = append(want, stamp.CellText(stamp.CellFor(b, p)))
		}
		row := lineOf(wide, b.Name)
		for _, c := range want {
			if !strings.Contains(row, c) {
				t.Errorf("row %q lacks cell %q: %q", b.Name, c, row)
			}
		}
	}
	for _, s := range []string{"W (bound surfaces)", "R/W (assigned task)", "W¹", "W²", "¹ A secretary resolves a decision only"} {
		if !strings.Contains(wide, s) {
			t.Errorf("120 wide lacks %q", s)
		}
	}
	narrow := ansi.Strip(New(Options{}).View(80, 24))
	head := lineOf(narrow, "Capability bundle")
	for _, h := range []string{"secretary", "coordinator", "lead", "deputy"} {
		if !strings.Contains(head, h) {
			t.Errorf("80 wide header lacks %q: %q", h, head)
		}
	}
	if strings.Contains(head, "team-coordinator") {
		t.Errorf("80 wide header not abbreviated: %q", head)
	}
	if row := lineOf(narrow, "runs and artifacts"); !strings.Contains(row, "R/Wᵃ") {
		t.Errorf("qualifier not marked at 80: %q", row)
	}
	m := press(t, New(Options{}), "pgdown")
	if v := ansi.Strip(m.View(80, 24)); !strings.Contains(v, "ᵃ assigned task") {
		t.Errorf("qualifier note not listed at 80:\n%s", v)
	}
}

func lineOf(view, prefix string) string {
	for _, l := range strings.Split(view, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

func TestDossierGrantedAndNotGranted(t *testing.T) {
	m := press(t, New(Options{}), "left", "enter")
	if m.Chosen() != registry.ProfileCoderDeputy {
		t.Fatalf("chosen %s", m.Chosen())
	}
	v := ansi.Strip(m.View(120, 80))
	granted, notGranted, ok := strings.Cut(v, "Explicitly not granted")
	if !ok {
		t.Fatalf("no not-granted section:\n%s", v)
	}
	for _, s := range []string{"workspace_write", "get_human_surface_status", stamp.PublishTool + " (confirm)"} {
		if !strings.Contains(granted, s) {
			t.Errorf("deputy dossier does not grant %s", s)
		}
	}
	for _, s := range []string{"resolve_decision", "assign_task", "send_human_message"} {
		if strings.Contains(granted, s) || !strings.Contains(notGranted, s) {
			t.Errorf("deputy dossier must list %s as explicitly not granted", s)
		}
	}
	m = press(t, m, "right", "right")
	if m.Chosen() != registry.ProfileTeamCoordinator || !strings.Contains(ansi.Strip(m.View(120, 40)), "Dossier · team-coordinator") {
		t.Fatalf("class keys do not change the dossier: %s", m.Chosen())
	}
	if m = press(t, m, "esc"); m.mode != modeMatrix {
		t.Fatal("esc does not return to the matrix")
	}
}

func TestCompareTwoClasses(t *testing.T) {
	m := press(t, New(Options{}), "right", "right", "c")
	a, b := m.Compared()
	if a != registry.ProfileProjectLead || b != registry.ProfileCoderDeputy {
		t.Fatalf("compare starts at the chosen class: %s -> %s", a, b)
	}
	v := ansi.Strip(m.View(120, 80))
	for _, s := range []string{"project-lead -> coder-deputy", "  - resolve_decision", "  - assign_task",
		"loses decision resolution", "loses task assignment"} {
		if !strings.Contains(v, s) {
			t.Errorf("lead -> deputy lacks %q:\n%s", s, v)
		}
	}
	m = press(t, m, "s")
	if a, b = m.Compared(); a != registry.ProfileCoderDeputy || b != registry.ProfileProjectLead {
		t.Fatalf("swap: %s -> %s", a, b)
	}
	if v := ansi.Strip(m.View(120, 80)); !strings.Contains(v, "  + resolve_decision") {
		t.Errorf("deputy -> lead does not add resolve_decision:\n%s", v)
	}
	m = press(t, m, "a", "b", "b", "b")
	if a, b = m.Compared(); a != registry.ProfileSecretary || b != registry.ProfileTeamCoordinator {
		t.Fatalf("a and b cycle A and B: %s -> %s", a, b)
	}
}

func TestScrollStaysInBounds(t *testing.T) {
	m := press(t, New(Options{}), "enter")
	for range 200 {
		m = press(t, m, "down")
	}
	m = press(t, m, "up")
	if m.offset[modeDossier] == 0 {
		t.Fatal("dossier did not scroll")
	}
	top := press(t, m, "pgup", "pgup", "pgup", "pgup", "pgup", "pgup")
	if top.offset[modeDossier] != 0 {
		t.Fatalf("scroll past the top: %d", top.offset[modeDossier])
	}
}

// The shared key map's g and G reach the ends; the matrix view has them
// like every view that scrolls.
func TestTopAndBottom(t *testing.T) {
	m := press(t, New(Options{}), "enter")
	m, _ = m.Update(tea.WindowSizeMsg{Width: 80, Height: 12})
	m = press(t, m, "G")
	last := m.offset[modeDossier]
	if last == 0 {
		t.Fatal("G did not scroll the dossier")
	}
	if press(t, m, "down").offset[modeDossier] != last {
		t.Fatal("G did not reach the end: down still scrolls")
	}
	if press(t, m, "g").offset[modeDossier] != 0 {
		t.Fatal("g did not reach the top")
	}
}

func TestHideHelpLeavesFooterToShell(t *testing.T) {
	m := New(Options{HideHelp: true})
	v := ansi.Strip(m.View(80, 10))
	if n := strings.Count(v, "\n") + 1; n != 10 {
		t.Fatalf("%d lines, want 10", n)
	}
	if strings.Contains(v, "c compare") {
		t.Fatal("footer drawn although the shell draws it")
	}
	if len(m.ShortHelp()) == 0 || len(m.FullHelp()) == 0 {
		t.Fatal("no help bindings for the shell")
	}
}

func BenchmarkMatrixView(b *testing.B) {
	m := New(Options{})
	b.ReportAllocs()
	for b.Loop() {
		_ = m.View(120, 40)
	}
}

func TestCompareStamps(t *testing.T) {
	build := func(addr, name string, gen int, human string) stamp.Stamp {
		a, err := registry.ParseAddress(addr)
		if err != nil {
			t.Fatal(err)
		}
		auth := stamp.Authority{Human: human}
		if a.Role == "deputy" {
			auth.OwningLead = a.Scope + "/" + a.Project + "/lead"
		}
		s, err := stamp.Build(stamp.Input{
			Persona:         stamp.Identity{ID: "p-" + name, Name: name, Generation: gen, SessionLineage: "l-" + name},
			CompositionHash: "sha256:" + strings.Repeat("0", 63) + strconv.Itoa(gen),
			Address:         addr, GraphNamespace: "virgo/" + addr, Authority: auth,
			Workspace: stamp.Workspace{Root: addr},
		})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	lead := build("work/core/lead", "Spica", 1, "human:ada")
	deputy := build("work/core/deputy", "Heze", 1, "human:ada")
	m := New(Options{}).CompareStamps(lead, deputy)
	v := ansi.Strip(m.View(120, 60))
	for _, s := range []string{"Compare stamps · A Spica (work/core/lead, generation 1) → B Heze (work/core/deputy, generation 1)",
		"work/core/lead -> work/core/deputy", "  - resolve_decision"} {
		if !strings.Contains(v, s) {
			t.Errorf("stamp diff lacks %q:\n%s", s, v)
		}
	}
	m = press(t, m, "a")
	if v := ansi.Strip(m.View(120, 60)); strings.Contains(v, "Compare stamps") {
		t.Fatal("a did not return to comparing classes")
	}
}
