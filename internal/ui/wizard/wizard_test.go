package wizard

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

func optionValues(m Model, s step) []string {
	var out []string
	for _, o := range m.options(s) {
		out = append(out, o.value)
	}
	return out
}

func TestWalkToProjectDeputy(t *testing.T) {
	b := &fakeBackend{snap: existing()}
	h := newHarness(t, b)
	if h.m.step != stepScope {
		t.Fatalf("starts at %v", h.m.step)
	}
	if got := optionValues(h.m, stepScope); strings.Join(got, ",") != "home,work,root" {
		t.Fatalf("scopes offered %v; want existing scopes and root", got)
	}
	h.typ("wo")
	h.keys("enter")
	if h.m.answers.Scope != "work" || h.m.step != stepProject {
		t.Fatalf("typing a prefix picks the existing scope: %+v step %v", h.m.answers, h.m.step)
	}
	if got := optionValues(h.m, stepProject); strings.Join(got, ",") != ",core,web" {
		t.Fatalf("projects offered %q; want none, core, web", got)
	}
	h.keys("down", "enter")
	if h.m.answers.Project != "core" || h.m.step != stepRole {
		t.Fatalf("picked project %+v", h.m.answers)
	}
	if got := optionValues(h.m, stepRole); strings.Join(got, ",") != "lead,deputy" {
		t.Fatalf("project-bound roles offered %v; want lead, deputy", got)
	}
	h.keys("down", "enter")
	if h.m.step != stepName || h.m.answers.Role != "deputy" {
		t.Fatalf("role step: %+v", h.m.answers)
	}
	if o, _ := h.m.current(stepName); o.value != "Porrima" {
		t.Fatalf("first suggestion not preselected: %q", o.value)
	}
	h.keys("enter")
	if h.m.step != stepPreview || h.m.preview == nil {
		t.Fatalf("no preview: step %v err %v", h.m.step, h.m.err)
	}
	want := Registration{Address: registry.Address{Scope: "work", Project: "core", Role: "deputy"}, Name: "Porrima"}
	if h.m.Registration() != want {
		t.Fatalf("registration %+v", h.m.Registration())
	}
	view := h.m.View(120, 40)
	for _, s := range []string{"work/core/deputy", `"schema_version": 3`, "coder-deputy"} {
		if !strings.Contains(view, s) {
			t.Errorf("preview lacks %q:\n%s", s, view)
		}
	}
	h.keys("enter")
	if len(b.submits) != 1 || b.submits[0] != want {
		t.Fatalf("submits %+v", b.submits)
	}
	if h.m.step != stepSubmitted {
		t.Fatalf("step %v err %v", h.m.step, h.m.err)
	}
	h.keys("enter")
	if h.done == nil || h.done.Cancelled || h.done.Approved || h.done.Submitted.ConfirmationID != "c-0001" {
		t.Fatalf("result %+v", h.done)
	}
}

func TestRootOfferedOnce(t *testing.T) {
	s := existing()
	s.Scopes = []string{"home", "root", "work"}
	h := newHarness(t, &fakeBackend{snap: s})
	if got := strings.Join(optionValues(h.m, stepScope), ","); got != "home,work,root" {
		t.Fatalf("scopes %s", got)
	}
}

func TestRolesFilteredByArity(t *testing.T) {
	for _, tc := range []struct {
		scope, project string
		want           string
	}{
		{"root", "", "secretary,operator"},
		{"work", "", "secretary,coordinator"},
		{"work", "core", "lead,deputy"},
	} {
		h := newHarness(t, &fakeBackend{snap: existing()})
		h.typ(tc.scope)
		h.keys("enter")
		if tc.scope != "root" {
			h.typ(tc.project)
			h.keys("enter")
		}
		if h.m.step != stepRole {
			t.Fatalf("%s/%s: at step %v", tc.scope, tc.project, h.m.step)
		}
		if got := strings.Join(optionValues(h.m, stepRole), ","); got != tc.want {
			t.Errorf("%s/%s: roles %s, want %s (registry.RolesFor)", tc.scope, tc.project, got, tc.want)
		}
	}
}

func TestRootSkipsProject(t *testing.T) {
	h := newHarness(t, &fakeBackend{snap: existing()})
	h.typ("root")
	h.keys("enter")
	if h.m.step != stepRole {
		t.Fatalf("root must skip the project step (root has no projects): %v", h.m.step)
	}
	h.keys("esc")
	if h.m.step != stepScope {
		t.Fatalf("back from role under root returns to scope: %v", h.m.step)
	}
}

