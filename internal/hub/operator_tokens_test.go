package hub

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/operators"
	"github.com/virgo-hub/virgo-tui/internal/operators/roll"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

// bookOf is a token book over a real store in a temporary directory,
// following home's token files, as a hub on host "here" keeps it.
func bookOf(t *testing.T, home string) *Tokens {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "virgo.db"), boltstore.Options{})
	mustNil(t, err)
	t.Cleanup(func() { st.Close() })
	return NewTokens(st, home, "here", nil)
}

// ageOperators sets the modification times of the operators directory and
// its files an hour back, as they are when the hub has run a while (a scan
// right after a change rescans once more; see racyWindow).
func ageOperators(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	ents, err := os.ReadDir(dir)
	mustNil(t, err)
	for _, e := range ents {
		mustNil(t, os.Chtimes(filepath.Join(dir, e.Name()), old, old))
	}
	mustNil(t, os.Chtimes(dir, old, old))
}

// "Operator tokens can be revoked while the hub runs": a deleted token file
// makes its token refused on the next request.
func TestDeletedOperatorTokenRefused(t *testing.T) {
	home := t.TempDir()
	tok, err := hubapi.OperatorToken(home, "henry")
	mustNil(t, err)
	tk := bookOf(t, home)
	id, err := tk.Authenticate(tok, hubapi.NoUID)
	mustNil(t, err)
	if id.Principal != "human:henry" || !id.IsHuman() {
		t.Fatalf("henry's token identifies %+v", id)
	}
	mustNil(t, os.Remove(hubapi.OperatorTokenPath(home, "henry")))
	if id, err := tk.Authenticate(tok, hubapi.NoUID); !errors.Is(err, hubapi.ErrUnauthenticated) {
		t.Fatalf("after its file was deleted, henry's token still identifies %+v (%v)", id, err)
	}
}

// A rotated token file (removed and issued again) retires the old token and
// makes the new one work, without a hub restart.
func TestRotatedOperatorToken(t *testing.T) {
	home := t.TempDir()
	old, err := hubapi.OperatorToken(home, "henry")
	mustNil(t, err)
	tk := bookOf(t, home)
	_, err = tk.Authenticate(old, hubapi.NoUID)
	mustNil(t, err)

	mustNil(t, os.Remove(hubapi.OperatorTokenPath(home, "henry")))
	rotated, err := hubapi.OperatorToken(home, "henry")
	mustNil(t, err)
	if rotated == old {
		t.Fatal("OperatorToken issued the same token again")
	}
	if _, err := tk.Authenticate(old, hubapi.NoUID); !errors.Is(err, hubapi.ErrUnauthenticated) {
		t.Fatalf("the rotated-out token: got %v, want %v", err, hubapi.ErrUnauthenticated)
	}
	if id, err := tk.Authenticate(rotated, hubapi.NoUID); err != nil || id.Principal != "human:henry" {
		t.Fatalf("the new token: %+v, %v", id, err)
	}
}

// A token file rewritten in place, with the same size and the directory
// untouched, is seen too: its own modification time changed.
func TestOperatorTokenRewrittenInPlace(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "operators")
	old, err := hubapi.OperatorToken(home, "henry")
	mustNil(t, err)
	ageOperators(t, dir)
	tk := bookOf(t, home)
	_, err = tk.Authenticate(old, hubapi.NoUID)
	mustNil(t, err)
	dirInfo, err := os.Stat(dir)
	mustNil(t, err)

	rotated := hubapi.NewToken()
	mustNil(t, os.WriteFile(hubapi.OperatorTokenPath(home, "henry"), []byte(rotated+"\n"), 0o600))
	mustNil(t, os.Chtimes(dir, dirInfo.ModTime(), dirInfo.ModTime()))
	if _, err := tk.Authenticate(old, hubapi.NoUID); !errors.Is(err, hubapi.ErrUnauthenticated) {
		t.Fatalf("the overwritten token: got %v, want %v", err, hubapi.ErrUnauthenticated)
	}
	if _, err := tk.Authenticate(rotated, hubapi.NoUID); err != nil {
		t.Fatalf("the token written in place: %v", err)
	}
}

