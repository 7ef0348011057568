package main

import (
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/ui"
)

// The remember dialog shows what the hub's Decide would store for the
// record: the persona overlay keyed by the stamp hash, with the handler
// action, normalized target and shape of the operation.
func TestRememberRuleIsWhatDecideStores(t *testing.T) {
	c := &confirm.Confirmation{ID: "c-1", Kind: confirm.KindOperation, StampHash: "sha256:abc", Boundary: confirm.BoundaryDestructive,
		Operation: confirm.Operation{Persona: "work/core/lead", Tool: "publish", HandlerAction: "publish_release",
			Target: confirm.Target{Kind: confirm.TargetPath, Value: "dist/v1.tar.gz"}, Shape: confirm.Shape("publish")}}
	got := uiConfirmation(c).Remember
	want := ui.RememberRule{Overlay: ui.OverlayPersona, Key: "sha256:abc", Action: "publish_release",
		Target: c.Operation.Target.String(), Shape: "publish"}
	if got != want {
		t.Fatalf("rule %+v, want %+v", got, want)
	}
}

// Activations are decided once: the dialog says why instead of a rule.
func TestActivationIsNotRememberable(t *testing.T) {
	r := uiConfirmation(&confirm.Confirmation{ID: "c-2", Kind: confirm.KindActivation}).Remember
	if !strings.Contains(r.Refusal, confirm.ErrNotRememberable.Error()) || !strings.Contains(r.Refusal, "activation") ||
		r.Overlay != "" || r.Key != "" {
		t.Fatalf("activation rule %+v, want only a refusal naming the kind", r)
	}
}
