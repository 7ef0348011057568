package usecase

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
)

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	mustNil(t, err)
	return string(b)
}

func mustKey(t *testing.T, caller, key string, request ...string) Key {
	t.Helper()
	parts := make([][]byte, len(request))
	for i, r := range request {
		parts[i] = []byte(r)
	}
	k, err := NewKey(caller, key, parts...)
	mustNil(t, err)
	return k
}

// A request repeated with its Idempotency-Key is answered with the
// original result and changes nothing: "registered" and "approved by you",
// never "seat taken" or "already decided" for one's own success.
func TestRepeatedRequestReturnsTheOriginalResult(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	reg := Registration{Registration: registry.Registration{Address: "work/core/lead", Name: "Spica", Human: "human:henry"}}
	k := mustKey(t, "human:henry", "k-1", "POST /v1/personas", "Spica")
	first, err := in.cases.Register(ctx, k, reg)
	mustNil(t, err)
	rev, _ := in.st.Rev(ctx)
	again, err := in.cases.Register(ctx, k, reg)
	mustNil(t, err)
	if again.Persona.ID != first.Persona.ID || again.Confirmation.ID != first.Confirmation.ID || again.StampHash != first.StampHash {
		t.Fatalf("repeat answered %s/%s, the original was %s/%s", again.Persona.ID, again.Confirmation.ID, first.Persona.ID, first.Confirmation.ID)
	}
	// The repeat shows the activation's diff whole.
	if again.Confirmation.Detail != first.Confirmation.Detail || !strings.Contains(first.Confirmation.Detail, "nothing -> work/core/lead") {
		t.Errorf("the repeat shows the detail %q; the original was %q", again.Confirmation.Detail, first.Confirmation.Detail)
	}
	if recs, err := in.st.List(ctx, idempotencyPrefix); err != nil || len(recs) != 1 {
		t.Errorf("%d idempotency records (%v), want the request's one", len(recs), err)
	}
	if got, _ := in.st.Rev(ctx); got != rev {
		t.Fatalf("the repeat wrote (revision %d → %d)", rev, got)
	}
	// The key is the caller's: another caller's same key is another request.
	if _, err := in.cases.Register(ctx, mustKey(t, "human:alice", "k-1", "POST /v1/personas", "Spica"), reg); !errors.Is(err, registry.ErrSeatTaken) {
		t.Fatalf("alice's k-1: %v, want her own answer (ErrSeatTaken), not henry's", err)
	}
	if _, err := in.cases.Register(ctx, mustKey(t, "human:henry", "k-1", "POST /v1/personas", "Heze"), reg); !errors.Is(err, ErrIdempotencyKeyReused) {
		t.Fatalf("k-1 with another request: %v, want ErrIdempotencyKeyReused", err)
	}

	dk := mustKey(t, "human:henry", "d-1", "POST /v1/confirmations/"+first.Confirmation.ID+"/decide", "approve")
	c, err := in.cases.Decide(ctx, dk, henry, first.Confirmation.ID, true, confirm.RememberNone, "")
	mustNil(t, err)
	c2, err := in.cases.Decide(ctx, dk, henry, first.Confirmation.ID, true, confirm.RememberNone, "")
	if err != nil || c2.State != confirm.StateApproved || c2.Decision.Decider != henry || c2.ID != c.ID {
		t.Fatalf("repeated approval: %+v, %v; want the original approval by henry", c2, err)
	}
	// The decision's answer is recorded by reference to the decided
	// confirmation (terminal, never written again), not as a second copy,
	// and the repeat answers it exactly.
	if orig, again := mustJSON(t, c), mustJSON(t, c2); orig != again {
		t.Fatalf("repeated approval answered\n%s\nthe original was\n%s", again, orig)
	}
	if kv, err := in.st.Get(ctx, dk.storeKey()); err != nil || len(kv.Value) > 512 || !strings.Contains(string(kv.Value), `"ref":"`+queue.ConfirmationKey(c.ID)+`"`) {
		t.Fatalf("the decision's idempotency record: %s (%v); want a small record naming %s", kv.Value, err, queue.ConfirmationKey(c.ID))
	}
	if _, err := in.cases.Decide(ctx, Key{}, henry, first.Confirmation.ID, true, confirm.RememberNone, ""); !errors.Is(err, confirm.ErrAlreadyDecided) {
		t.Fatalf("an approval without the key: %v, want ErrAlreadyDecided", err)
	}
	if _, err := NewKey("human:henry", "no spaces\n"); !errors.Is(err, ErrBadIdempotencyKey) {
		t.Fatalf("a key with a newline: %v, want ErrBadIdempotencyKey", err)
	}
}