// "unknown tokens cost disk reads on every request": they must not. While
// the directory and its files are unchanged, unknown tokens are refused
// without reading the directory again; a new operator file is still seen.
func TestUnknownTokensDoNotRescan(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "operators")
	_, err := hubapi.OperatorToken(home, "henry")
	mustNil(t, err)
	ageOperators(t, dir)
	tk := bookOf(t, home)
	if _, err := tk.Authenticate(hubapi.NewToken(), hubapi.NoUID); !errors.Is(err, hubapi.ErrUnauthenticated) {
		t.Fatalf("an unknown token: %v", err)
	}
	if tk.scans != 1 {
		t.Fatalf("first unknown token: %d scans, want 1", tk.scans)
	}
	for range 1000 {
		if _, err := tk.Authenticate(hubapi.NewToken(), hubapi.NoUID); !errors.Is(err, hubapi.ErrUnauthenticated) {
			t.Fatalf("an unknown token: %v", err)
		}
	}
	if tk.scans != 1 {
		t.Fatalf("1000 more unknown tokens on an unchanged directory made %d scans, want 1", tk.scans)
	}
	ada, err := hubapi.EnrolOperator(home, "ada", hubapi.NoUID)
	mustNil(t, err)
	if id, err := tk.Authenticate(ada, hubapi.NoUID); err != nil || id.Principal != "human:ada" {
		t.Fatalf("an operator added while the hub runs: %+v, %v", id, err)
	}
	if tk.scans != 2 {
		t.Fatalf("a new operator file made %d scans in all, want 2", tk.scans)
	}
}

// A missing operators directory is one scan, not one per request.
func TestMissingOperatorsDirScannedOnce(t *testing.T) {
	tk := bookOf(t, t.TempDir())
	for range 100 {
		if _, err := tk.Authenticate(hubapi.NewToken(), hubapi.NoUID); !errors.Is(err, hubapi.ErrUnauthenticated) {
			t.Fatalf("an unknown token: %v", err)
		}
	}
	if tk.scans != 1 {
		t.Fatalf("100 unknown tokens without an operators directory made %d scans, want 1", tk.scans)
	}
}

// Through a running hub: deleting henry's token file refuses his next
// request with unauthenticated.
func TestHubRefusesDeletedOperatorToken(t *testing.T) {
	home := shortHome(t)
	startHub(t, home, Config{}, Timeouts{})
	tok, err := hubapi.OperatorToken(home.Dir, "henry")
	mustNil(t, err)
	id, err := whoAmIWith(t, home, tok)
	mustNil(t, err)
	if id.Principal != "human:henry" {
		t.Fatalf("henry's token identifies %+v", id)
	}
	mustNil(t, os.Remove(hubapi.OperatorTokenPath(home.Dir, "henry")))
	_, err = whoAmIWith(t, home, tok)
	wantCode(t, err, "unauthenticated")
}

// An operator removed through another hub while this one was down: at its
// start the hub finds the removal in the store, refuses the token and drops
// the stale file from its home instead of recording it as a new enrolment.
func TestARemovedOperatorsFileIsNotAdoptedAgain(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "virgo.db"), boltstore.Options{})
	mustNil(t, err)
	defer st.Close()
	for _, n := range []string{"henry", "ada"} {
		_, err := hubapi.EnrolOperator(home, n, hubapi.NoUID)
		mustNil(t, err)
	}
	ada, err := hubapi.OperatorToken(home, "ada")
	mustNil(t, err)
	first := NewTokens(st, home, "here", nil)
	if id, err := first.Authenticate(ada, hubapi.NoUID); err != nil || id.Principal != "human:ada" {
		t.Fatalf("ada's file recorded as her enrolment: %+v, %v", id, err)
	}
	_, plan, err := roll.PlanRemove(ctx, st, "ada") // through another hub
	mustNil(t, err)
	_, err = plan.Commit(ctx, st)
	mustNil(t, err)

	again := NewTokens(st, home, "here", nil)
	mustNil(t, again.loadEnrolments(ctx))
	if _, err := again.Authenticate(ada, hubapi.NoUID); !errors.Is(err, hubapi.ErrUnauthenticated) {
		t.Fatalf("a removed operator's token at the next start: %v, want %v", err, hubapi.ErrUnauthenticated)
	}
	if _, err := os.Stat(hubapi.OperatorTokenPath(home, "ada")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the removed operator's file is still in the home: %v", err)
	}
	if rec, _ := roll.Get(ctx, st, "ada"); !rec.Removed {
		t.Fatalf("the stale file was recorded as an enrolment again: %+v", rec)
	}
}

