package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/storeurl"
)

// principal is who a command acts as: --as, else $VIRGO_PRINCIPAL, else
// human:$USER. A human principal comes back normalized ("human:<name>"); a
// persona is named by its address (or name) as given.
func (a *app) principal() (ref string, human bool, err error) {
	as := a.as
	if as == "" {
		as = os.Getenv(hubclient.PrincipalEnv)
	}
	if as == "" || strings.HasPrefix(as, "human:") {
		h, err := registry.NormalizeHuman(as)
		return h, true, err
	}
	return as, false, nil
}

// client is the one way a command reaches the installation: a hub client
// acting as the command's principal. With a hub running it uses it; when
// none answers (at the start, or later because the hub it used stopped and
// no other took over) the client starts one inside this process, serving
// the home's socket, and release stops it (drained, presence flushed,
// store closed). Waiting for a hub, and retrying a call after any transport
// error, is the client's alone (hubclient's retry budget); a command does
// not start over. A persona principal acts with the token of its seat's
// active holder, read from the generation's private directory.
func (a *app) client(ctx context.Context) (c *hubclient.Client, release func() error, err error) {
	home, err := registry.ResolveHome(a.homeFlag)
	if err != nil {
		return nil, nil, err
	}
	ref, human, err := a.principal()
	if err != nil {
		return nil, nil, err
	}
	start := hubclient.WithStarter(hub.InProcessOn(home, a.storeFlag))
	if human {
		c, err := hubclient.Dial(ctx, home.Dir, hubclient.AsOperator(ref), start)
		if err != nil {
			return nil, nil, err
		}
		return c, c.Close, nil
	}
	// The seat's holder is looked up as the local operator, who may read it.
	op, err := hubclient.Dial(ctx, home.Dir, hubclient.AsOperator(""), start)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*hubclient.Client, func() error, error) {
		return nil, nil, errors.Join(err, op.Close())
	}
	v, err := op.Persona(ctx, ref)
	if err != nil {
		return fail(fmt.Errorf("acting as %s: %w", ref, err))
	}
	if p := v.Persona; p.State != registry.StateActive {
		return fail(fmt.Errorf("acting as %s: %s (%s, generation %d) is %s; a persona acts only while active",
			ref, p.Address, p.Name, p.Generation, p.State))
	}
	c, err = hubclient.Dial(ctx, home.Dir, hubclient.WithTokenFile(filepath.Join(home.GenerationDir(v.Persona.ID), hubapi.TokenFile)), start)
	if err != nil {
		return fail(fmt.Errorf("acting as %s: %w", ref, err))
	}
	return c, func() error { return errors.Join(c.Close(), op.Close()) }, nil
}

// withClient runs fn with a client of the installation (see client) and
// then releases it, stopping the in-process hubs it started. A stop error
// is reported with fn's.
func (a *app) withClient(ctx context.Context, fn func(context.Context, *hubclient.Client) error) (err error) {
	c, release, err := a.client(ctx)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, release()) }()
	return fn(ctx, c)
}

// directOpenTimeout bounds how long a one-shot read waits for the database
// lock before it goes through a hub instead (one may be starting).
const directOpenTimeout = 200 * time.Millisecond

// hubAnswers is readDirect's one look, without the retry budget, for a hub
// serving home, made as the operator the command's client would dial
// first (app.client). Looking as anyone else failed whenever that one was
// not enrolled — the default operator, say, beside --as human:ada — and
// sent the command to wait out the hub's lock on the file
// (directOpenTimeout) before it went through the hub all the same.
func (a *app) hubAnswers(ctx context.Context, home registry.Home) bool {
	op := ""
	if ref, human, err := a.principal(); err == nil && human {
		op = ref
	}
	c, err := hubclient.Dial(ctx, home.Dir, hubclient.AsOperator(op), hubclient.WithRetryBudget(0))
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// readDirect runs a read-only fn on the database itself when no hub runs —
// issue 5: "a one-shot subcommand may open the database directly" — so a
// single read does not pay for starting a hub (which loads every persona's
// presence and token). ok is false when a hub runs or holds the database;
// the caller then goes through withClient.
func (a *app) readDirect(ctx context.Context, fn func(context.Context, *registry.Registry) error) (ok bool, err error) {
	home, err := registry.ResolveHome(a.homeFlag)
	if err != nil {
		return true, err
	}
	if a.hubAnswers(ctx, home) {
		return false, nil
	}
	s, err := storeurl.Open(ctx, storeurl.Spec(a.storeFlag), home.DBPath(), store.Options{Timeout: directOpenTimeout})
	if errors.Is(err, store.ErrLocked) {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	defer func() { err = errors.Join(err, s.Close()) }()
	return true, fn(ctx, registry.New(s, home))
}
