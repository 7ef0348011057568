package hub

import (
	"context"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// tokenOf reads a generation's token file.
func tokenOf(t *testing.T, home registry.Home, p registry.Persona) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home.GenerationDir(p.ID), hubapi.TokenFile))
	mustNil(t, err)
	return strings.TrimSpace(string(b))
}

// whoAmIWith asks the hub of home who tok identifies.
func whoAmIWith(t *testing.T, home registry.Home, tok string) (hubapi.Identity, error) {
	t.Helper()
	c, err := hubclient.Dial(context.Background(), home.Dir, hubclient.WithToken(tok))
	mustNil(t, err)
	defer c.Close()
	return c.WhoAmI(context.Background())
}

// The store is the source of truth for a generation's token: a restarted
// hub accepts it from the recorded hash without reading (or re-creating)
// the file, which the test deletes in between.
func TestTokenAuthenticatesAfterRestartWithoutItsFile(t *testing.T) {
	home := shortHome(t)
	th := startHub(t, home, Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	tok := tokenOf(t, home, lead)
	th.stop()

	file := filepath.Join(home.GenerationDir(lead.ID), hubapi.TokenFile)
	mustNil(t, os.Remove(file))
	startHub(t, home, Config{}, Timeouts{})
	id, err := whoAmIWith(t, home, tok)
	mustNil(t, err)
	if id.Kind != hubapi.PrincipalPersona || id.PersonaID != lead.ID || id.Principal != "work/core/lead" {
		t.Fatalf("after a restart the token identifies %+v, want the lead %s", id, lead.ID)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the restarted hub touched the token file (%v); it should start from the recorded hash", err)
	}
}

// "a retired generation's token stops working at once" — and stays
// refused after a restart, as retired: its hash is still recorded.
func TestRetiredTokenRefusedAfterRestart(t *testing.T) {
	home := shortHome(t)
	th := startHub(t, home, Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	tok := tokenOf(t, home, lead)
	th.retire(t, "work/core/lead", "task done")
	_, err := whoAmIWith(t, home, tok)
	wantCode(t, err, "retired")
	th.stop()

	startHub(t, home, Config{}, Timeouts{})
	_, err = whoAmIWith(t, home, tok)
	wantCode(t, err, "retired")
}

// A home from before token hashes were recorded: the hub reads the file
// once, accepts the token, and records its hash, so the next start does
// not read it.
func TestTokenFileOfAnOldHomeIsRecordedOnce(t *testing.T) {
	home := shortHome(t)
	th := startHub(t, home, Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	tok := tokenOf(t, home, lead)
	th.stop()

	st, err := boltstore.Open(home.DBPath(), boltstore.Options{})
	mustNil(t, err)
	_, err = st.Txn(context.Background(), nil, []store.Op{{Key: TokenHashPrefix + lead.ID, Delete: true}})
	mustNil(t, err)
	mustNil(t, st.Close())

	th = startHub(t, home, Config{}, Timeouts{})
	id, err := whoAmIWith(t, home, tok)
	mustNil(t, err)
	if id.PersonaID != lead.ID {
		t.Fatalf("the old home's token identifies %+v, want %s", id, lead.ID)
	}
	kv, err := th.hub.st.Get(context.Background(), TokenHashPrefix+lead.ID)
	mustNil(t, err)
	sum := hashToken(tok)
	if string(kv.Value) != hex.EncodeToString(sum[:]) {
		t.Fatalf("recorded %q, want the token's SHA-256", kv.Value)
	}
	if strings.Contains(string(kv.Value), tok) {
		t.Fatal("the store holds the token itself")
	}
}

// Token hashes are an internal record: never on the change stream.
func TestTokenHashesStayOffTheStream(t *testing.T) {
	ev, ok, err := usecase.EventOf(store.Event{Key: TokenHashPrefix + "p-1", Value: []byte(`"5e88"`), Rev: 7})
	if ok || err != nil {
		t.Fatalf("a token hash write is published as %+v (%v)", ev, err)
	}
}
