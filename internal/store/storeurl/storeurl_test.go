package storeurl

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore/etcdtest"
)

// "--store etcd://host:2379,host:2379/prefix or VIRGO_STORE; bbolt stays
// the default."
func TestOpenWhatTheSpecNames(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	homeDB := filepath.Join(dir, "home", "virgo.db")
	t.Setenv(Env, "")
	for _, c := range []struct{ flag, env, path string }{
		{"", "", homeDB},
		{"bolt", "", homeDB},
		{"", "bolt:" + filepath.Join(dir, "env.db"), filepath.Join(dir, "env.db")},
		{"bolt:" + filepath.Join(dir, "flag.db"), "bolt:" + filepath.Join(dir, "env.db"), filepath.Join(dir, "flag.db")},
	} {
		t.Setenv(Env, c.env)
		s, err := Open(ctx, Spec(c.flag), homeDB, boltstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if b, ok := s.(*boltstore.Store); !ok || b.Path() != c.path {
			t.Errorf("flag %q, $%s %q: opened %T, want the bbolt file %s", c.flag, Env, c.env, s, c.path)
		}
		s.Close()
	}
	for _, bad := range []string{"bolt:", "postgres://x/y", "etcd://a:2379"} {
		if _, err := Open(ctx, bad, homeDB, boltstore.Options{}); !errors.Is(err, ErrBadSpec) && !errors.Is(err, etcdstore.ErrBadURL) {
			t.Errorf("Open(%q): %v, want a named refusal", bad, err)
		}
	}

	m, err := etcdtest.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	t.Setenv(Env, "etcd://"+m.Endpoint+"/virgo/test")
	s, err := Open(ctx, Spec(""), homeDB, boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if e, ok := s.(*etcdstore.Store); !ok || e.Prefix() != "virgo/test/" {
		t.Fatalf("$%s names etcd: opened %T", Env, s)
	}
}