// A key is 1 to 128 letters, digits, '.', '_', ':' or '-' (ErrBadIdempotencyKey's words).
func TestIdempotencyKeyCharacters(t *testing.T) {
	for _, ok := range []string{"a", "019a1b2c3d4-zz9", "Az09._:-", strings.Repeat("k", 128)} {
		if _, err := NewKey("human:henry", ok); err != nil {
			t.Errorf("key %q: %v, want accepted", ok, err)
		}
	}
	for _, bad := range []string{strings.Repeat("k", 129), "a/b", "a b", "ключ", "a\x00", "a+b", "key!"} {
		if _, err := NewKey("human:henry", bad); !errors.Is(err, ErrBadIdempotencyKey) {
			t.Errorf("key %q: %v, want ErrBadIdempotencyKey", bad, err)
		}
	}
}

// Records live for the window and no more than the bound: the sweep drops
// what is past the window, then the oldest beyond the bound.
func TestIdempotencyRecordsAreBounded(t *testing.T) {
	in := newInstallation(t)
	in.cases.idemLimit = 3
	ctx := context.Background()
	names := []string{"Spica", "Heze", "Porrima", "Auva", "Zaniah"}
	seats := []string{"work/core/lead", "work/web/lead", "home/secretary", "work/coordinator", "root/secretary"}
	for i := range names {
		k := mustKey(t, "human:henry", fmt.Sprintf("k-%d", i), names[i])
		_, err := in.cases.Register(ctx, k, Registration{Registration: registry.Registration{Address: seats[i], Name: names[i], Human: "human:henry"}})
		mustNil(t, err)
		in.clk.advance(time.Minute)
	}
	if n, err := in.cases.SweepIdempotency(ctx); err != nil || n != 2 {
		t.Fatalf("sweep beyond a bound of 3 dropped %d (%v), want the 2 oldest", n, err)
	}
	var out Registered
	if ok, _ := in.cases.replayed(ctx, mustKey(t, "human:henry", "k-0", names[0]), &out); ok {
		t.Fatal("the oldest record survived the bound")
	}
	if ok, _ := in.cases.replayed(ctx, mustKey(t, "human:henry", "k-4", names[4]), &out); !ok {
		t.Fatal("the newest record was dropped")
	}
	in.clk.advance(IdempotencyWindow)
	if n, err := in.cases.SweepIdempotency(ctx); err != nil || n != 3 {
		t.Fatalf("sweep after the window dropped %d (%v), want the 3 left", n, err)
	}
}

// Records are kept under the client's key first, so a client's keys made in
// time order (the hub client's) append to the store's key order.
func TestIdempotencyRecordsFollowTheClientKeysOrder(t *testing.T) {
	first, second := mustKey(t, "human:henry", "0193a1b2c3d-9", "x"), mustKey(t, "human:henry", "0193a1b2c3e-1", "x")
	if first.storeKey() >= second.storeKey() {
		t.Fatalf("store keys %s and %s do not follow their client keys' order", first.storeKey(), second.storeKey())
	}
	if first.storeKey() == mustKey(t, "human:alice", "0193a1b2c3d-9", "x").storeKey() {
		t.Fatal("two callers' equal keys share a record")
	}
}

// A directory no persona record names (a registration killed between its
// stamp and its transaction) is removed at start; the others stay.
func TestUnreferencedStampDirectoriesAreSwept(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	res, err := in.cases.Register(ctx, Key{}, Registration{Registration: registry.Registration{Address: "work/core/lead", Name: "Spica", Human: "human:henry"}})
	mustNil(t, err)
	orphan := in.home.GenerationDir("0123456789abcdef")
	mustNil(t, os.MkdirAll(orphan, 0o700))
	mustNil(t, os.WriteFile(orphan+"/CAPABILITY-STAMP.json", []byte("{}"), 0o600))
	ps, err := in.reg.List(ctx, roster.ListOptions{All: true})
	mustNil(t, err)
	if n, err := in.cases.SweepStampDirs(ps); err != nil || n != 1 {
		t.Fatalf("swept %d (%v), want the one orphan", n, err)
	}
	if _, err := os.Stat(orphan); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the orphan directory is still there: %v", err)
	}
	if _, err := os.Stat(in.home.GenerationDir(res.Persona.ID)); err != nil {
		t.Fatalf("a registered generation's directory was removed: %v", err)
	}
}
