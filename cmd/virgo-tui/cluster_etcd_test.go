//go:build etcdcluster

// The store on a real three-member etcd cluster in separate processes:
// `virgo-tui serve` as a child process on
// the cluster, commands against it, members killed under it. These tests
// take minutes, so they sit behind the etcdcluster build tag: `make
// test-etcd` runs them, CI does not.

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore/etcdcluster"
	"github.com/virgo-hub/virgo-tui/internal/store/storeurl"
)

// clusterCLI is a cli whose installation lives on a new three-member etcd
// cluster ($VIRGO_STORE), with `virgo-tui serve` running on it in a child
// process and a lead persona, Spica, registered and active through it.
func clusterCLI(t *testing.T) (*cli, *etcdcluster.Cluster, *exec.Cmd) {
	t.Helper()
	cl := etcdcluster.Start(t)
	t.Setenv(storeurl.Env, cl.URL("virgo/cluster"))
	c := newCLI(t)
	c.ok("persona", "list") // the home exists, with its operator token
	hub := startServe(t, c.home, "")
	c.activate("--scope", "work", "--project", "core", "--role", "lead", "--name", "Spica")
	return c, cl, hub
}

// secondHome is another host's home for the same installation: the
// operator's token file copied into it, as docs/etcd.md says an operator does to
// act on another host (the enrolment's hash is in the store).
func secondHome(t *testing.T, c *cli, operator string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "vt")
	mustNil(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	tok, err := hubapi.OperatorToken(c.home, operator)
	mustNil(t, err)
	path := hubapi.OperatorTokenPath(dir, operator)
	mustNil(t, os.MkdirAll(filepath.Dir(path), 0o700))
	mustNil(t, os.WriteFile(path, []byte(tok+"\n"), 0o600))
	return dir
}

