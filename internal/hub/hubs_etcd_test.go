package hub

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore/etcdtest"
	"github.com/virgo-hub/virgo-tui/internal/store/leader"
	"github.com/virgo-hub/virgo-tui/internal/store/storeurl"
)

// testLease is the hubs' lease in these tests: etcd's minimum with the
// embedded member's default heartbeats.
const testLease = 2 * time.Second

// crashHub ends a hub's store connection as a killed process would: its
// leases are no longer renewed, and nothing is revoked.
func crashHub(h *Hub) { h.st.Close() }

// twoHubs is one installation on one embedded etcd member, served by two
// hubs in this process, each with its own home and socket; a and b.
type twoHubs struct {
	a, b *testHub
	logs [2]*syncBuffer
}

// startTwoHubs starts hub a, runs before (registrations) on it, then
// starts hub b.
func startTwoHubs(t *testing.T, cfg Config, before func(a *testHub)) *twoHubs {
	t.Helper()
	m, err := etcdtest.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Stop) // after the hubs' own cleanups
	hs := &twoHubs{}
	t.Setenv(storeurl.Env, "etcd://"+m.Endpoint+"/virgo/hubs")
	cfg.Lease, cfg.FlushEvery = testLease, 50*time.Millisecond
	start := func(i int) *testHub {
		hs.logs[i] = &syncBuffer{}
		c := cfg
		c.Log = slog.New(slog.NewTextHandler(hs.logs[i], nil))
		return startHub(t, shortHome(t), c, Timeouts{})
	}
	hs.a = start(0)
	if before != nil {
		before(hs.a)
	}
	hs.b = start(1)
	return hs
}

// henryOn is operator henry (enrolled through hub a) on th, with the
// token from a's home.
func (hs *twoHubs) henryOn(t *testing.T, th *testHub) *hubclient.Client {
	t.Helper()
	tok, err := hubapi.OperatorToken(hs.a.home.Dir, "henry")
	mustNil(t, err)
	return dialAs(t, th.home, tok)
}

// presenceOn waits on a stream for a presence change of id that pred
// accepts, and returns it.
func presenceOn(t *testing.T, ch <-chan []hubapi.Change, id string, timeout time.Duration, pred func(hubapi.Presence) bool) hubapi.Presence {
	t.Helper()
	var got hubapi.Presence
	collect(t, ch, timeout, func(cs []hubapi.Change) bool {
		for _, c := range cs {
			var p hubapi.Presence
			if c.Kind != "presence" || c.ID != id || json.Unmarshal(c.Data, &p) != nil {
				continue
			}
			if pred(p) {
				got = p
				return true
			}
		}
		return false
	})
	return got
}

// "Each hub holds an etcd lease: presence it reports is attached
// to that lease, so a hub that dies takes its personas offline everywhere
// within the lease time." A persona beating on hub a is online on hub b's
// stream, never written back by b; a crashes (its lease not renewed,
// nothing revoked), and b's stream shows the persona offline within the
// lease's TTL.
func TestPresenceSharedAcrossHubsDiesWithItsHub(t *testing.T) {
	var lead registry.Persona
	hs := startTwoHubs(t, Config{}, func(a *testHub) { lead = a.addPersona(t, "work/core/lead", "Spica") })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream := hs.henryOn(t, hs.b).Subscribe(ctx, 0)
	rt := hs.a.runtime(t, lead)
	activity := "compiling"
	_, err := rt.SetPresence(ctx, &activity, nil)
	mustNil(t, err)
	p := presenceOn(t, stream, lead.ID, 5*time.Second, func(p hubapi.Presence) bool { return p.State == hubapi.StateActive })
	if p.Activity != "compiling" || p.LastSeen.IsZero() {
		t.Fatalf("hub b shows %+v; want hub a's report (active, compiling)", p)
	}
	if got, _ := hs.b.hub.Presence().Get(lead.ID); got.State != hubapi.StateActive {
		t.Fatalf("hub b's tracker holds %+v", got)
	}
	// Hub b never writes the report back: the stored record is a's.
	time.Sleep(200 * time.Millisecond) // several of b's flushes
	kv, err := hs.b.hub.st.Get(ctx, presencePrefix+lead.ID)
	mustNil(t, err)
	var rec presenceRecord
	mustNil(t, json.Unmarshal(kv.Value, &rec))
	if rec.Hub != hs.a.hub.stream.Epoch() {
		t.Fatalf("the stored presence was written by hub %q, not hub a (%s)", rec.Hub, hs.a.hub.stream.Epoch())
	}

	crashed := time.Now()
	hs.a.crash()
	p = presenceOn(t, stream, lead.ID, testLease+5*time.Second, func(p hubapi.Presence) bool { return p.State == hubapi.StateOffline })
	took := time.Since(crashed)
	t.Logf("offline on hub b %s after hub a crashed (lease TTL %s)", took, testLease)
	// etcd expires leases on a 500 ms check; a loaded CI machine adds more.
	if took > testLease+2*time.Second {
		t.Fatalf("the persona went offline on hub b %s after hub a crashed; the lease's TTL is %s", took, testLease)
	}
	if _, err := hs.b.hub.st.Get(ctx, presencePrefix+lead.ID); err == nil {
		t.Fatal("the dead hub's presence record is still stored")
	}
}

