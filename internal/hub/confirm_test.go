package hub

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// deployOp is a confirm-level operation at the publication boundary: it
// goes to the bound human.
func deployOp(corr string) hubapi.OperationRequest {
	return hubapi.OperationRequest{Tool: "publish_deployment_v1", Target: "external:https://example.org/release",
		Shape: "deploy", CorrelationID: corr}
}

func TestRuntimeTokenCannotApprove(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	other := th.addPersona(t, "work/web/lead", "Arcturus")
	ctx := context.Background()
	res, err := th.runtime(t, lead).RequestConfirmation(ctx, deployOp("deploy-1"))
	mustNil(t, err)
	if res.Status != confirm.StatusUnknown || res.Confirmation == nil {
		t.Fatalf("deploy: %+v, want a pending confirmation", res)
	}
	id := res.Confirmation.ID
	// "Nobody confirms their own request"
	_, err = th.runtime(t, lead).Decide(ctx, id, hubapi.DecideRequest{Approve: true})
	wantCode(t, err, "self_decision")
	// "a model never confirms a global boundary"
	_, err = th.runtime(t, other).Decide(ctx, id, hubapi.DecideRequest{Approve: true})
	wantCode(t, err, "model_decision")
	// a human who is not the routed authority
	_, err = th.operator(t, "ada").Decide(ctx, id, hubapi.DecideRequest{Approve: true})
	wantCode(t, err, "not_authority")
	c, err := th.operator(t, "henry").Confirmation(ctx, id)
	mustNil(t, err)
	if c.State != confirm.StatePending {
		t.Fatalf("after refused decisions the confirmation is %s", c.State)
	}
	// the bound human decides; the decision is single use
	c, err = th.operator(t, "henry").Decide(ctx, id, hubapi.DecideRequest{Approve: true})
	mustNil(t, err)
	if c.State != confirm.StateApproved || c.Decision.Decider.String() != "human:henry" {
		t.Fatalf("decided: %s by %v", c.State, c.Decision)
	}
	_, err = th.operator(t, "henry").Decide(ctx, id, hubapi.DecideRequest{Approve: false, Reason: "changed my mind"})
	wantCode(t, err, "already_decided")
	// retrying the request under its correlation id gives the terminal result
	res, err = th.runtime(t, lead).RequestConfirmation(ctx, deployOp("deploy-1"))
	mustNil(t, err)
	if res.Status != confirm.StatusAllowed {
		t.Fatalf("retry after approval: %s", res.Status)
	}
}

func TestForgedRequesterInConfirmationIsIgnored(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	tok, err := os.ReadFile(th.home.GenerationDir(lead.ID) + "/" + hubapi.TokenFile)
	mustNil(t, err)
	body := `{"requester":"human:henry","decider":"human:henry","tool":"publish_deployment_v1",` +
		`"target":"external:https://example.org/release","shape":"deploy","correlation_id":"forged-1"}`
	resp, ae := rawRequest(t, th.home.Dir, "POST", "/v1/confirmations", strings.TrimSpace(string(tok)), []byte(body))
	if resp.StatusCode != 200 {
		t.Fatalf("request with a forged requester: %d %s", resp.StatusCode, ae.Msg)
	}
	cs, err := th.operator(t, "henry").Confirmations(context.Background(), false)
	mustNil(t, err)
	if len(cs) != 1 {
		t.Fatalf("%d pending confirmations, want 1", len(cs))
	}
	if got := cs[0].Requester.String(); got != "work/core/lead" {
		t.Fatalf("requester recorded as %q, want the token's persona work/core/lead", got)
	}
	// and henry can decide it: the forged field did not make it his own request
	_, err = th.operator(t, "henry").Decide(context.Background(), cs[0].ID, hubapi.DecideRequest{Approve: false, Reason: "not today"})
	mustNil(t, err)
}