// The refusal shown as the operator types is the registry's own error, word
// for word.
func TestRefusalsUseRegistryWords(t *testing.T) {
	h := newHarness(t, &fakeBackend{snap: existing()})
	h.typ("Work")
	err := h.m.refusal(stepScope)
	want := registry.CheckSegment("scope", "Work")
	if err == nil || err.Error() != want.Error() {
		t.Fatalf("scope refusal %v; want %v", err, want)
	}
	if !strings.Contains(h.m.View(120, 40), want.Error()) {
		t.Fatalf("refusal not shown:\n%s", h.m.View(120, 40))
	}
	h.keys("enter")
	if h.m.step != stepScope {
		t.Fatal("a refused scope was accepted")
	}
	for range 4 {
		h.keys("backspace")
	}
	h.typ("secretary")
	err = h.m.refusal(stepScope)
	if want := registry.CheckSegment("scope", "secretary"); err == nil || err.Error() != want.Error() {
		t.Fatalf("scope named like a role: %v; want %v", err, want)
	}

	// A role typed where its arity does not fit: the parser's refusal.
	h = newHarness(t, &fakeBackend{snap: existing()})
	h.typ("work")
	h.keys("enter", "enter") // scope work, no project
	h.typ("lead")
	err = h.m.refusal(stepRole)
	_, want = registry.ParseAddress("work/lead")
	if err == nil || err.Error() != want.Error() {
		t.Fatalf("role refusal %v; want %v", err, want)
	}
	if !strings.Contains(err.Error(), `role "lead" is project-bound; use work/<project>/lead`) {
		t.Fatalf("not the spec's example wording: %v", err)
	}

	// A project named like a role.
	h = newHarness(t, &fakeBackend{snap: existing()})
	h.typ("work")
	h.keys("enter")
	h.typ("deputy")
	err = h.m.refusal(stepProject)
	if want := registry.CheckSegment("project", "deputy"); err == nil || err.Error() != want.Error() {
		t.Fatalf("project refusal %v; want %v", err, want)
	}
}

func TestTakenNameRefusedAsTyped(t *testing.T) {
	h := newHarness(t, &fakeBackend{snap: existing()})
	h.typ("home")
	h.keys("enter", "enter", "enter") // home, no project, secretary
	if h.m.step != stepName {
		t.Fatalf("step %v", h.m.step)
	}
	for i, r := range "sPiCa" {
		h.typ(string(r))
		err := h.m.refusal(stepName)
		if i == 4 {
			if !errors.Is(err, registry.ErrNameTaken) {
				t.Fatalf("taken name (any case) not refused: %v", err)
			}
		} else if err != nil {
			t.Fatalf("prefix %q refused: %v", "sPiCa"[:i+1], err)
		}
	}
	h.keys("enter")
	if h.m.step != stepName {
		t.Fatal("a taken name was accepted")
	}
	h.keys("backspace")
	h.typ("x")
	o, _ := h.m.current(stepName)
	if o.err != nil || !o.typed {
		t.Fatalf("any free name may be typed: %+v", o)
	}
	h.typ("!")
	if _, want := registry.NormalizeName("sPiCx!"); h.m.refusal(stepName) == nil || h.m.refusal(stepName).Error() != want.Error() {
		t.Fatalf("name rule refusal %v; want %v", h.m.refusal(stepName), want)
	}
}

func TestBackKeepsAnswers(t *testing.T) {
	h := newHarness(t, &fakeBackend{snap: existing()})
	h.typ("work")
	h.keys("enter", "down", "down", "enter", "down", "enter")
	h.typ("Heze")
	h.keys("enter")
	if h.m.step != stepPreview || h.m.Registration().Address.String() != "work/web/deputy" {
		t.Fatalf("at %v with %+v", h.m.step, h.m.Registration())
	}
	h.keys("esc")
	if h.m.step != stepName || h.m.inputs[stepName].Value() != "Heze" {
		t.Fatalf("back to name keeps the typed name: %v %q", h.m.step, h.m.inputs[stepName].Value())
	}
	h.keys("esc")
	if o, _ := h.m.current(stepRole); h.m.step != stepRole || o.value != "deputy" {
		t.Fatalf("role answer lost: %v %q", h.m.step, o.value)
	}
	h.keys("esc")
	if o, _ := h.m.current(stepProject); h.m.step != stepProject || o.value != "web" {
		t.Fatalf("project answer lost: %q", o.value)
	}
	h.keys("esc")
	if o, _ := h.m.current(stepScope); h.m.step != stepScope || o.value != "work" {
		t.Fatalf("scope answer lost: %q", o.value)
	}
	h.keys("enter", "enter", "enter", "enter")
	if h.m.step != stepPreview || h.m.Registration().Name != "Heze" || h.m.Registration().Address.String() != "work/web/deputy" {
		t.Fatalf("walking forward again changed answers: %+v", h.m.Registration())
	}
	if h.done != nil {
		t.Fatal("back must not end the wizard")
	}
}

