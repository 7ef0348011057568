// Package storeurl opens the store an installation names: its bbolt file
// by default, or an etcd cluster. Every command that opens the store (the
// hub's serve, a one-shot read with no hub running) names it the same way:
// --store, else $VIRGO_STORE, else the home's bbolt file.
package storeurl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore"
)

// Env names the store when no --store is given.
const Env = "VIRGO_STORE"

// ErrBadSpec: a store name that is neither bolt[:PATH] nor etcd://….
var ErrBadSpec = errors.New("bad store name")

// Spec is flag if set, else $VIRGO_STORE ("" means the home's bbolt file).
func Spec(flag string) string {
	if flag != "" {
		return flag
	}
	return strings.TrimSpace(os.Getenv(Env))
}

// isEtcd reports whether spec names an etcd cluster.
func isEtcd(spec string) bool { return strings.HasPrefix(spec, etcdstore.Scheme) }

// BoltPath is the bbolt file spec names: "" and "bolt" mean home's
// (homeDB), "bolt:PATH" PATH. ok is false for an etcd spec.
func BoltPath(spec, homeDB string) (path string, ok bool, err error) {
	switch {
	case spec == "" || spec == "bolt":
		return homeDB, true, nil
	case strings.HasPrefix(spec, "bolt:"):
		if p := strings.TrimPrefix(spec, "bolt:"); p != "" {
			return p, true, nil
		}
		return "", false, fmt.Errorf("%w: %q names no file; write bolt:PATH", ErrBadSpec, spec)
	case isEtcd(spec):
		return "", false, nil
	}
	return "", false, fmt.Errorf("%w: %q; write bolt:PATH or %shost:2379[,host:2379…]/PREFIX", ErrBadSpec, spec, etcdstore.Scheme)
}

// Open opens the store spec names; homeDB is the home's bbolt file, and
// opts tune a bbolt store.
func Open(ctx context.Context, spec, homeDB string, opts boltstore.Options) (store.Store, error) {
	path, bolt, err := BoltPath(spec, homeDB)
	switch {
	case err != nil:
		return nil, err
	case bolt:
		return boltstore.Open(path, opts)
	}
	o, err := etcdstore.ParseURL(spec)
	if err != nil {
		return nil, err
	}
	return etcdstore.Open(ctx, o)
}
