package hub

import (
	"context"
	"slices"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore/etcdtest"
	"github.com/virgo-hub/virgo-tui/internal/store/storecopy"
	"github.com/virgo-hub/virgo-tui/internal/store/storeurl"
)

// An installation on its bbolt file, copied into etcd,
// is served by a hub on etcd as it was: the same personas, the same queue
// (a decided confirmation stays decided, a pending one can still be
// decided), and consoles resync, since the stream's epoch is new.
func TestMigrateBoltInstallationToEtcd(t *testing.T) {
	ctx := context.Background()
	home := shortHome(t)
	th := startHub(t, home, Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	th.addPersona(t, "work/web/lead", "Arcturus")
	henry := th.operator(t, "henry")
	decided, err := th.runtime(t, lead).RequestConfirmation(ctx, deployOp("migrate-1"))
	mustNil(t, err)
	_, err = henry.Decide(ctx, decided.Confirmation.ID, hubapi.DecideRequest{Approve: true})
	mustNil(t, err)
	pending, err := th.runtime(t, lead).RequestConfirmation(ctx, deployOp("migrate-2"))
	mustNil(t, err)
	before, err := henry.Snapshot(ctx)
	mustNil(t, err)
	th.stop()

	m, err := etcdtest.Start(t.TempDir())
	mustNil(t, err)
	t.Cleanup(m.Stop) // after the hub on it stops (cleanups run last first)
	url := "etcd://" + m.Endpoint + "/virgo/migrated"
	from, err := boltstore.Open(home.DBPath(), boltstore.Options{})
	mustNil(t, err)
	o, err := etcdstore.ParseURL(url)
	mustNil(t, err)
	to, err := etcdstore.Open(ctx, o)
	mustNil(t, err)
	rep, err := storecopy.Copy(ctx, from, to, storecopy.Options{})
	mustNil(t, err)
	mustNil(t, from.Close())
	mustNil(t, to.Close())
	if rep.Source.Keys == 0 || rep.Source.SHA256 != rep.Destination.SHA256 {
		t.Fatalf("the copy's check: %+v", rep)
	}

	t.Setenv(storeurl.Env, url)
	th2 := startHub(t, home, Config{}, Timeouts{})
	if _, ok := th2.hub.st.(*etcdstore.Store); !ok {
		t.Fatalf("the hub opened %T, not the etcd store", th2.hub.st)
	}
	henry2 := th2.operator(t, "henry")
	after, err := henry2.Snapshot(ctx)
	mustNil(t, err)
	if after.Epoch == before.Epoch {
		t.Fatalf("the hub on etcd kept the stream's epoch %s: consoles would not resync", after.Epoch)
	}
	names := func(s hubapi.Snapshot) (out []string) {
		for _, p := range s.Personas {
			out = append(out, p.Persona.Address+"="+string(p.Persona.State))
		}
		slices.Sort(out)
		return out
	}
	if !slices.Equal(names(before), names(after)) || len(after.Personas) != 2 {
		t.Fatalf("personas before %v, on etcd %v", names(before), names(after))
	}
	ids := func(s hubapi.Snapshot) (out []string) {
		for _, c := range s.Confirmations {
			out = append(out, c.ID+"="+string(c.State))
		}
		slices.Sort(out)
		return out
	}
	if !slices.Equal(ids(before), ids(after)) || !slices.Contains(ids(after), pending.Confirmation.ID+"="+string(confirm.StatePending)) {
		t.Fatalf("queue before %v, on etcd %v", ids(before), ids(after))
	}
	c, err := henry2.Confirmation(ctx, decided.Confirmation.ID)
	mustNil(t, err)
	if c.State != confirm.StateApproved {
		t.Fatalf("the decided confirmation is %s on etcd", c.State)
	}
	_, err = henry2.Decide(ctx, pending.Confirmation.ID, hubapi.DecideRequest{Approve: true})
	mustNil(t, err)
}
