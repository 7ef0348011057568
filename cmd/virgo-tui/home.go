package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/store/storeurl"
)

// home is the installation's home for a command that works in one
// (registry.ResolveHome: it changes nothing); a directory that holds no
// installation is refused with the command that makes one.
func (a *app) home() (registry.Home, error) {
	h, err := registry.ResolveHome(a.homeFlag)
	if errors.Is(err, registry.ErrNotAHome) {
		dir, _ := registry.HomeDir(a.homeFlag) // ResolveHome resolved it
		return h, fmt.Errorf("%w: run `%s operator add NAME --home %s` to create one", err, a.name, dir)
	}
	return h, err
}

// principal is who a command acts as: --as, else $VIRGO_PRINCIPAL, else
// the default operator (hubclient.DefaultOperator: human:$USER, else
// human:owner). A human principal comes back normalized ("human:<name>");
// a persona is named by its address (or name) as given.
func (a *app) principal() (ref string, human bool, err error) {
	as := a.as
	if as == "" {
		as = os.Getenv(hubclient.PrincipalEnv)
	}
	if as == "" {
		h, err := hubclient.DefaultOperator()
		return h, true, err
	}
	if strings.HasPrefix(as, "human:") {
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
// not start over. A persona principal acts with its own generation's token
// and nothing else (personaClient), presenting the instance fence
// $VIRGO_FENCE names (none when unset).
func (a *app) client(ctx context.Context) (c *hubclient.Client, release func() error, err error) {
	home, err := a.home()
	if err != nil {
		return nil, nil, err
	}
	ref, human, err := a.principal()
	if err != nil {
		return nil, nil, err
	}
	start := hubclient.WithStarter(hub.InProcessOn(home, a.storeFlag))
	if !human {
		c, err := a.personaClient(ctx, home, ref, start)
		if err != nil {
			return nil, nil, err
		}
		return c, c.Close, nil
	}
	c, err = hubclient.Dial(ctx, home.Dir, hubclient.AsOperator(ref), start)
	if err != nil {
		return nil, nil, err
	}
	return c, c.Close, nil
}

// ErrNotThisPersona: the token a command was given is another principal's
// than the persona it acts as.
var ErrNotThisPersona = errors.New("the token is not this persona's")

// personaClient is a client acting as persona ref (an address or a name)
// with its runtime token, found without asking anyone: --token-file, else
// $VIRGO_TOKEN_FILE, else the seat file the hub wrote in the home when it
// issued the token (hubapi.FindSeat). Whom the token belongs to is then
// asked of the hub (whoami), which answers from the token alone; a token
// of another principal is refused. No operator token is read, so a runtime
// works with $USER unset or any login, and never enrols anyone.
func (a *app) personaClient(ctx context.Context, home registry.Home, ref string, start hubclient.DialOption) (*hubclient.Client, error) {
	path := a.tokenFile
	if path == "" {
		path = os.Getenv(hubclient.TokenFileEnv)
	}
	auth := hubclient.WithTokenFile(path)
	if path == "" {
		seat, err := hubapi.FindSeat(home.Dir, ref)
		if err != nil {
			return nil, fmt.Errorf("acting as %s: %w. A persona acts only while active: the hub writes its seat file when it "+
				"issues the token of a generation activated on this host, and removes it at retirement (an operator sees why with "+
				"`persona show %s`); a runtime given its token otherwise names the file with --token-file or $%s",
				ref, err, ref, hubclient.TokenFileEnv)
		}
		path = hubapi.SeatTokenFile(home.Dir, seat)
		// The home's token is read as the hub reads it: its generation
		// directory private too.
		tok, err := hubapi.ReadGenerationToken(path)
		if err != nil {
			return nil, fmt.Errorf("acting as %s: %w", ref, err)
		}
		auth = hubclient.WithToken(tok)
	}
	// A runtime instance hands its fence to the commands it runs: every
	// call of theirs presents it, as the instance's own calls do.
	fence, err := hubapi.ParseFence(os.Getenv(FenceEnv))
	if err != nil {
		return nil, fmt.Errorf("acting as %s: $%s: %w", ref, FenceEnv, err)
	}
	c, err := hubclient.Dial(ctx, home.Dir, auth, start)
	if err != nil {
		return nil, fmt.Errorf("acting as %s: %w", ref, err)
	}
	c.UseFence(fence)
	who, err := c.WhoAmI(ctx)
	if err == nil {
		err = tokenIs(ctx, c, who, ref)
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("acting as %s with %s: %w", ref, path, err), c.Close())
	}
	return c, nil
}

// tokenIs checks that identity who, which c's token has, is persona ref:
// its address, or — ref being a name — the generation of that name (a
// persona reads its own record, and no other).
func tokenIs(ctx context.Context, c *hubclient.Client, who hubapi.Identity, ref string) error {
	wrong := fmt.Errorf("%w: it is the token of %s", ErrNotThisPersona, who.Principal)
	switch {
	case who.Kind != hubapi.PrincipalPersona:
		return wrong
	case strings.Contains(ref, "/"):
		if addr, err := registry.ParseAddress(strings.TrimSpace(ref)); err != nil {
			return err
		} else if addr.String() != who.Principal {
			return wrong
		}
		return nil
	}
	v, err := c.Persona(ctx, ref)
	if errors.Is(err, hubapi.ErrForbidden) || err == nil && v.Persona.ID != who.PersonaID {
		return wrong
	}
	return err
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

// hubAnswers is readDirect's one look, without the retry budget and
// without a token (hubclient.Probe), for a hub serving home: looking as an
// operator would read a token file the command may have no business with
// (a persona's command), or enrol a first install's human as a side effect.
func (a *app) hubAnswers(ctx context.Context, home registry.Home) bool {
	_, err := hubclient.Probe(ctx, home.Dir)
	return err == nil
}

// readDirect runs a read-only fn on the database itself when no hub runs —
// the design lets a one-shot subcommand open the database directly, so a
// single read does not pay for starting a hub (which loads every persona's
// presence and token). ok is false when a hub runs or holds the database;
// the caller then goes through withClient.
func (a *app) readDirect(ctx context.Context, fn func(context.Context, *roster.Registry) error) (ok bool, err error) {
	home, err := a.home()
	if err != nil {
		return true, err
	}
	if a.hubAnswers(ctx, home) {
		return false, nil
	}
	s, err := storeurl.Open(ctx, storeurl.Spec(a.storeFlag), home.DBPath(), boltstore.Options{Timeout: directOpenTimeout})
	if errors.Is(err, store.ErrLocked) {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	defer func() { err = errors.Join(err, s.Close()) }()
	return true, fn(ctx, roster.New(s, home))
}
