package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// keyedPost sends one POST with an Idempotency-Key as operator henry and
// returns the status and body, or the transport error (a killed hub).
func keyedPost(t *testing.T, home, path, key string, body any) (int, []byte, error) {
	t.Helper()
	tok, err := hubapi.OperatorToken(home, "henry")
	mustNil(t, err)
	return keyedPostAs(t, home, tok, path, key, body)
}

// keyedPostAs is keyedPost with the token given.
func keyedPostAs(t *testing.T, home, token, path, key string, body any) (int, []byte, error) {
	t.Helper()
	b, err := json.Marshal(body)
	mustNil(t, err)
	req, err := http.NewRequest(http.MethodPost, "http://hub"+path, bytes.NewReader(b))
	mustNil(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	resp, err := socketHTTP(home).Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, err
}

// records counts what a use case writes, by store prefix, in the database
// of a stopped hub, and checks the file first: it opens clean (the store's
// own page check) and bbolt's consistency check finds nothing.
func records(t *testing.T, home registry.Home) map[string]int {
	t.Helper()
	db, err := bolt.Open(home.DBPath(), 0o600, &bolt.Options{ReadOnly: true})
	mustNil(t, err)
	mustNil(t, db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	}))
	mustNil(t, db.Close())
	st, err := boltstore.Open(home.DBPath(), boltstore.Options{})
	mustNil(t, err)
	defer st.Close()
	n := map[string]int{}
	for _, prefix := range []string{"persona/", "seat/", "name/", queue.PrefixConfirmation, queue.PrefixAudit} {
		kvs, err := st.List(context.Background(), prefix)
		mustNil(t, err)
		n[prefix] = len(kvs)
	}
	return n
}

