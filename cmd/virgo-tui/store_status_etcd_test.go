package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore/etcdtest"
)

// store status of an etcd installation with a hub running lists that hub
// with its lease (its TTL and how long it has left: renewed, so near the
// TTL) and names it as the leader of the run-once jobs; once the hub stops
// (revoking its lease, resigning) it shows none.
func TestStoreStatusShowsHubLeasesAndTheJobsLeader(t *testing.T) {
	m, err := etcdtest.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Stop)
	url := "etcd://" + m.Endpoint + "/virgo/status"
	c := newCLI(t)
	home, err := registry.CreateHome(c.home)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	ready, served := make(chan struct{}), make(chan error, 1)
	go func() {
		served <- hub.Serve(ctx, hub.ServeOptions{Home: home, Store: url, Hub: hub.Config{Lease: 3 * time.Second},
			Ready: func(*hub.Hub) { close(ready) }})
	}()
	select {
	case <-ready:
	case err := <-served:
		t.Fatalf("the hub did not start: %v", err)
	}
	self := fmt.Sprintf("pid %d", os.Getpid())
	var out string
	deadline := time.Now().Add(10 * time.Second)
	for {
		out = c.ok("--store", url, "store", "status")
		if strings.Contains(out, "jobs      ") && !strings.Contains(out, "no hub leads") || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	wantContains(t, "status with a hub", out, "hub       ", self, "lease ", "s of 3s left", "jobs      ", "(of 1 candidates)")
	wantContains(t, "status -o json with a hub", c.ok("--store", url, "store", "status", "-o", "json"),
		`"hubs": [`, `"ttl_seconds": 3`, `"left_seconds": `, `"jobs": {`, `"candidates": 1`)
	stop()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	wantContains(t, "status after the hub stopped", c.ok("--store", url, "store", "status"), "hubs      none running", "jobs      no hub leads")
}