func TestEscOnFirstStepCancels(t *testing.T) {
	b := &fakeBackend{snap: existing()}
	h := newHarness(t, b)
	h.keys("esc")
	if h.done == nil || !h.done.Cancelled || h.done.Submitted != nil {
		t.Fatalf("esc on the first step must cancel: %+v", h.done)
	}
	if len(b.submits) != 0 {
		t.Fatal("cancel submitted")
	}
}

func TestFirstInstallDefaultsToRootSecretary(t *testing.T) {
	b := &fakeBackend{snap: Snapshot{Empty: true, Suggestions: []string{"Spica", "Porrima"}, Operator: "human:ada"}}
	h := newHarness(t, b)
	h.keys("enter", "enter", "enter")
	want := Registration{Address: registry.Address{Scope: "root", Role: "secretary"}, Name: "Spica"}
	if h.m.step != stepPreview || h.m.Registration() != want {
		t.Fatalf("first persona: %+v at %v; want root/secretary Spica", h.m.Registration(), h.m.step)
	}
	// The operator can still change the defaults.
	h.keys("esc", "esc")
	h.keys("down", "enter")
	if h.m.answers.Role != "operator" {
		t.Fatalf("role default could not be changed: %+v", h.m.answers)
	}
}

func TestFirstInstallDefaultCanBeChanged(t *testing.T) {
	b := &fakeBackend{snap: Snapshot{Empty: true, Suggestions: []string{"Spica"}}}
	h := newHarness(t, b)
	h.typ("home")
	h.keys("enter", "enter")
	if h.m.step != stepRole || h.m.answers.Scope != "home" {
		t.Fatalf("typed scope ignored: %+v", h.m.answers)
	}
	if got := strings.Join(optionValues(h.m, stepRole), ","); got != "secretary,coordinator" {
		t.Fatalf("roles %s", got)
	}
}

func TestSubmitOnceAndEnterNeverApproves(t *testing.T) {
	b := &fakeBackend{snap: existing(), bound: true}
	h := newHarness(t, b)
	h.typ("home")
	h.keys("enter", "enter", "enter", "enter")
	// enter while the submission is in flight is ignored.
	m, cmd := h.m.Update(keyMsg(t, "enter"))
	m2, cmd2 := m.Update(keyMsg(t, "enter"))
	if cmd == nil || cmd2 != nil {
		t.Fatalf("second enter during submit issued a command: %v %v", cmd, cmd2)
	}
	h.m = m2
	h.run(cmd)
	if len(b.submits) != 1 {
		t.Fatalf("Submit called %d times", len(b.submits))
	}
	if !strings.Contains(h.m.View(80, 24), "press a to approve") {
		t.Fatalf("bound human is not offered approval:\n%s", h.m.View(80, 24))
	}
	for _, k := range []string{"space", "up", "tab", "A", "y"} {
		h.keys(k)
	}
	if len(b.approvals) != 0 {
		t.Fatalf("approved without the approve key: %v", b.approvals)
	}
	h.keys("enter")
	if len(b.approvals) != 0 {
		t.Fatal("enter approved")
	}
	if h.done == nil || h.done.Approved || h.done.Submitted == nil {
		t.Fatalf("enter should finish with the confirmation pending: %+v", h.done)
	}
}

func TestApproveOnTheSpot(t *testing.T) {
	b := &fakeBackend{snap: existing(), bound: true}
	h := newHarness(t, b)
	h.typ("home")
	h.keys("enter", "enter", "enter", "enter", "enter", "a", "a")
	if len(b.approvals) != 1 || b.approvals[0] != "c-0001" {
		t.Fatalf("approvals %v", b.approvals)
	}
	h.keys("esc")
	if h.done == nil || !h.done.Approved {
		t.Fatalf("result %+v", h.done)
	}
}

