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
// acting as the command's principal. With a hub running it connects to it;
// without one it starts a hub inside this process, serving the home's
// socket, and stop ends it (drained, presence flushed, store closed). stop
// is a no-op when the hub belongs to another process. A persona principal
// acts with the token of its seat's active holder, read from the
// generation's private directory.
func (a *app) client(ctx context.Context) (c *hubclient.Client, stop func() error, err error) {
	home, err := registry.ResolveHome(a.homeFlag)
	if err != nil {
		return nil, nil, err
	}
	ref, human, err := a.principal()
	if err != nil {
		return nil, nil, err
	}
	if human {
		return hub.Connect(ctx, home, hubclient.AsOperator(ref))
	}
	// The seat's holder is looked up as the local operator, who may read it.
	op, stop, err := hub.Connect(ctx, home, hubclient.AsOperator(""))
	if err != nil {
		return nil, nil, err
	}
	v, err := op.Persona(ctx, ref)
	op.Close()
	fail := func(err error) (*hubclient.Client, func() error, error) { return nil, nil, errors.Join(err, stop()) }
	if err != nil {
		return fail(fmt.Errorf("acting as %s: %w", ref, err))
	}
	if p := v.Persona; p.State != registry.StateActive {
		return fail(fmt.Errorf("acting as %s: %s (%s, generation %d) is %s; a persona acts only while active",
			ref, p.Address, p.Name, p.Generation, p.State))
	}
	c, err = hubclient.Dial(ctx, home.Dir, hubclient.WithTokenFile(filepath.Join(home.GenerationDir(v.Persona.ID), hubapi.TokenFile)))
	if err != nil {
		return fail(fmt.Errorf("acting as %s: %w", ref, err))
	}
	return c, stop, nil
}

// hubRetry is how a command starts over when the hub it joined went away
// mid-command: another one-shot command's in-process hub lives only as long
// as that command. (A hub still starting is waited for by hub.Connect.)
// Waits double from first up to about three seconds in all.
var hubRetry = struct {
	attempts int
	first    time.Duration
}{attempts: 6, first: 100 * time.Millisecond}

// retryNoHub runs try until it fails with something other than
// hubclient.ErrNoHub, or the attempts or ctx run out.
func retryNoHub(ctx context.Context, try func() error) error {
	wait := hubRetry.first
	for i := 1; ; i++ {
		err := try()
		if !errors.Is(err, hubclient.ErrNoHub) || i == hubRetry.attempts {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// withClient runs fn with a client of the installation (see client) and
// then releases it, stopping the in-process hub if it started one. A stop
// error is reported with fn's. When no hub served (see hubRetry), it all
// runs again on a new connection: a call that failed with hubclient.ErrNoHub
// never reached a hub, and every command repeats its reads and idempotent
// writes (decisions, requests by correlation id) safely.
func (a *app) withClient(ctx context.Context, fn func(context.Context, *hubclient.Client) error) error {
	return retryNoHub(ctx, func() error { return a.withClientOnce(ctx, fn) })
}

func (a *app) withClientOnce(ctx context.Context, fn func(context.Context, *hubclient.Client) error) (err error) {
	c, stop, err := a.client(ctx)
	if err != nil {
		return err
	}
	defer func() {
		c.Close()
		err = errors.Join(err, stop())
	}()
	return fn(ctx, c)
}

// directOpenTimeout bounds how long a one-shot read waits for the database
// lock before it goes through a hub instead (one may be starting).
const directOpenTimeout = 200 * time.Millisecond

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
	if c, err := hubclient.Dial(ctx, home.Dir, hubclient.AsOperator("")); err == nil {
		c.Close()
		return false, nil
	}
	s, err := store.OpenBolt(home.DBPath(), store.Options{Timeout: directOpenTimeout})
	if errors.Is(err, store.ErrLocked) {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	defer func() { err = errors.Join(err, s.Close()) }()
	return true, fn(ctx, registry.New(s, home))
}
