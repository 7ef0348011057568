package hub

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// connectPatience bounds how long Connect waits for a hub that holds the
// home's lock without serving its socket: another process's hub still
// starting (it takes the lock before it listens) or already stopping (a
// one-shot command's hub lives only as long as that command).
const connectPatience = 3 * time.Second

// Connect returns a client of the hub serving home. When none runs, it
// starts one inside this process, serving the same socket so that runtimes
// and other consoles can connect too (the console's way); stop ends that
// hub — it drains, flushes presence and closes the store — and is a no-op
// when the hub belongs to another process. When another process holds the
// hub lock but does not serve, Connect tries again, backing off, for up to
// connectPatience (then ErrNoHub, naming the pid). A one-shot subcommand
// that prefers to open the database directly uses Dial and handles ErrNoHub.
func Connect(ctx context.Context, home registry.Home, opts ...hubclient.DialOption) (c *hubclient.Client, stop func() error, err error) {
	deadline := time.Now().Add(connectPatience)
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		c, stop, err = connectOnce(ctx, home, opts...)
		if !errors.Is(err, ErrHubRunning) || time.Now().Add(wait).After(deadline) {
			return c, stop, err
		}
		select {
		case <-ctx.Done():
			return nil, nil, errors.Join(err, ctx.Err())
		case <-time.After(wait):
		}
	}
}

// connectOnce dials the hub serving home, or starts one in-process. It
// fails with an error that is both ErrNoHub and ErrHubRunning when another
// process holds the hub lock without serving.
func connectOnce(ctx context.Context, home registry.Home, opts ...hubclient.DialOption) (c *hubclient.Client, stop func() error, err error) {
	noop := func() error { return nil }
	if c, err = hubclient.Dial(ctx, home.Dir, opts...); !errors.Is(err, hubclient.ErrNoHub) {
		return c, noop, err
	}
	// An in-process hub honours the environment as `serve` does.
	cfg, err := EnvConfig()
	if err != nil {
		return nil, nil, err
	}
	hubCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	ready, served := make(chan struct{}), make(chan error, 1)
	go func() {
		served <- Serve(hubCtx, ServeOptions{Home: home, Hub: cfg, Ready: func(*Hub) { close(ready) }})
	}()
	select {
	case <-ready:
	case err := <-served:
		cancel()
		if errors.Is(err, ErrHubRunning) {
			// Another process won the race: use its hub, if it serves yet.
			if c, derr := hubclient.Dial(ctx, home.Dir, opts...); !errors.Is(derr, hubclient.ErrNoHub) {
				return c, noop, derr
			}
			return nil, nil, fmt.Errorf("%w, but nobody answers on %s (%w)", err, hubapi.SocketPath(home.Dir), hubclient.ErrNoHub)
		}
		return nil, nil, err
	}
	stop = func() error {
		cancel()
		return <-served
	}
	if c, err = hubclient.Dial(ctx, home.Dir, opts...); err != nil {
		return nil, nil, errors.Join(err, stop())
	}
	return c, stop, nil
}