// The newer report wins (last-seen), whichever hub made it: a runtime that
// moves from hub a to hub b is b's to report, and a's older view of it
// does not come back.
func TestPresenceNewerReportWins(t *testing.T) {
	tr := NewTracker(SystemClock{}, DefaultIntervals)
	tr.Share()
	tr.Track(hubapi.Presence{ID: "g1", Address: "work/core/lead"})
	mustNil(t, tr.Beat("g1"))
	mine, _ := tr.Get("g1")
	older := mine
	older.LastSeen, older.Activity = mine.LastSeen.Add(-time.Second), "old"
	if tr.ApplyRemote("hub-b", older) {
		t.Fatal("an older report of another hub replaced this hub's own")
	}
	newer := mine
	newer.LastSeen, newer.Activity = mine.LastSeen.Add(time.Second), "moved"
	if !tr.ApplyRemote("hub-b", newer) {
		t.Fatal("a newer report of another hub was ignored")
	}
	if got, _ := tr.Get("g1"); got.Activity != "moved" {
		t.Fatalf("after hub b's newer report: %+v", got)
	}
	if d := tr.TakeDirty(); len(d) != 0 {
		t.Fatalf("another hub's report is to be written back: %+v", d)
	}
	stale := newer
	stale.LastSeen = newer.LastSeen.Add(-time.Millisecond)
	if tr.ApplyRemote("hub-c", stale) {
		t.Fatal("a third hub's older report replaced hub b's newer one")
	}
	tr.DropRemote("g1")
	if got, _ := tr.Get("g1"); got.State != hubapi.StateOffline {
		t.Fatalf("after hub b's record ended: %s, want offline", got.State)
	}
	if tr.Sweep() != 0 {
		t.Fatal("a shared tracker aged an entry no runtime reports here")
	}
	mustNil(t, tr.Beat("g1"))
	if got, _ := tr.Get("g1"); got.State != hubapi.StateActive || len(tr.TakeDirty()) != 1 {
		t.Fatalf("a runtime beating here again: %+v, want active and to be written", got)
	}
}