// A token file in this home for an operator enrolled on another host under
// another token is not an enrolment: neither token changes, the record holds.
func TestAFileForAnOperatorEnrolledElsewhereIsIgnored(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "virgo.db"), boltstore.Options{})
	mustNil(t, err)
	defer st.Close()
	theirs := hubapi.NewToken()
	plan, err := roll.PlanEnrol(ctx, st, operators.Enrolment{Name: "ada", TokenSHA256: operators.HashToken(theirs), UID: hubapi.NoUID, Host: "elsewhere", Home: "/home/ada"})
	mustNil(t, err)
	_, err = plan.Commit(ctx, st)
	mustNil(t, err)
	planted, err := hubapi.EnrolOperator(home, "ada", hubapi.NoUID)
	mustNil(t, err)
	tk := NewTokens(st, home, "here", nil)
	mustNil(t, tk.loadEnrolments(ctx))
	if _, err := tk.Authenticate(planted, hubapi.NoUID); !errors.Is(err, hubapi.ErrUnauthenticated) {
		t.Fatalf("a file planted for an operator enrolled elsewhere: %v, want %v", err, hubapi.ErrUnauthenticated)
	}
	if id, err := tk.Authenticate(theirs, hubapi.NoUID); err != nil || id.Principal != "human:ada" {
		t.Fatalf("the enrolled token: %+v, %v", id, err)
	}
}

// downStore is a store whose transactions fail as unavailable while down.
type downStore struct {
	store.Store
	down atomic.Bool
}

func (d *downStore) Txn(ctx context.Context, conds []store.Cond, ops []store.Op) (int64, error) {
	if d.down.Load() {
		return 0, fmt.Errorf("txn: %w", store.ErrUnavailable)
	}
	return d.Store.Txn(ctx, conds, ops)
}

// An enrolment the store could not record (it did not answer) is not
// tried again by every request that follows — each would wait on the
// store, one at a time — but by the hub's own tick; once recorded, the
// operator's token works. A conflict, by contrast, is settled within the
// scan: the record is read again and the file reconciled against it.
func TestAFailedEnrolmentWriteIsRetriedOffTheRequestPath(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "operators")
	henry, err := hubapi.OperatorToken(home, "henry")
	mustNil(t, err)
	ageOperators(t, dir)
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "virgo.db"), boltstore.Options{})
	mustNil(t, err)
	t.Cleanup(func() { st.Close() })
	ds := &downStore{Store: st}
	ds.down.Store(true)
	var logged bytes.Buffer
	tk := NewTokens(ds, home, "here", slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelInfo})))
	for range 50 {
		if _, err := tk.Authenticate(henry, hubapi.NoUID); !errors.Is(err, hubapi.ErrUnauthenticated) {
			t.Fatalf("a token whose enrolment is not recorded: %v", err)
		}
	}
	if tk.scans != 1 {
		t.Fatalf("50 requests while the store was down made %d scans (each a store write), want 1", tk.scans)
	}
	for range 20 {
		tk.retryEnrolments() // still down: nothing recorded
	}
	// An outage is logged once, not at every tick, and once more when over.
	if n := strings.Count(logged.String(), "level=ERROR"); n != 1 || !strings.Contains(logged.String(), "human:henry") {
		t.Fatalf("%d error lines over 21 failed tries, want 1 naming the operator:\n%s", n, logged.String())
	}
	ds.down.Store(false)
	tk.retryEnrolments()
	if !strings.Contains(logged.String(), "succeeded again") || !strings.Contains(logged.String(), "failed_tries=21") {
		t.Fatalf("the recovery is not logged with its tries:\n%s", logged.String())
	}
	if id, err := tk.Authenticate(henry, hubapi.NoUID); err != nil || id.Principal != "human:henry" {
		t.Fatalf("after the store came back and the tick retried: %+v, %v", id, err)
	}
	if tk.scans != 22 {
		t.Fatalf("%d scans in all, want 22 (the first, and one per retry)", tk.scans)
	}
	tk.retryEnrolments() // nothing left to retry
	if tk.scans != 22 {
		t.Fatalf("a retry with nothing left made a scan: %d", tk.scans)
	}
}

// A record another hub wrote under the book (here: the same home's
// operator, rotated there first) makes the scan's write conflict: the scan
// reads the record again and records the file against it, so the very
// request that found the file is answered — not the next one.
func TestAnEnrolmentConflictIsSettledInTheScan(t *testing.T) {
	home := t.TempDir()
	henry, err := hubapi.OperatorToken(home, "henry")
	mustNil(t, err)
	ageOperators(t, filepath.Join(home, "operators"))
	tk := bookOf(t, home)
	plan, err := roll.PlanPut(operators.Enrolment{Name: "henry", TokenSHA256: operators.HashToken(hubapi.NewToken()), UID: hubapi.NoUID, Host: "here", Home: home})
	mustNil(t, err)
	_, err = plan.Commit(context.Background(), tk.st)
	mustNil(t, err)
	if id, err := tk.Authenticate(henry, hubapi.NoUID); err != nil || id.Principal != "human:henry" {
		t.Fatalf("the file's token after a conflicting write: %+v, %v", id, err)
	}
	if tk.scans != 1 {
		t.Fatalf("%d scans, want 1", tk.scans)
	}
}
