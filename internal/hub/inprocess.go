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
// (naming the pid), and the client waits for that hub to answer.
//
// The hub runs on the store storeSpec names (a command's --store; empty:
// $VIRGO_STORE, else the home's bbolt file).
func InProcessOn(home registry.Home, storeSpec string) func(ctx context.Context) (stop func() error, err error) {
	return func(ctx context.Context) (func() error, error) {
		cfg, err := EnvConfig()
		if err != nil {
			return nil, err
		}
		hubCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
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