func TestWaitingCountFollowsPendingConfirmations(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	ctx := context.Background()
	res, err := th.runtime(t, lead).RequestConfirmation(ctx, deployOp("w-1"))
	mustNil(t, err)
	if p, _ := th.hub.Presence().Get(lead.ID); p.Waiting != 1 {
		t.Fatalf("waiting %d with one pending confirmation", p.Waiting)
	}
	_, err = th.operator(t, "henry").Decide(ctx, res.Confirmation.ID, hubapi.DecideRequest{Approve: true})
	mustNil(t, err)
	if p, _ := th.hub.Presence().Get(lead.ID); p.Waiting != 0 {
		t.Fatalf("waiting %d after the decision", p.Waiting)
	}
}

func TestAuthorizeAndAuditOverTheSocket(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	th.addPersona(t, "work/core/lead", "Spica")
	op := th.operator(t, "henry")
	ctx := context.Background()
	// "POST /v1/authorize returns the normalized operation,
	// verdict, boundary, route and stamp hash".
	res, err := op.Authorize(ctx, hubapi.OperationRequest{Persona: "work/core/lead", Tool: "workspace_write", Target: "path:./memory//QUEUE.md", Shape: "write:overwrite"})
	mustNil(t, err)
	lead, err := th.hub.cases.Resolve(ctx, "work/core/lead")
	mustNil(t, err)
	if d := res.Decision; d.Verdict != confirm.Allow || res.Route != confirm.RouteNone || res.StampHash != lead.StampHash ||
		res.Operation.Target.String() != "path:memory/QUEUE.md" || res.Operation.HandlerAction == "" || res.BoundaryText == "" {
		t.Fatalf("recoverable workspace write: %+v", res)
	}
	res, err = op.Authorize(ctx, hubapi.OperationRequest{Persona: "work/core/lead", Tool: "workspace_read", Target: "path:secrets/token", Shape: "credential:read"})
	mustNil(t, err)
	if res.Decision.Verdict != confirm.Deny {
		t.Fatalf("secret read: %+v", res)
	}
	// an escape is decided (denied on the cross-scope boundary) ...
	res, err = op.Authorize(ctx, hubapi.OperationRequest{Persona: "work/core/lead", Tool: "workspace_read", Target: "path:../x", Shape: "read:range"})
	mustNil(t, err)
	if res.Decision.Verdict != confirm.Deny || res.Decision.Boundary != confirm.BoundaryCrossScope {
		t.Fatalf("escape: %+v, want a cross-scope deny", res)
	}
	// ... a malformed target is not: it is a bad request
	_, err = op.Authorize(ctx, hubapi.OperationRequest{Persona: "work/core/lead", Tool: "workspace_read", Target: "bogus:x", Shape: "read:range"})
	wantCode(t, err, "invalid_operation")
	if !errors.Is(err, hubapi.ErrInvalidOperation) {
		t.Fatalf("malformed target: %v, want ErrInvalidOperation", err)
	}
	es, err := op.Audit(ctx, 0)
	mustNil(t, err)
	if len(es) == 0 || es[len(es)-1].Event != "approved" {
		t.Fatalf("audit log ends with %+v, want the activation's approval", es)
	}
	v, err := op.Persona(ctx, "work/core/lead")
	mustNil(t, err)
	if v.Presence == nil || v.Presence.State != hubapi.StateStanding || v.Persona.Name != "Spica" {
		t.Fatalf("persona view: %+v presence %+v, want Spica standing", v.Persona, v.Presence)
	}
	sv, err := op.Stamp(ctx, "work/core/lead")
	mustNil(t, err)
	if sv.Stamp.Path.Address != "work/core/lead" || !strings.HasPrefix(sv.Hash, "sha256:") {
		t.Fatalf("stamp: %+v", sv)
	}
	dv, err := op.DiffStamps(ctx, "coder-deputy", "work/core/lead")
	mustNil(t, err)
	if dv.Text == "" || dv.Diff.Empty() {
		t.Fatalf("deputy to lead diff is empty")
	}
}

