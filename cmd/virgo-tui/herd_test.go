package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// "the 64-concurrent-commands herd with a hub hand-over: every
// command succeeds or fails with a clear error, and none reports a false
// failure for its own success". 64 `confirm approve` commands start at
// once against a serving hub, which stops while they run; they hand over
// to hubs they start themselves (each of which stops when its command
// ends, handing over again). Afterwards every confirmation's state agrees
// with what its command said.
func TestHerdOfCommandsAcrossAHubHandOver(t *testing.T) {
	if testing.Short() {
		t.Skip("a herd of 64 commands across hub hand-overs takes seconds")
	}
	const herd = 64
	c := newCLI(t)
	home := registry.Home{Dir: c.home}
	ctx := context.Background()
	op, err := hubclient.Dial(ctx, c.home, hubclient.AsOperator("human:owner"), hubclient.WithStarter(hub.InProcessOn(home, "")))
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, herd)
	for i := range ids {
		reg, err := op.Register(ctx, hubapi.RegisterRequest{Address: fmt.Sprintf("w%d/core/lead", i), Name: fmt.Sprintf("Herd %d", i), Human: "human:owner"})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = reg.Confirmation.ID
	}
	if err := op.Close(); err != nil { // its hub stops
		t.Fatal(err)
	}

	// the serving hub the herd joins, and stops under it
	serving, stopServing := context.WithCancel(ctx)
	ready, served := make(chan struct{}), make(chan error, 1)
	go func() {
		served <- hub.Serve(serving, hub.ServeOptions{Home: home, Ready: func(*hub.Hub) { close(ready) }})
	}()
	<-ready

	type outcome struct {
		out, errOut string
		code        int
		ended       time.Time
	}
	outs := make([]outcome, herd)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			outs[i].out, outs[i].errOut, outs[i].code = c.run("confirm", "approve", ids[i])
			outs[i].ended = time.Now()
		}()
	}
	close(start)
	time.Sleep(20 * time.Millisecond)
	stopServing()
	if err := <-served; err != nil {
		t.Fatalf("the serving hub stopped with %v", err)
	}
	stopped := time.Now()
	wg.Wait()
	handedOver := 0
	for _, o := range outs {
		if o.ended.After(stopped) {
			handedOver++
		}
	}
	if handedOver == 0 {
		t.Fatal("every command ended before the serving hub stopped: no hand-over happened, the test proves nothing")
	}
	t.Logf("%d of %d commands finished on hubs started after the serving one stopped", handedOver, herd)

	check, err := hubclient.Dial(ctx, c.home, hubclient.AsOperator("human:owner"), hubclient.WithStarter(hub.InProcessOn(home, "")))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := check.Close(); err != nil {
			t.Error(err)
		}
	}()
	failed := 0
	for i, id := range ids {
		cf, err := check.Confirmation(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		approved, o := cf.State == confirm.StateApproved, outs[i]
		switch {
		case o.code == 0 && !approved:
			t.Errorf("%s: the command said %q, the confirmation is %s", id, o.out, cf.State)
		case o.code == 0 && !strings.Contains(o.out, "approved "+id):
			t.Errorf("%s: the command succeeded saying %q", id, o.out)
		case o.code != 0 && approved:
			t.Errorf("%s: a false failure — the command failed (%q) but its approval is committed", id, o.errOut)
		case o.code != 0:
			failed++
			if !strings.Contains(o.errOut, "no hub is running for this home") {
				t.Errorf("%s: failed without a clear error: %q", id, o.errOut)
			}
		}
	}
	if failed > 0 {
		t.Logf("%d of %d commands failed with a clear error", failed, herd)
	}
}
