package roll

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/operators"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

func openStore(t *testing.T) store.Store {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "virgo.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func commit(t *testing.T, st store.Store, p store.Plan, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Commit(context.Background(), st); err != nil {
		t.Fatal(err)
	}
}

// An enrolment records the token's hash, never the token; enrolling the
// same human with another token is refused, the same enrolment again plans
// nothing, and a removed operator may be enrolled again.
func TestEnrolRemoveEnrolAgain(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	henry := operators.Enrolment{Name: "henry", TokenSHA256: operators.HashToken("vgt_one"), UID: operators.NoUID, Host: "a", Home: "/h"}
	p, err := PlanEnrol(ctx, st, henry)
	commit(t, st, p, err)
	kv, err := st.Get(ctx, Prefix+"henry")
	if err != nil {
		t.Fatal(err)
	}
	if string(kv.Value) == "" || strings.Contains(string(kv.Value), "vgt_one") {
		t.Fatalf("the record holds the token: %s", kv.Value)
	}
	if p, err := PlanEnrol(ctx, st, henry); err != nil || !p.Empty() {
		t.Fatalf("the same enrolment again: %v, %+v; want nothing to write", err, p)
	}
	other := henry
	other.TokenSHA256 = operators.HashToken("vgt_two")
	if _, err := PlanEnrol(ctx, st, other); !errors.Is(err, operators.ErrAlreadyEnrolled) {
		t.Fatalf("henry with another token: %v, want ErrAlreadyEnrolled", err)
	}
	if _, _, err := PlanRemove(ctx, st, "henry"); !errors.Is(err, operators.ErrLastOperator) {
		t.Fatalf("removing the last operator: %v, want ErrLastOperator", err)
	}
	ada := operators.Enrolment{Name: "ada", TokenSHA256: operators.HashToken("vgt_ada"), UID: 1000, Host: "b", Home: "/g"}
	p, err = PlanEnrol(ctx, st, ada)
	commit(t, st, p, err)
	was, p, err := PlanRemove(ctx, st, "ada")
	commit(t, st, p, err)
	if was.Host != "b" || was.UID != 1000 {
		t.Fatalf("the removed enrolment as it was: %+v", was)
	}
	got, err := Get(ctx, st, "ada")
	if err != nil || got.Active() || !got.Removed || got.TokenSHA256 != ada.TokenSHA256 {
		t.Fatalf("ada after removal: %+v, %v; want a removed record keeping the old hash", got, err)
	}
	if _, _, err := PlanRemove(ctx, st, "ada"); !errors.Is(err, operators.ErrNotEnrolled) {
		t.Fatalf("removing ada again: %v, want ErrNotEnrolled", err)
	}
	p, err = PlanEnrol(ctx, st, operators.Enrolment{Name: "ada", TokenSHA256: operators.HashToken("vgt_ada2"), UID: operators.NoUID, Host: "a", Home: "/h"})
	commit(t, st, p, err)
	if got, _ := Get(ctx, st, "ada"); !got.Active() || got.Host != "a" {
		t.Fatalf("ada enrolled again: %+v", got)
	}
}

// Two removals racing for the last two operators cannot leave nobody: the
// plan is conditioned on every enrolled operator's record.
func TestRacingRemovalsLeaveOneOperator(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	for _, n := range []string{"henry", "ada"} {
		p, err := PlanEnrol(ctx, st, operators.Enrolment{Name: n, TokenSHA256: operators.HashToken("vgt_" + n), UID: operators.NoUID, Host: "a", Home: "/h"})
		commit(t, st, p, err)
	}
	_, p1, err := PlanRemove(ctx, st, "henry")
	if err != nil {
		t.Fatal(err)
	}
	_, p2, err := PlanRemove(ctx, st, "ada")
	if err != nil {
		t.Fatal(err)
	}
	commit(t, st, p1, nil)
	if _, err := p2.Commit(ctx, st); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("the second removal, planned before the first committed: %v, want a conflict", err)
	}
}

// A record that is not what this package writes is a named error.
func TestDecodeRefusesADamagedRecord(t *testing.T) {
	for _, v := range []string{`{`, `{"name":"ada","token_sha256":"00"}`, `{"name":"bob","token_sha256":"` + operators.HashToken("x") + `"}`,
		`{"name":"ada","token_sha256":""}`, `{"name":"ada","token_sha256":"` + operators.HashToken("x") + `","ssh_only":true}`,
		// a removal given twice, the last one taken back, as encoding/json v1 read it
		`{"name":"ada","token_sha256":"` + operators.HashToken("x") + `","removed":true,"removed":false}`,
		"{\"name\":\"ada\",\"token_sha256\":\"" + operators.HashToken("x") + "\",\"host\":\"h\xff\"}"} {
		if _, err := Decode(Prefix+"ada", []byte(v), 1); !errors.Is(err, operators.ErrBadRecord) {
			t.Errorf("Decode(%s) = %v, want ErrBadRecord", v, err)
		}
	}
}

// An operator enrolled for SSH only has no token hash, and that is read
// as such.
func TestDecodeReadsAnSSHOnlyRecord(t *testing.T) {
	e, err := Decode(Prefix+"ada", []byte(`{"name":"ada","token_sha256":"","ssh_only":true}`), 7)
	if err != nil || !e.SSHOnly || !e.Active() {
		t.Fatalf("Decode = %+v, %v; want ada, active, SSH only", e, err)
	}
}