// openStore opens the cluster's installation directly, as a second client
// beside the hub, to read what was committed.
func openStore(t *testing.T, cl *etcdcluster.Cluster) *etcdstore.Store {
	t.Helper()
	o, err := etcdstore.ParseURL(cl.URL("virgo/cluster"))
	mustNil(t, err)
	s, err := etcdstore.Open(context.Background(), o)
	mustNil(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// approvals counts the approved entries of each confirmation in the
// installation's audit log.
func approvals(t *testing.T, s store.Store) map[string]int {
	t.Helper()
	es, err := queue.Audit(context.Background(), s)
	mustNil(t, err)
	n := map[string]int{}
	for _, e := range es {
		if e.Event == "approved" {
			n[e.ConfirmationID]++
		}
	}
	return n
}

// wantStoreUnavailable asserts err is the hub's answer for a store that
// cannot answer, and returns it.
func wantStoreUnavailable(t *testing.T, what string, err error) *hubapi.APIError {
	t.Helper()
	var ae *hubapi.APIError
	if !errors.As(err, &ae) || ae.Code != hubapi.CodeOf(hubapi.ErrStoreUnavailable) {
		t.Fatalf("%s failed with %v; want the API error %q", what, err, hubapi.CodeOf(hubapi.ErrStoreUnavailable))
	}
	return ae
}

// "kill -9 the etcd leader during a stream of decisions → writes
// continue, nothing acknowledged lost". Eight operators' clients approve 60
// pending confirmations through the hub; when a quarter are acknowledged
// the etcd leader is killed -9. Every approval the hub acknowledged is in
// the audit log exactly once; every one that failed failed as
// store_unavailable (the commit may or may not have happened), never a
// false success; approvals are acknowledged again after the new leader is
// elected; the hub's change stream carries every approval (its watch
// outlived the lost leader); and a failed approval tried again succeeds.
func TestEtcdClusterLeaderKilledDuringDecisions(t *testing.T) {
	c, cl, _ := clusterCLI(t)
	ctx := context.Background()
	lead, err := hubclient.Dial(ctx, c.home, hubclient.WithTokenFile(personaTokenFile(t, c, "work/core/lead")))
	mustNil(t, err)
	defer lead.Close()
	const n = 60
	var ids []string
	for i := range n {
		r, err := lead.RequestConfirmation(ctx, hubapi.OperationRequest{Tool: "publish_deployment_v1",
			Target: fmt.Sprintf("external:https://example.org/release-%d", i), Shape: "deploy", CorrelationID: fmt.Sprintf("deploy-%d", i)})
		mustNil(t, err)
		if r.Confirmation == nil {
			t.Fatalf("request %d: %+v, want a pending confirmation", i, r)
		}
		ids = append(ids, r.Confirmation.ID)
	}
	op, err := hubclient.Dial(ctx, c.home, hubclient.AsOperator("human:owner"))
	mustNil(t, err)
	defer op.Close()
	subCtx, stopSub := context.WithCancel(ctx)
	defer stopSub()
	changes := op.Subscribe(subCtx, 0)

	type outcome struct {
		err error
		at  time.Time
	}
	var mu sync.Mutex
	outcomes := map[string]outcome{}
	var acked atomic.Int32
	work := make(chan string, n)
	for _, id := range ids {
		work <- id
	}
	close(work)
	killed, decided := make(chan time.Time, 1), make(chan struct{})
	go func() {
		for acked.Load() < n/4 {
			select {
			case <-decided:
				t.Errorf("only %d of %d approvals were acknowledged before the leader's kill", acked.Load(), n)
				killed <- time.Time{}
				return
			case <-time.After(time.Millisecond):
			}
		}
		leader, err := cl.Leader()
		if err != nil {
			t.Error(err)
			killed <- time.Time{}
			return
		}
		cl.Kill(leader)
		t.Logf("killed the etcd leader %s after %d acknowledged approvals", leader.Name, acked.Load())
		killed <- time.Now()
	}()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range work {
				dctx, cancel := context.WithTimeout(ctx, time.Minute)
				_, err := op.Decide(dctx, id, hubapi.DecideRequest{Approve: true})
				cancel()
				if err == nil {
					acked.Add(1)
				}
				mu.Lock()
				outcomes[id] = outcome{err, time.Now()}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(decided)
	killedAt := <-killed
	if killedAt.IsZero() {
		for id, o := range outcomes {
			if o.err != nil {
				t.Fatalf("approval of %s: %v", id, o.err)
			}
		}
		t.FailNow()
	}

	var failed []string
	ackedAfter := 0
	for id, o := range outcomes {
		switch {
		case o.err != nil:
			wantStoreUnavailable(t, "an approval during the election", o.err)
			failed = append(failed, id)
		case o.at.After(killedAt):
			ackedAfter++
		}
	}
	t.Logf("%d approvals acknowledged (%d after the kill), %d failed as store_unavailable", n-len(failed), ackedAfter, len(failed))
	if ackedAfter == 0 {
		t.Fatal("no approval was acknowledged after the leader was killed: writes did not continue")
	}
	s := openStore(t, cl)
	got := approvals(t, s)
	for id, o := range outcomes {
		if o.err == nil && got[id] != 1 {
			t.Errorf("approval of %s was acknowledged; the audit log has it %d times", id, got[id])
		}
	}
	// A failed approval tried again: it was committed before the answer
	// was lost (already decided), or it is decided now.
	for _, id := range failed {
		_, err := op.Decide(ctx, id, hubapi.DecideRequest{Approve: true})
		var ae *hubapi.APIError
		if err != nil && !(errors.As(err, &ae) && ae.Code == hubapi.CodeOf(confirm.ErrAlreadyDecided)) {
			t.Errorf("approval of %s tried again: %v", id, err)
		}
	}
	got = approvals(t, s)
	for _, id := range ids {
		if got[id] != 1 {
			t.Errorf("%s is approved %d times in the audit log, want once", id, got[id])
		}
	}
	seen := map[string]bool{}
	deadline := time.After(etcdcluster.ElectionTimeout)
	for len(seen) < n {
		select {
		case batch, ok := <-changes:
			if !ok {
				t.Fatalf("the change stream ended after %d of %d approvals", len(seen), n)
			}
			for _, ch := range batch {
				if ch.Kind != "confirmation" {
					continue
				}
				p, err := ch.Payload()
				mustNil(t, err)
				if cf, ok := p.(confirm.Confirmation); ok && cf.State == confirm.StateApproved {
					seen[cf.ID] = true
				}
			}
		case <-deadline:
			t.Fatalf("the hub's change stream carried %d of %d approvals; its store watch did not outlive the lost leader", len(seen), n)
		}
	}
}

// "kill two members → a clear `store unavailable`, then recovery
// when they return". With two of three members killed -9 the cluster has no
// quorum: `confirm approve` through the hub fails within the store's call
// timeout (plus a margin for a loaded machine) naming the store as
// unavailable, and `store status` says the cluster is degraded; once the
// two are restarted the same approval succeeds.
func TestEtcdClusterTwoMembersDownIsStoreUnavailableThenRecovers(t *testing.T) {
	c, cl, _ := clusterCLI(t)
	ctx := context.Background()
	id, _ := c.request("work/core/lead", "publish_deployment_v1", "external:https://example.org/release", "deploy", "deploy-1")
	op, err := hubclient.Dial(ctx, c.home, hubclient.AsOperator("human:owner"))
	mustNil(t, err)
	defer op.Close()
	subCtx, stopSub := context.WithCancel(ctx)
	defer stopSub()
	changes := op.Subscribe(subCtx, 0)
	// A watch of our own on the member that stays, as the hub's is: etcd
	// ends it (require-leader) some election intervals after the member
	// lost its leader. The outage lasts at least until then, so the hub's
	// watch has ended too and must be resumed after the members return.
	survivor := cl.Members[2]
	s, err := etcdstore.Open(ctx, etcdstore.Options{Endpoints: []string{survivor.Endpoint}, Prefix: "virgo/cluster/"})
	mustNil(t, err)
	defer s.Close()
	rev, err := s.Rev(ctx)
	mustNil(t, err)
	ours, err := s.Watch(ctx, "", rev)
	mustNil(t, err)
	var down []*etcdcluster.Member
	for _, m := range cl.Members[:2] {
		cl.Kill(m)
		down = append(down, m)
	}
	const bound = etcdstore.DefaultCallTimeout + 5*time.Second
	start := time.Now()
	out, errOut, code := c.run("confirm", "approve", id)
	took := time.Since(start)
	if code == 0 {
		t.Fatalf("approve without a quorum succeeded: %s", out)
	}
	wantContains(t, "approve without a quorum", errOut, "store unavailable")
	if took > bound {
		t.Fatalf("approve without a quorum took %s to fail; the bound is %s", took, bound)
	}
	t.Logf("approve without a quorum failed in %s: %s", took.Round(time.Millisecond), strings.TrimSpace(errOut))

	start = time.Now()
	out, errOut, code = c.run("store", "status")
	took = time.Since(start)
	if code == 0 {
		t.Fatalf("store status without a quorum exits 0: %s", out)
	}
	wantContains(t, "store status without a quorum", errOut, "store unavailable")
	if took > bound {
		t.Fatalf("store status without a quorum took %s; the bound is %s", took, bound)
	}

	ended := time.After(time.Minute)
	for open := true; open; {
		select {
		case _, open = <-ours:
		case <-ended:
			t.Fatal("etcd did not end a require-leader watch on the member without a quorum within a minute")
		}
	}
	// Not a wait for a condition: the outage goes on for longer than one
	// call timeout after the watches ended, so the hub's first attempt to
	// watch again fails as store unavailable too.
	time.Sleep(etcdstore.DefaultCallTimeout + time.Second)

	for _, m := range down {
		cl.Restart(m)
	}
	if _, err := cl.WaitLeader(etcdcluster.ElectionTimeout); err != nil {
		t.Fatal(err)
	}
	wantContains(t, "approve after the members returned", c.ok("confirm", "approve", id), "approved "+id)
	wantContains(t, "store status after the members returned", c.ok("store", "status"), "m0", "m1", "m2")
	deadline := time.After(etcdcluster.ElectionTimeout)
	for approved := false; !approved; {
		select {
		case batch, ok := <-changes:
			if !ok {
				t.Fatal("the change stream ended")
			}
			for _, ch := range batch {
				if p, err := ch.Payload(); err == nil && ch.Kind == "confirmation" {
					cf, ok := p.(confirm.Confirmation)
					approved = approved || ok && cf.ID == id && cf.State == confirm.StateApproved
				}
			}
		case <-deadline:
			t.Fatal("the approval after the members returned is not on the hub's change stream: its store watch did not resume")
		}
	}
}

// "kill -9 one hub → its personas go offline on the other within
// the lease time". Two `virgo-tui serve` processes on two homes serve the
// installation from the cluster; Spica's runtime beats to hub A, and hub
// B's change stream shows her active. Hub A is killed -9 (its lease neither
// renewed nor revoked): B's stream shows her offline within the hub lease's
// TTL (hub.DefaultPresenceLease) and a margin for a loaded machine.
func TestEtcdClusterHubKilledTakesItsPersonasOffline(t *testing.T) {
	c, _, hubA := clusterCLI(t)
	homeB := secondHome(t, c, "owner")
	startServe(t, homeB, "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	runtime, err := hubclient.Dial(ctx, c.home, hubclient.WithTokenFile(personaTokenFile(t, c, "work/core/lead")),
		hubclient.WithRetryBudget(0))
	mustNil(t, err)
	defer runtime.Close()
	go func() {
		for ctx.Err() == nil {
			if _, err := runtime.Beat(ctx); err != nil {
				return // hub A is gone
			}
			time.Sleep(500 * time.Millisecond)
		}
	}()
	opB, err := hubclient.Dial(ctx, homeB, hubclient.AsOperator("human:owner"))
	mustNil(t, err)
	defer opB.Close()
	var lead struct{ Persona struct{ ID string } }
	mustNil(t, json.Unmarshal([]byte(c.ok("persona", "show", "work/core/lead", "-o", "json")), &lead))
	streamB := opB.Subscribe(ctx, 0)
	presenceOnB := func(timeout time.Duration, want hubapi.State) {
		t.Helper()
		deadline := time.After(timeout)
		for {
			select {
			case batch, ok := <-streamB:
				if !ok {
					t.Fatal("hub B's change stream ended")
				}
				for _, ch := range batch {
					var p hubapi.Presence
					if ch.Kind == "presence" && ch.ID == lead.Persona.ID && json.Unmarshal(ch.Data, &p) == nil && p.State == want {
						return
					}
				}
			case <-deadline:
				t.Fatalf("Spica is not %s on hub B's stream within %s", want, timeout)
			}
		}
	}
	presenceOnB(etcdcluster.ElectionTimeout, hubapi.StateActive)

	mustNil(t, hubA.Process.Kill())
	killed := time.Now()
	const margin = 5 * time.Second
	presenceOnB(hub.DefaultPresenceLease+margin, hubapi.StateOffline)
	t.Logf("Spica offline on hub B %s after hub A was killed -9 (lease TTL %s)", time.Since(killed).Round(time.Millisecond), hub.DefaultPresenceLease)
}