// "Jobs that must run once (expiry sweep, ...) run under an election, and
// every write they make is fenced by the leader key's revision": of two
// hubs one leads; its pending confirmation expires by its sweep; when its
// leader key is taken away it stops ("no longer leader") and the other
// hub leads; a hub that stops hands over at once.
func TestRunOnceJobsUnderElection(t *testing.T) {
	var lead registry.Persona
	hs := startTwoHubs(t, Config{ExpirySweep: 50 * time.Millisecond, ConfirmTTL: 300 * time.Millisecond},
		func(a *testHub) { lead = a.addPersona(t, "work/core/lead", "Spica") })
	ctx := context.Background()
	a, b := hs.a.hub, hs.b.hub
	waitFor(t, "hub a leads the jobs", func() bool { return a.leading.Load() })
	if b.leading.Load() {
		t.Fatal("two hubs lead the run-once jobs")
	}
	asked, err := hs.a.runtime(t, lead).RequestConfirmation(ctx, deployOp("expire-1"))
	mustNil(t, err)
	henryB := hs.henryOn(t, hs.b)
	waitFor(t, "the confirmation expired by the leader's sweep", func() bool {
		if a.leading.Load() && b.leading.Load() {
			t.Fatal("two hubs lead the run-once jobs")
		}
		c, err := henryB.Confirmation(ctx, asked.Confirmation.ID)
		return err == nil && c.State == "expired"
	})

	el := leader.For(b.st, leader.Options{Name: JobsElection})
	holder, ok, err := el.Leader(ctx)
	mustNil(t, err)
	if !ok || !strings.Contains(holder.Name, a.stream.Epoch()) || holder.Candidates != 2 {
		t.Fatalf("the election's leader is %+v (ok %v); want hub a of two candidates", holder, ok)
	}
	// Take a's leader key away (as an expired lease would).
	_, err = b.st.Txn(ctx, nil, []store.Op{{Key: holder.Key, Delete: true}})
	mustNil(t, err)
	waitFor(t, "hub b leads after hub a's key went", func() bool { return b.leading.Load() && !a.leading.Load() })
	if !strings.Contains(hs.logs[0].String(), "no longer leader") {
		t.Fatalf("hub a did not log that it stopped leading:\n%s", hs.logs[0].String())
	}
	// A hub that stops resigns: the other leads without waiting out a lease.
	stopped := time.Now()
	hs.b.stop()
	waitFor(t, "hub a leads after hub b stopped", func() bool { return a.leading.Load() })
	if took := time.Since(stopped); took > testLease {
		t.Fatalf("hub a led %s after hub b stopped; a resignation hands over at once", took)
	}
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within 10s: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A hub whose lease is lost while it runs (revoked from outside here; a
// cluster out of reach for longer than the TTL does the same) is told so,
// never silently renewed: its presence goes offline on the other hubs,
// then at its next flush it grants a new lease, announces itself again
// and writes what its runtimes reported, and the persona is back.
func TestLostPresenceLeaseIsGrantedAnewAndRewritten(t *testing.T) {
	var lead registry.Persona
	hs := startTwoHubs(t, Config{}, func(a *testHub) { lead = a.addPersona(t, "work/core/lead", "Spica") })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream := hs.henryOn(t, hs.b).Subscribe(ctx, 0)
	_, err := hs.a.runtime(t, lead).Beat(ctx)
	mustNil(t, err)
	presenceOn(t, stream, lead.ID, 5*time.Second, func(p hubapi.Presence) bool { return p.State == hubapi.StateActive })

	a := hs.a.hub
	a.share.mu.Lock()
	lost := a.share.lease.ID()
	a.share.mu.Unlock()
	_, err = hs.b.hub.st.(*etcdstore.Store).Client().Revoke(ctx, clientv3.LeaseID(lost))
	mustNil(t, err)
	presenceOn(t, stream, lead.ID, 5*time.Second, func(p hubapi.Presence) bool { return p.State == hubapi.StateOffline })
	presenceOn(t, stream, lead.ID, 5*time.Second, func(p hubapi.Presence) bool { return p.State == hubapi.StateActive })
	if !strings.Contains(hs.logs[0].String(), "presence lease lost") {
		t.Fatalf("hub a did not log its lost lease:\n%s", hs.logs[0].String())
	}
	peers, err := Peers(ctx, hs.b.hub.st)
	mustNil(t, err)
	var found bool
	for _, p := range peers {
		if p.Hub == a.stream.Epoch() {
			found = p.LeaseID != int64(lost)
		}
	}
	if !found {
		t.Fatalf("hub a is not announced on a new lease: %+v (lost %x)", peers, lost)
	}
}

// failingRev is an etcd store whose Rev fails, so a hub start on it fails
// after its presence lease is granted and announced.
type failingRev struct{ *etcdstore.Store }

func (failingRev) Rev(context.Context) (int64, error) { return 0, store.ErrUnavailable }

// A hub whose start fails gives its lease back at once: no hub announcement
// outlives it to be counted by other hubs or `store status`.
func TestAFailedStartGivesItsLeaseBack(t *testing.T) {
	m, err := etcdtest.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Stop)
	ctx := context.Background()
	st, err := etcdstore.Open(ctx, etcdstore.Options{Endpoints: []string{m.Endpoint}, Prefix: "virgo/failed"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	home := registry.Home{Dir: t.TempDir()}
	if _, err := New(ctx, Config{Home: home, Store: failingRev{st}, Lease: time.Minute}); err == nil {
		t.Fatal("a start whose store cannot tell its revision succeeded")
	}
	kvs, err := st.List(ctx, peersPrefix)
	if err != nil || len(kvs) != 0 {
		t.Fatalf("after a failed start the store still announces %d hubs (%v)", len(kvs), err)
	}
}
