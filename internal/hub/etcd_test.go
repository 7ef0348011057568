package hub

import (
	"context"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore/etcdtest"
	"github.com/virgo-hub/virgo-tui/internal/store/storeurl"
)

// A hub serves an installation whose store is an etcd cluster,
// named by $VIRGO_STORE (or serve --store): registration, activation and
// a decision land in etcd under the installation's prefix, and a hub
// started again on the same store finds them.
func TestHubOnEtcd(t *testing.T) {
	m, err := etcdtest.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Stop) // after the hubs' own cleanups: they stop on a live cluster
	t.Setenv(storeurl.Env, "etcd://"+m.Endpoint+"/virgo/hubtest")
	home := shortHome(t)
	th := startHub(t, home, Config{}, Timeouts{})
	if _, ok := th.hub.st.(*etcdstore.Store); !ok {
		t.Fatalf("the hub opened %T, not the etcd store $%s names", th.hub.st, storeurl.Env)
	}
	ctx := context.Background()
	lead := th.addPersona(t, "work/core/lead", "Spica")
	asked, err := th.runtime(t, lead).RequestConfirmation(ctx, deployOp("etcd-1"))
	mustNil(t, err)
	henry := th.operator(t, "henry")
	_, err = henry.Decide(ctx, asked.Confirmation.ID, hubapi.DecideRequest{Approve: true})
	mustNil(t, err)
	th.stop()

	o, err := etcdstore.ParseURL("etcd://" + m.Endpoint + "/virgo/hubtest")
	mustNil(t, err)
	s, err := etcdstore.Open(ctx, o)
	mustNil(t, err)
	defer s.Close()
	kv, err := s.Get(ctx, "persona/"+lead.ID)
	if err != nil {
		t.Fatalf("the persona is not in etcd under the prefix: %v", err)
	}
	if len(kv.Value) == 0 {
		t.Fatal("the persona's record in etcd is empty")
	}
	th2 := startHub(t, home, Config{}, Timeouts{})
	c, err := th2.operator(t, "henry").Confirmation(ctx, asked.Confirmation.ID)
	mustNil(t, err)
	if c.State != confirm.StateApproved {
		t.Fatalf("after a restart on etcd the decision is %s", c.State)
	}
	p, err := th2.operator(t, "henry").Persona(ctx, lead.Address)
	mustNil(t, err)
	if p.Persona.State != registry.StateActive {
		t.Fatalf("after a restart on etcd the lead is %s", p.Persona.State)
	}
}