// A registration and a decision are each one transaction: the persona, its
// seat, its name and its activation request share one store revision, and
// so do the decision and the activation it carries out.
func TestRegistrationAndDecisionAreOneTransactionEach(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx := context.Background()
	op := th.operator(t, "henry")
	reg, err := op.Register(ctx, hubapi.RegisterRequest{Address: "work/core/lead", Name: "Spica", Human: "human:henry"})
	mustNil(t, err)
	revOf := func(key string) int64 {
		t.Helper()
		kv, err := th.hub.st.Get(ctx, key)
		mustNil(t, err)
		return kv.ModRev
	}
	registered := revOf("persona/" + reg.Persona.ID)
	for _, key := range []string{"seat/work/core/lead", "name/spica", queue.PrefixConfirmation + reg.Confirmation.ID} {
		if got := revOf(key); got != registered {
			t.Errorf("%s written at revision %d, the persona at %d: not one transaction", key, got, registered)
		}
	}
	_, err = op.Decide(ctx, reg.Confirmation.ID, hubapi.DecideRequest{Approve: true})
	mustNil(t, err)
	decided := revOf(queue.PrefixConfirmation + reg.Confirmation.ID)
	if got := revOf("persona/" + reg.Persona.ID); got != decided || decided == registered {
		t.Errorf("activation written at revision %d, the decision at %d (registered at %d): not one transaction", got, decided, registered)
	}
}

func TestRefusedStampIsNotAdvertisedAsStanding(t *testing.T) {
	home := shortHome(t)
	th := startHub(t, home, Config{}, Timeouts{})
	p := th.addPersona(t, "work/core/lead", "Spica")
	ctx := context.Background()
	th.stop()
	// the stamp file no longer matches the hash its composition recorded
	path := filepath.Join(home.GenerationDir(p.ID), stamp.FileName)
	b, err := os.ReadFile(path)
	mustNil(t, err)
	mustNil(t, os.WriteFile(path, bytes.Replace(b, []byte(`"access": "confirm"`), []byte(`"access": "allow"`), 1), 0o600))

	th2 := startHub(t, home, Config{}, Timeouts{})
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, _ := th2.hub.Presence().Get(p.ID)
		if got.Problem != "" {
			if got.State != hubapi.StateOffline || !strings.Contains(got.Problem, "hash mismatch") {
				t.Fatalf("refused stamp: state %s, problem %q", got.State, got.Problem)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a tampered stamp is still advertised as %s", got.State)
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, err = th2.runtime(t, p).Beat(ctx)
	wantCode(t, err, "stamp_hash_mismatch")
}

// Every class registered through the hub passes the boot check, so it is
// advertised as standing: a coordinator has its lane approver and a
// secretary its default surface. After a restart (when every stamp is
// checked again) none is marked with a problem.
func TestEveryClassRegisteredThroughTheHubStands(t *testing.T) {
	home := shortHome(t)
	th := startHub(t, home, Config{}, Timeouts{})
	var ps []registry.Persona
	for addr, name := range map[string]string{"root/secretary": "Spica", "work/coordinator": "Porrima",
		"work/core/lead": "Heze", "work/core/deputy": "Auva"} {
		ps = append(ps, th.addPersona(t, addr, name))
	}
	th.stop()
	th2 := startHub(t, home, Config{}, Timeouts{})
	mustNil(t, th2.hub.Settle(context.Background()))
	time.Sleep(200 * time.Millisecond) // the background stamp check of a fresh start
	for _, p := range ps {
		got, ok := th2.hub.Presence().Get(p.ID)
		if !ok || got.Problem != "" || got.State != hubapi.StateStanding {
			t.Errorf("%s: state %s, problem %q; want standing", p.Address, got.State, got.Problem)
		}
	}
}
