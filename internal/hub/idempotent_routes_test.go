package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// sentTwice sends one keyed POST twice and returns both answers; the
// first must succeed with status want.
func sentTwice(t *testing.T, home, token, path, key string, body any, want int) (first, again []byte) {
	t.Helper()
	for i, out := range []*[]byte{&first, &again} {
		status, b, err := keyedPostAs(t, home, token, path, key, body)
		mustNil(t, err)
		if status != want {
			t.Fatalf("%s (send %d): %d %s, want %d", path, i+1, status, b, want)
		}
		*out = b
	}
	return first, again
}

// auditLength is how many audit entries the hub has committed.
func auditLength(t *testing.T, th *testHub) int {
	t.Helper()
	es, err := th.operator(t, "henry").Audit(context.Background(), 0)
	mustNil(t, err)
	return len(es)
}

func personaToken(t *testing.T, th *testHub, p registry.Persona) string {
	t.Helper()
	b, err := os.ReadFile(th.home.GenerationDir(p.ID) + "/" + hubapi.TokenFile)
	mustNil(t, err)
	return strings.TrimSpace(string(b))
}

// Every mutating POST route records and honours the
// Idempotency-Key. The same request sent again with its key is answered
// with the first answer and has no second effect — even when what it
// changed has moved on since, where the same request without a key would
// be answered anew.
func TestEveryMutatingRouteHonoursTheIdempotencyKey(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx := context.Background()
	home := th.home.Dir
	henry := th.operator(t, "henry")
	henryTok, err := hubapi.OperatorToken(home, "henry")
	mustNil(t, err)
	lead := th.addPersona(t, "work/core/lead", "Spica")
	th.addPersona(t, "work/core/deputy", "Zaniah")
	leadTok := personaToken(t, th, lead)

	t.Run("confirmations", func(t *testing.T) {
		req := hubapi.OperationRequest{Tool: "publish_deployment_v1", Target: "external:https://example.org/k", Shape: "deploy", CorrelationID: "keyed-1"}
		first, _ := sentTwice(t, home, leadTok, "/v1/confirmations", "conf-1", req, 200)
		var res confirm.Result
		mustNil(t, json.Unmarshal(first, &res))
		if res.Confirmation == nil || res.Confirmation.State != confirm.StatePending {
			t.Fatalf("first answer %s, want a pending confirmation", first)
		}
		_, err := henry.Decide(ctx, res.Confirmation.ID, hubapi.DecideRequest{Approve: false, Reason: "not today"})
		mustNil(t, err)
		audit := auditLength(t, th)
		status, again, err := keyedPostAs(t, home, leadTok, "/v1/confirmations", "conf-1", req)
		mustNil(t, err)
		if status != 200 || !bytes.Equal(again, first) {
			t.Fatalf("repeat after the decision: %d %s; want the first answer %s", status, again, first)
		}
		if n := auditLength(t, th); n != audit {
			t.Fatalf("the repeat wrote %d audit entries", n-audit)
		}
	})

	t.Run("assignments", func(t *testing.T) {
		assign := hubapi.AssignRequest{Persona: "work/core/deputy", Task: "work/core/t-1"}
		first, again := sentTwice(t, home, leadTok, "/v1/assignments", "assign-1", assign, 200)
		if !bytes.Equal(first, again) {
			t.Fatalf("repeat answered %s, want %s", again, first)
		}
		leadRT := th.runtime(t, lead)
		mustNil(t, leadRT.Unassign(ctx, "work/core/deputy", "work/core/t-1"))
		if _, b, _ := keyedPostAs(t, home, leadTok, "/v1/assignments", "assign-1", assign); !bytes.Equal(b, first) {
			t.Fatalf("repeat after the task was unassigned answered %s, want %s", b, first)
		}
		if as, err := leadRT.Assignments(ctx, "work/core/deputy"); err != nil || len(as) != 0 {
			t.Fatalf("the repeat assigned the task again: %+v %v", as, err)
		}

		mustNil(t, func() error { _, err := leadRT.Assign(ctx, "work/core/deputy", "work/core/t-2"); return err }())
		unassign := hubapi.AssignRequest{Persona: "work/core/deputy", Task: "work/core/t-2", Remove: true}
		sentTwice(t, home, leadTok, "/v1/assignments", "unassign-1", unassign, 204)
		status, _, err := keyedPostAs(t, home, leadTok, "/v1/assignments", "unassign-2", unassign)
		mustNil(t, err)
		if status != 404 {
			t.Fatalf("the same removal under a new key: %d, want 404 not_assigned (the key is what makes a repeat)", status)
		}
	})

	t.Run("retire", func(t *testing.T) {
		req := hubapi.RetireRequest{Persona: "work/core/deputy", Reason: "project closed"}
		first, _ := sentTwice(t, home, henryTok, "/v1/personas/retire", "retire-1", req, 202)
		var r hubapi.Retirement
		mustNil(t, json.Unmarshal(first, &r))
		_, err := henry.Decide(ctx, r.Confirmation.ID, hubapi.DecideRequest{Approve: false, Reason: "keep it"})
		mustNil(t, err)
		before, err := henry.Confirmations(ctx, true)
		mustNil(t, err)
		_, again, err := keyedPostAs(t, home, henryTok, "/v1/personas/retire", "retire-1", req)
		mustNil(t, err)
		var r2 hubapi.Retirement
		mustNil(t, json.Unmarshal(again, &r2))
		if r2.Confirmation == nil || r2.Confirmation.ID != r.Confirmation.ID {
			t.Fatalf("repeat after the denial answered %s, want confirmation %s", again, r.Confirmation.ID)
		}
		if after, err := henry.Confirmations(ctx, true); err != nil || len(after) != len(before) {
			t.Fatalf("the repeat queued another retirement: %d confirmations, was %d (%v)", len(after), len(before), err)
		}
	})

	t.Run("operators", func(t *testing.T) {
		req := hubapi.EnrolRequest{Name: "human:ada"}
		first, again := sentTwice(t, home, henryTok, "/v1/operators", "enrol-1", req, 201)
		if !bytes.Equal(first, again) {
			t.Fatalf("repeat answered %s, want %s", again, first)
		}
		status, _, err := keyedPostAs(t, home, henryTok, "/v1/operators", "enrol-2", req)
		mustNil(t, err)
		if status != 409 {
			t.Fatalf("the same enrolment under a new key: %d, want 409 already_enrolled", status)
		}
	})
}

// The review of a stale learned choice is answered once per key: the
// repeat of a carry-forward answers the choice as carried forward, not
// no_choice, and carries nothing forward twice.
func TestPromptReviewHonoursTheIdempotencyKey(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	stale := staleChoices(t, th)
	henryTok, err := hubapi.OperatorToken(th.home.Dir, "henry")
	mustNil(t, err)
	audit := auditLength(t, th)
	for i, route := range []string{"carry-forward", "drop"} {
		path := "/v1/prompts/" + stale[i].ID() + "/" + route
		first, again := sentTwice(t, th.home.Dir, henryTok, path, "review-"+route, hubapi.PromptReviewRequest{Persona: "work/core/lead"}, 200)
		if !bytes.Equal(first, again) {
			t.Fatalf("%s repeated answered %s, want %s", route, again, first)
		}
	}
	if n := auditLength(t, th); n != audit+2 {
		t.Fatalf("%d audit entries for two reviews each sent twice, want 2", n-audit)
	}
}