func TestNotBoundHumanCannotApprove(t *testing.T) {
	b := &fakeBackend{snap: existing(), bound: false}
	h := newHarness(t, b)
	h.typ("home")
	h.keys("enter", "enter", "enter", "enter", "enter", "a")
	if len(b.approvals) != 0 {
		t.Fatal("approved although the operator is not the bound human")
	}
	if strings.Contains(h.m.View(80, 24), "press a") {
		t.Fatal("offers approval to someone who is not the bound human")
	}
}

func TestSubmitErrorShownAndRetryable(t *testing.T) {
	b := &fakeBackend{snap: existing(), submitErr: registry.ErrSeatTaken}
	h := newHarness(t, b)
	h.typ("home")
	h.keys("enter", "enter", "enter", "enter", "enter")
	if h.m.step != stepPreview || !strings.Contains(h.m.View(80, 24), registry.ErrSeatTaken.Error()) {
		t.Fatalf("submit error not shown:\n%s", h.m.View(80, 24))
	}
	b.submitErr = nil
	h.keys("enter")
	if h.m.step != stepSubmitted || len(b.submits) != 2 {
		t.Fatalf("retry: step %v submits %d", h.m.step, len(b.submits))
	}
}

func TestPreviewScrollsAndSwitchesPane(t *testing.T) {
	h := newHarness(t, &fakeBackend{snap: existing()})
	h.typ("home")
	h.keys("enter", "enter", "enter", "enter")
	before := h.m.View(80, 24)
	h.keys("j", "j", "pgdown")
	if h.m.preview.offset[paneStamp] == 0 || h.m.View(80, 24) == before {
		t.Fatal("stamp pane did not scroll")
	}
	h.keys("v")
	if h.m.preview.focus != paneDiff || !strings.Contains(h.m.View(80, 24), "class-matrix diff") {
		t.Fatalf("v did not switch to the diff pane:\n%s", h.m.View(80, 24))
	}
}

func TestStalePreviewDropped(t *testing.T) {
	h := newHarness(t, &fakeBackend{snap: existing()})
	h.typ("home")
	h.keys("enter", "enter", "enter")
	m, cmd := h.m.Update(keyMsg(t, "enter"))
	stale := cmd()
	m, _ = m.Update(keyMsg(t, "esc"))
	m, _ = m.Update(keyMsg(t, "backspace"))
	m, _ = m.Update(stale)
	if m.preview != nil {
		t.Fatal("a preview for an earlier answer was shown")
	}
}

// Embedded with HideHelp the wizard fills the given size without its own
// footer; the shell draws one from ShortHelp.
func TestHideHelpLeavesFooterToShell(t *testing.T) {
	s := existing()
	m := New(&fakeBackend{}, Options{Snapshot: &s, HideHelp: true})
	v := m.View(80, 20)
	if n := strings.Count(v, "\n") + 1; n != 20 {
		t.Fatalf("%d lines, want 20", n)
	}
	if strings.Contains(v, "ctrl+c cancel") {
		t.Fatal("footer drawn although the shell draws it")
	}
	if len(m.ShortHelp()) == 0 || len(m.FullHelp()) == 0 {
		t.Fatal("no help bindings for the shell")
	}
	if m.Init() != nil {
		t.Fatal("a given snapshot must not be loaded again")
	}
}

// A seat held before is diffed against its previous generation, not against
// nothing: the same class gives no change.
func TestPreviewDiffsAgainstPreviousGeneration(t *testing.T) {
	b := &fakeBackend{snap: existing()}
	prevReg := Registration{Address: registry.Address{Scope: "work", Project: "core", Role: "lead"}, Name: "Spica"}
	prev, err := b.Preview(context.Background(), prevReg)
	if err != nil {
		t.Fatal(err)
	}
	b.previous = map[string]*stamp.Stamp{"work/core/lead": &prev.Stamp}
	h := newHarness(t, b)
	h.typ("work")
	h.keys("enter", "down", "enter", "enter", "enter")
	if h.m.preview == nil {
		t.Fatalf("no preview: %v", h.m.err)
	}
	if got := h.m.preview.summary; got != "diff vs generation 1 (Spica): no change" {
		t.Fatalf("summary %q", got)
	}
	if !strings.Contains(h.m.View(120, 40), "no change: both carry the same tools") {
		t.Fatalf("diff pane:\n%s", h.m.View(120, 40))
	}
	if h.m.preview.data.Stamp.Persona.Generation != 2 {
		t.Fatalf("generation %d", h.m.preview.data.Stamp.Persona.Generation)
	}
}

