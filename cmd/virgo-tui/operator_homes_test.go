package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/operators/roll"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

// sharedStoreHomes is two homes, as on two hosts, over one store file,
// each command pointing at it with --store (one after the other: bbolt
// holds one writer).
func sharedStoreHomes(t *testing.T) (a, b *cli, storeFlag string) {
	a, b = newCLI(t), newCLI(t)
	a.asEnrolled, b.asEnrolled = true, true
	return a, b, "bolt:" + filepath.Join(t.TempDir(), "shared.db")
}

// Task state2, 1: "operator add on a fresh home of an installation that
// already has operators takes the first-install branch: it writes a token
// file and reports success, but every hub refuses that token." Now it fails
// with a named error naming the way that works, and writes nothing; the way
// it names works.
func TestOperatorAddOnAFreshHomeOfAnInstallationRefuses(t *testing.T) {
	a, b, st := sharedStoreHomes(t)
	a.ok("--store", st, "operator", "add", "owner")
	a.ok("--store", st, "operator", "list", "--as", "human:owner") // A's hub records owner's enrolment

	got := b.fails("--store", st, "operator", "add", "bob", "--as", "human:bob")
	wantContains(t, "fresh home", got, "not a first install", "human:owner on ",
		"virgo-tui --home "+b.home+" --store "+st+" --as human:OPERATOR operator add bob")
	if _, err := os.Stat(hubapi.OperatorTokenPath(b.home, "bob")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused first install wrote a token: %v", err)
	}

	// The way the error names: owner's token copied to B, owner enrols bob.
	copyToken(t, a.home, b.home, "owner")
	b.ok("--store", st, "operator", "add", "bob", "--as", "human:owner")
	copyToken(t, b.home, a.home, "bob")
	a.ok("--store", st, "confirm", "list", "--as", "human:bob") // A's hub accepts bob's token

	// A fresh home whose hub runs (holding the store file's lock) asks it.
	c := newCLI(t)
	c.asEnrolled = true
	home, err := registry.CreateHome(c.home)
	if err != nil {
		t.Fatal(err)
	}
	hc, err := hubclient.Dial(context.Background(), c.home, hubclient.WithToken("none"), hubclient.WithStarter(hub.InProcessOn(home, st)))
	if err != nil {
		t.Fatal(err)
	}
	defer hc.Close()
	wantContains(t, "a fresh home's hub", c.fails("--store", st, "operator", "add", "carol"), "not a first install")
	if _, err := os.Stat(hubapi.OperatorTokenPath(c.home, "carol")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused first install wrote a token: %v", err)
	}
}

// copyToken copies operator name's token file from home from to home to,
// as the human carries it to another host.
func copyToken(t *testing.T, from, to, name string) {
	t.Helper()
	tok, err := os.ReadFile(hubapi.OperatorTokenPath(from, name))
	if err == nil {
		err = os.MkdirAll(filepath.Join(to, "operators"), 0o700)
	}
	if err == nil {
		err = os.WriteFile(hubapi.OperatorTokenPath(to, name), tok, 0o600)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// Task state2, 2: "operator add --ssh-key (and any other command that
// starts an in-process hub) must follow --store, not only $VIRGO_STORE."
// The keys of a first install land in the store --store names, not in the
// home's own database file.
func TestOperatorAddSSHKeyFollowsStoreFlag(t *testing.T) {
	a, _, st := sharedStoreHomes(t)
	a.ok("--store", st, "operator", "add", "owner", "--ssh-key", testAuthorizedKey(t, "owner@laptop"))
	if _, err := os.Stat(filepath.Join(a.home, "virgo.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the home's own database was opened despite --store: %v", err)
	}
	s, err := boltstore.Open(st[len("bolt:"):], boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := roll.Get(context.Background(), s, "owner")
	if cerr := s.Close(); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
	if !e.Active() {
		t.Fatalf("owner's enrolment is not in the --store store: %+v", e)
	}
	var ops []hubapi.Enrolled
	if err := json.Unmarshal([]byte(a.ok("--store", st, "operator", "list", "-o", "json", "--as", "human:owner")), &ops); err != nil {
		t.Fatal(err)
	}
	if len(ops) != 1 || len(ops[0].SSHKeys) != 1 {
		t.Fatalf("owner's SSH key is not in the --store store: %+v", ops)
	}
}
