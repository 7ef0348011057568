package hub

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

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
	tk := NewTokens(filepath.Join(home, "operators"))
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
	tk := NewTokens(filepath.Join(home, "operators"))
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
	tk := NewTokens(dir)
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
	tk := NewTokens(dir)
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
	tk := NewTokens(filepath.Join(t.TempDir(), "operators"))
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
