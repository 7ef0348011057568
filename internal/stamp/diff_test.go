package stamp

import (
	"slices"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

func crossings(d MatrixDiff) []string {
	var out []string
	for _, c := range d.Crossings {
		out = append(out, c.String())
	}
	return out
}

func TestDiffDeputyToSecretaryCrossesHumanMessagingAndAssign(t *testing.T) {
	d := DiffProfiles(registry.ProfileCoderDeputy, registry.ProfileSecretary)
	got := crossings(d)
	for _, want := range []string{"gains human-surface messaging", "gains task assignment", "gains decision resolution",
		"loses write in runs and artifacts", "rescoped list_runs (assigned-task -> subtree)"} {
		if !slices.Contains(got, want) {
			t.Errorf("crossing %q missing from %v", want, got)
		}
	}
	var removed []string
	for _, bc := range d.Bundles {
		for _, c := range bc.Changes {
			if c.Kind == Removed {
				removed = append(removed, c.Tool)
				if bc.Bundle != "runs and artifacts" {
					t.Errorf("%s removed under %s", c.Tool, bc.Bundle)
				}
			}
		}
	}
	slices.Sort(removed)
	if !slices.Equal(removed, []string{"advance_run", "append_run_event", "create_run", "record_artifact"}) {
		t.Errorf("removed %v", removed)
	}
}

func TestDiffAgainstNothingListsEverythingAsAdded(t *testing.T) {
	s := mustBuild(t, "work/core/lead")
	d := Diff(Stamp{}, s)
	n := 0
	for _, bc := range d.Bundles {
		for _, c := range bc.Changes {
			if c.Kind != Added {
				t.Errorf("%s is %s", c.Tool, c.Kind)
			}
			n++
		}
	}
	if n != len(s.Tools) || d.From != Nothing || d.To != "work/core/lead" {
		t.Errorf("%d added of %d, %s -> %s", n, len(s.Tools), d.From, d.To)
	}
}

func TestDiffNamesConfirmToAllow(t *testing.T) {
	a := mustBuild(t, "work/core/lead")
	b := mustBuild(t, "work/core/lead")
	b.Tools[find(&b, PublishTool)].Access = AccessAllow
	d := Diff(a, b)
	if got := crossings(d); !slices.Equal(got, []string{"confirm->allow " + PublishTool}) {
		t.Errorf("crossings %v", got)
	}
	if !strings.Contains(RenderDiff(d), "~ publish_deployment_v1 (confirm, external) -> (allow, external)") {
		t.Errorf("render:\n%s", RenderDiff(d))
	}
	if !Diff(a, a).Empty() {
		t.Error("a stamp differs from itself")
	}
}

func TestDossierListsWhatIsExplicitlyNotGranted(t *testing.T) {
	d := Dossier(registry.ProfileSecretary)
	var notGranted []string
	for _, e := range d.NotGranted {
		notGranted = append(notGranted, e.Tools...)
	}
	if !slices.Equal(notGranted, []string{"create_run", "advance_run", "append_run_event", "record_artifact", "list_confirmations_v1", "decide_confirmation_v1"}) {
		t.Errorf("secretary not granted %v", notGranted)
	}
	var granted []string
	for _, e := range d.Granted {
		granted = append(granted, e.Tools...)
	}
	if len(granted)+len(notGranted) != len(inventory) {
		t.Errorf("granted %d + not granted %d != inventory %d", len(granted), len(notGranted), len(inventory))
	}
	if !strings.Contains(RenderDossier(d), "durable relay of the bound human authority") {
		t.Error("the dossier does not carry footnote ¹")
	}
}

// A new generation with the same tools but a bound repository is not "no
// change": workspace_write now reaches the whole worktree, and the review
// shows the binding.
func TestDiffShowsBindingChanges(t *testing.T) {
	a := mustBuild(t, "work/core/lead")
	a.Workspace.Repository = ""
	b := a
	b.Workspace.Repository = "/src/core"
	b.Authority.Human = "human:bob"
	d := Diff(a, b)
	if d.Empty() || len(d.Bundles) != 0 {
		t.Fatalf("same tools, other bindings: empty=%v bundles=%v", d.Empty(), d.Bundles)
	}
	want := []BindingChange{{"authority.human", a.Authority.Human, "human:bob"}, {"workspace.repository", "none", "/src/core"}}
	if !slices.Equal(d.Bindings, want) {
		t.Fatalf("bindings = %+v, want %+v", d.Bindings, want)
	}
	if text := RenderDiff(d); !strings.Contains(text, "workspace.repository: none -> /src/core") {
		t.Errorf("rendered diff lacks the repository binding:\n%s", text)
	}
	if d := Diff(a, a); !d.Empty() {
		t.Errorf("a stamp against itself: %+v", d)
	}
}
