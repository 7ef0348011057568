package hub

import (
	"context"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// staleChoices learns two remembered approvals for work/core/lead's first
// generation, then regrants the seat: under the new stamp both are stale.
func staleChoices(t *testing.T, th *testHub) []confirm.Choice {
	t.Helper()
	ctx := context.Background()
	lead := th.addPersona(t, "work/core/lead", "Spica")
	henry := th.operator(t, "henry")
	for i, target := range []string{"external:https://example.org/a", "external:https://example.org/b"} {
		req := hubapi.OperationRequest{Tool: "publish_deployment_v1", Target: target, Shape: "deploy", CorrelationID: "learn-" + string(rune('a'+i))}
		res, err := th.runtime(t, lead).RequestConfirmation(ctx, req)
		mustNil(t, err)
		_, err = henry.Decide(ctx, res.Confirmation.ID, hubapi.DecideRequest{Approve: true, Remember: confirm.RememberPersona})
		mustNil(t, err)
	}
	th.retire(t, "work/core/lead", "regranting")
	th.addPersona(t, "work/core/lead", "Porrima")
	stale, err := henry.Prompts(ctx, "work/core/lead", true)
	mustNil(t, err)
	if len(stale) != 2 {
		t.Fatalf("%d stale choices after the regrant, want 2", len(stale))
	}
	return stale
}

func TestPromptReviewCarriesForwardAndDropsOverTheAPI(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	stale := staleChoices(t, th)
	ctx := context.Background()
	henry := th.operator(t, "henry")
	v, err := henry.Persona(ctx, "work/core/lead")
	mustNil(t, err)

	// "only a human": a persona's token is refused, whoever's choice it is
	porrima := th.runtime(t, v.Persona)
	_, err = porrima.CarryForwardChoice(ctx, "work/core/lead", stale[0].ID())
	wantCode(t, err, "forbidden")
	_, err = porrima.DropChoice(ctx, "work/core/lead", stale[1].ID())
	wantCode(t, err, "forbidden")
	_, err = henry.CarryForwardChoice(ctx, "", stale[0].ID())
	wantCode(t, err, "persona_required")
	_, err = henry.DropChoice(ctx, "work/core/lead", "no-such-choice")
	wantCode(t, err, "no_choice")

	// the decider is the token's human, not a field of the body
	carried, err := henry.CarryForwardChoice(ctx, "work/core/lead", stale[0].ID())
	mustNil(t, err)
	if carried.Key.StampHash != v.Persona.StampHash || carried.Decider.String() != "human:henry" {
		t.Fatalf("carried forward: hash %s decider %s, want %s by human:henry", carried.Key.StampHash, carried.Decider, v.Persona.StampHash)
	}
	dropped, err := henry.DropChoice(ctx, "work/core/lead", stale[1].ID())
	mustNil(t, err)
	if dropped.ID() != stale[1].ID() {
		t.Fatalf("dropped %s, want %s", dropped.ID(), stale[1].ID())
	}
	// resolved once: a second review of either finds nothing stale
	_, err = henry.DropChoice(ctx, "work/core/lead", stale[0].ID())
	wantCode(t, err, "no_choice")
	left, err := henry.Prompts(ctx, "work/core/lead", true)
	mustNil(t, err)
	active, err := henry.Prompts(ctx, "work/core/lead", false)
	mustNil(t, err)
	if len(left) != 0 || len(active) != 1 || active[0].Key.Target != stale[0].Key.Target {
		t.Fatalf("after review: %d stale, active %+v; want none stale and the carried one active", len(left), active)
	}
	// the carried-forward approval now answers the new generation's request
	res, err := porrima.RequestConfirmation(ctx, hubapi.OperationRequest{Tool: "publish_deployment_v1",
		Target: stale[0].Key.Target.String(), Shape: "deploy", CorrelationID: "after-review"})
	mustNil(t, err)
	if res.Status != confirm.StatusAllowed || !res.Decision.Remembered {
		t.Fatalf("request matching the carried choice: %s %+v, want allowed by the remembered approval", res.Status, res.Decision)
	}
	es, err := henry.Audit(ctx, 0)
	mustNil(t, err)
	seen := map[string]string{}
	for _, e := range es {
		seen[e.Event] = e.Actor.String()
	}
	if seen["prompt-carried-forward"] != "human:henry" || seen["prompt-dropped"] != "human:henry" {
		t.Fatalf("audit of the review: %v", seen)
	}
}
