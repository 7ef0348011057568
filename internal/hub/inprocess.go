package hub

import (
	"context"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// InProcessOn returns a starter for a hub client (hubclient.WithStarter): when
// no hub answers on home's socket, it starts one inside this process,
// serving the same socket so that runtimes and other consoles connect too,
// and honouring the environment as `serve` does. The stop it returns ends
// that hub: it drains, flushes presence and closes the store. When another
// process holds the home's hub lock it fails with hubapi.ErrHubRunning
// (naming the pid), and the client waits for that hub to answer — as it
// does while `serve` takes the home over (handover.go). The hub hands the
// home over to serve when an operator asks (POST /v1/hub/handover).
//
// The hub runs on the store storeSpec names (a command's --store; empty:
// $VIRGO_STORE, else the home's bbolt file).
func InProcessOn(home registry.Home, storeSpec string) func(ctx context.Context) (stop func() error, err error) {
	return func(ctx context.Context) (func() error, error) {
		cfg, err := EnvConfig()
		if err != nil {
			return nil, err
		}
		share, err := startHere(home.Dir)
		if err != nil {
			return nil, err
		}
		defer share.release()
		hubCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		cfg.HandOver = cancel
		ready, served := make(chan struct{}), make(chan error, 1)
		go func() {
			served <- Serve(hubCtx, ServeOptions{Home: home, Hub: cfg, Store: storeSpec, Ready: func(*Hub) { close(ready) }})
		}()
		select {
		case <-ready:
			return func() error { cancel(); return <-served }, nil
		case err := <-served:
			cancel()
			return nil, err
		}
	}
}
