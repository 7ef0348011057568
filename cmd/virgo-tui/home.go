package main

import (
	"context"
	"errors"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// openStore is the one place a command gets the installation's store. Today
// it opens the bbolt file directly for the command's few transactions; when
// a hub runs, a hub client will be returned here instead, and no command
// changes.
func openStore(home registry.Home) (store.Store, error) {
	return store.OpenBolt(home.DBPath(), store.Options{})
}

// withRegistry resolves the home (--home, $VIRGO_HOME, XDG), opens the
// store, runs fn with a registry over it, and closes the store — reporting a
// close error only when fn succeeded.
func (a *app) withRegistry(ctx context.Context, fn func(context.Context, *registry.Registry) error) (err error) {
	home, err := registry.ResolveHome(a.homeFlag)
	if err != nil {
		return err
	}
	s, err := openStore(home)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, s.Close()) }()
	return fn(ctx, registry.New(s, home))
}