// wantKilled waits for the child hub and checks it died of SIGKILL at its
// failpoint, not of something else.
func wantKilled(t *testing.T, child interface{ Wait() error }, step string) {
	t.Helper()
	err := child.Wait()
	var ee interface{ Sys() any }
	if !errors.As(err, &ee) {
		t.Fatalf("hub at %s ended with %v, want killed", step, err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("hub at %s ended with %v, want SIGKILL", step, err)
	}
}

// Kill -9 at each step of registration: afterwards either all of it is
// stored (persona, seat, name, stamp hash, activation request, audit entry)
// or none of it, the file checks clean, and the same request retried with
// its Idempotency-Key reports the registration — the original one when it
// had committed.
func TestKillAtEachStepOfRegistration(t *testing.T) {
	if testing.Short() {
		t.Skip("starts hub subprocesses")
	}
	req := hubapi.RegisterRequest{Address: "work/core/lead", Name: "Spica", Human: "human:henry"}
	for _, step := range []string{usecase.StepAfterStamp, usecase.StepBeforeCommit, usecase.StepAfterCommit} {
		t.Run(step, func(t *testing.T) {
			home := shortHome(t)
			th := startHub(t, home, Config{}, Timeouts{})
			th.operator(t, "henry")
			th.stop()
			before := records(t, home)
			child := startChildHub(t, home.Dir, usecase.FailpointEnv+"="+usecase.UseRegister+":"+step)
			if _, _, err := keyedPost(t, home.Dir, "/v1/personas", "reg-1", req); err == nil {
				t.Fatalf("the registration was answered; the hub should have died at %s", step)
			}
			wantKilled(t, child, step)
			after := records(t, home)
			committed := step == usecase.StepAfterCommit
			for prefix, was := range before {
				want := was
				if committed {
					want++
				}
				if after[prefix] != want {
					t.Errorf("%s: %d records after a kill at %s (was %d); want all of the registration or none", prefix, after[prefix], step, was)
				}
			}

			th = startHub(t, home, Config{}, Timeouts{})
			var stored *registry.Persona
			if p, err := th.hub.Registry().Resolve(context.Background(), "Spica"); err == nil {
				stored = &p
			}
			if committed != (stored != nil) {
				t.Fatalf("after a kill at %s the persona is stored: %v", step, stored != nil)
			}
			dirs, err := os.ReadDir(home.PersonasDir())
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			if want := map[bool]int{true: 1, false: 0}[committed]; len(dirs) != want {
				t.Fatalf("%d generation directories after a kill at %s and a restart, want %d (an unreferenced stamp is swept)", len(dirs), step, want)
			}
			status, body, err := keyedPost(t, home.Dir, "/v1/personas", "reg-1", req)
			mustNil(t, err)
			var got hubapi.Registered
			if status != http.StatusCreated || json.Unmarshal(body, &got) != nil {
				t.Fatalf("retry after a kill at %s: %d %s", step, status, body)
			}
			if stored != nil && (got.Persona.ID != stored.ID || got.StampHash != stored.StampHash) {
				t.Fatalf("retry answered %s, the registration that committed before the kill is %s", got.Persona.ID, stored.ID)
			}
			if got.Confirmation == nil || got.Confirmation.State != confirm.StatePending {
				t.Fatalf("retry answered no pending activation: %s", body)
			}
		})
	}
}

// Kill -9 at each step of an approved activation and of an approved
// retirement: afterwards the decision and its effect on the generation are
// both stored or neither, and the approval retried with its key reports
// "approved by henry", never "already decided".
func TestKillAtEachStepOfADecision(t *testing.T) {
	if testing.Short() {
		t.Skip("starts hub subprocesses")
	}
	ctx := context.Background()
	for _, kind := range []confirm.Kind{confirm.KindActivation, confirm.KindRetirement} {
		for _, step := range []string{usecase.StepBeforeCommit, usecase.StepAfterCommit} {
			t.Run(string(kind)+"/"+step, func(t *testing.T) {
				home := shortHome(t)
				th := startHub(t, home, Config{}, Timeouts{})
				op := th.operator(t, "henry")
				reg, err := op.Register(ctx, hubapi.RegisterRequest{Address: "work/core/lead", Name: "Spica", Human: "human:henry"})
				mustNil(t, err)
				id, pendingState, doneState := reg.Confirmation.ID, registry.StatePending, registry.StateActive
				if kind == confirm.KindRetirement {
					_, err := op.Decide(ctx, id, hubapi.DecideRequest{Approve: true})
					mustNil(t, err)
					r, err := op.RequestRetirement(ctx, "work/core/lead", "project closed")
					mustNil(t, err)
					id, pendingState, doneState = r.Confirmation.ID, registry.StateActive, registry.StateRetired
				}
				th.stop()
				before := records(t, home)
				child := startChildHub(t, home.Dir, usecase.FailpointEnv+"="+usecase.UseDecide+":"+step)
				path := "/v1/confirmations/" + id + "/decide"
				if _, _, err := keyedPost(t, home.Dir, path, "dec-1", hubapi.DecideRequest{Approve: true}); err == nil {
					t.Fatalf("the decision was answered; the hub should have died at %s", step)
				}
				wantKilled(t, child, step)
				after := records(t, home)
				committed := step == usecase.StepAfterCommit
				if want := before[queue.PrefixAudit] + map[bool]int{true: 1, false: 0}[committed]; after[queue.PrefixAudit] != want {
					t.Errorf("%d audit entries after a kill at %s (was %d)", after[queue.PrefixAudit], step, before[queue.PrefixAudit])
				}

				th = startHub(t, home, Config{}, Timeouts{})
				c, err := th.hub.Queue().Get(ctx, id)
				mustNil(t, err)
				p, err := th.hub.Registry().Get(ctx, reg.Persona.ID)
				mustNil(t, err)
				wantC, wantP := confirm.StatePending, pendingState
				if committed {
					wantC, wantP = confirm.StateApproved, doneState
				}
				if c.State != wantC || p.State != wantP {
					t.Fatalf("after a kill at %s: confirmation %s and generation %s; want %s and %s (all or nothing)", step, c.State, p.State, wantC, wantP)
				}
				status, body, err := keyedPost(t, home.Dir, path, "dec-1", hubapi.DecideRequest{Approve: true})
				mustNil(t, err)
				var got confirm.Confirmation
				if status != http.StatusOK || json.Unmarshal(body, &got) != nil {
					t.Fatalf("retried approval after a kill at %s: %d %s; want the approval, not a failure", step, status, body)
				}
				if got.State != confirm.StateApproved || got.Decision == nil || got.Decision.Decider.String() != "human:henry" {
					t.Fatalf("retried approval answered %s", body)
				}
				if committed && !got.Decision.Time.Equal(c.Decision.Time) {
					t.Fatalf("retried approval answered a decision at %s; the one committed before the kill is at %s", got.Decision.Time, c.Decision.Time)
				}
				if p, _ := th.hub.Registry().Get(ctx, reg.Persona.ID); p.State != doneState {
					t.Fatalf("after the retried approval the generation is %s, want %s", p.State, doneState)
				}
				if strings.Contains(string(body), "already decided") {
					t.Fatalf("the retry reported its own success as a failure: %s", body)
				}
			})
		}
	}
}