// The preview of a new deputy crosses the boundaries its class gains and
// never lists tools the class lacks.
func TestPreviewDeputyAgainstNothing(t *testing.T) {
	h := newHarness(t, &fakeBackend{snap: existing()})
	h.typ("work")
	h.keys("enter", "down", "enter", "down", "enter", "enter")
	diff := strings.Join(h.m.preview.lines[paneDiff], "\n")
	for _, s := range []string{"nothing -> work/core/deputy", "gains publication", "+ " + stamp.PublishTool + " (confirm, external)"} {
		if !strings.Contains(diff, s) {
			t.Errorf("diff lacks %q", s)
		}
	}
	for _, s := range []string{"resolve_decision", "assign_task", "send_human_message"} {
		if strings.Contains(diff, s) {
			t.Errorf("a deputy's diff must not add %s", s)
		}
	}
}

func BenchmarkPreviewView(b *testing.B) {
	t := &testing.T{}
	h := newHarness(t, &fakeBackend{snap: existing()})
	h.typ("work")
	h.keys("enter", "down", "enter", "down", "enter", "enter")
	b.ReportAllocs()
	for b.Loop() {
		_ = h.m.View(120, 40)
	}
}

func BenchmarkTypeName(b *testing.B) {
	t := &testing.T{}
	snap := existing()
	for i := range 10000 {
		snap.Taken = append(snap.Taken, "Taken "+strconv.Itoa(i))
	}
	h := newHarness(t, &fakeBackend{snap: snap})
	h.typ("home")
	h.keys("enter", "enter", "enter")
	key := keyMsg(t, "x")
	b.ReportAllocs()
	for b.Loop() {
		m, _ := h.m.Update(key)
		_ = m.View(80, 24)
	}
}

// A pasted name is validated like a typed one.
func TestPastedNameValidated(t *testing.T) {
	h := newHarness(t, &fakeBackend{snap: existing()})
	h.typ("home")
	h.keys("enter", "enter", "enter")
	h.send(tea.PasteMsg{Content: "SPICA"})
	if err := h.m.refusal(stepName); !errors.Is(err, registry.ErrNameTaken) {
		t.Fatalf("pasted taken name not refused: %v", err)
	}
	h.send(tea.PasteMsg{Content: " II"})
	if o, _ := h.m.current(stepName); o.err != nil || o.value != "SPICA II" {
		t.Fatalf("pasted free name: %+v", o)
	}
}

// A backend error is shown, not swallowed, and the wizard can still be left.
func TestSnapshotErrorShown(t *testing.T) {
	h := newHarness(t, &fakeBackend{snapErr: registry.ErrContention})
	v := h.m.View(80, 24)
	if !strings.Contains(v, registry.ErrContention.Error()) || !strings.Contains(v, "could not be read") {
		t.Fatalf("snapshot error not shown:\n%s", v)
	}
	h.keys("enter")
	if h.m.step != stepScope || h.done != nil {
		t.Fatal("enter acted without a snapshot")
	}
	h.keys("esc")
	if h.done == nil || !h.done.Cancelled {
		t.Fatalf("esc must leave: %+v", h.done)
	}
}

// A 1 MiB paste into an answer is cut to the answer's limit in one step,
// and the wizard says so under the field.
func TestBigPasteIsCutToTheAnswer(t *testing.T) {
	h := newHarness(t, &fakeBackend{snap: existing()})
	start := time.Now()
	h.send(tea.PasteMsg{Content: strings.Repeat("x", 1<<20)})
	if took := time.Since(start); took > 500*time.Millisecond {
		t.Errorf("a 1 MiB paste took %v", took)
	}
	if v := h.m.inputs[stepScope].Value(); v != strings.Repeat("x", 64) {
		t.Fatalf("the scope holds %d characters after a 1 MiB paste, want 64", len(v))
	}
	if !strings.Contains(ansi.Strip(h.m.View(80, 24)), "paste cut: 64 of 1048576 characters taken") {
		t.Fatalf("the wizard does not say the paste was cut:\n%s", ansi.Strip(h.m.View(80, 24)))
	}
	h.typ("y")
	if v := h.m.inputs[stepScope].Value(); v != strings.Repeat("x", 64) || !strings.Contains(h.m.note, "the field is full") {
		t.Fatalf("a key into the full answer: %d characters, note %q", len(v), h.m.note)
	}
}
