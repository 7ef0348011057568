package keyring

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/virgo-hub/virgo-tui/internal/operatorkeys"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

func authorizedKey(t *testing.T, comment string) string {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pk))) + " " + comment
}

func openStore(t *testing.T) store.Store {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "virgo.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// One key names one human: listing it for a second is refused, listing it
// again for the same one changes nothing, and of two enrolments planned
// at once for the same key exactly one commits.
func TestOneKeyOneHuman(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	keys, err := operatorkeys.Parse(authorizedKey(t, "shared"))
	if err != nil {
		t.Fatal(err)
	}
	adaPlan, err := PlanAdd(ctx, st, "human:ada", keys)
	if err != nil {
		t.Fatal(err)
	}
	bobPlan, err := PlanAdd(ctx, st, "human:bob", keys)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := adaPlan.Commit(ctx, st); err != nil {
		t.Fatal(err)
	}
	if _, err := bobPlan.Commit(ctx, st); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("the second of two racing enrolments of one key committed: %v", err)
	}
	if _, err := PlanAdd(ctx, st, "human:bob", keys); !errors.Is(err, operatorkeys.ErrKeyTaken) || !strings.Contains(err.Error(), "human:ada") {
		t.Fatalf("listing ada's key for bob: %v, want ErrKeyTaken naming ada", err)
	}
	if p, err := PlanAdd(ctx, st, "human:ada", keys); err != nil || !p.Empty() {
		t.Fatalf("listing ada's key for ada again: %+v, %v; want nothing to write", p, err)
	}
	pk, _, _, _, err := ssh.ParseAuthorizedKey([]byte(keys[0].Authorized))
	if err != nil {
		t.Fatal(err)
	}
	if k, err := Owner(ctx, st, pk); err != nil || k.Human != "human:ada" {
		t.Fatalf("Owner = %+v, %v; want ada", k, err)
	}
	rm, err := PlanRemoveAll(ctx, st, "human:ada")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rm.Commit(ctx, st); err != nil {
		t.Fatal(err)
	}
	if _, err := Owner(ctx, st, pk); !errors.Is(err, operatorkeys.ErrUnknownKey) {
		t.Fatalf("Owner after removal = %v, want ErrUnknownKey", err)
	}
}
