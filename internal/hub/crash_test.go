package hub

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

const childHomeEnv = "VIRGO_HUB_TEST_CHILD_HOME"

// TestHubChildProcess is not a test: it is the hub process the crash test
// starts and kills.
func TestHubChildProcess(t *testing.T) {
	home := os.Getenv(childHomeEnv)
	if home == "" {
		t.Skip("runs only as the crash test's child process")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := Serve(ctx, ServeOptions{Home: registry.Home{Dir: home}}); err != nil {
		t.Fatal(err)
	}
}

// startChildHub starts a hub process serving home, with env added to its
// environment (a failpoint), and returns once it answers.
func startChildHub(t *testing.T, home string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHubChildProcess$")
	cmd.Env = append(append(os.Environ(), childHomeEnv+"="+home), env...)
	cmd.Stderr = os.Stderr
	mustNil(t, cmd.Start())
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := hubclient.Dial(context.Background(), home, hubclient.AsOperator("henry"))
		if err == nil {
			h, err := c.Health(context.Background())
			c.Close()
			if err == nil && h.PID == cmd.Process.Pid {
				return cmd
			}
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("child hub did not come up: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestSIGKILLLosesNoAcknowledgedDecision(t *testing.T) {
	if testing.Short() {
		t.Skip("starts hub subprocesses")
	}
	home := shortHome(t)
	child := startChildHub(t, home.Dir)
	defer func() { child.Process.Kill(); child.Wait() }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	henry, err := hubclient.Dial(ctx, home.Dir, hubclient.AsOperator("henry"))
	mustNil(t, err)
	defer henry.Close()
	var runtimes []*hubclient.Client
	for i, addr := range []string{"work/core/lead", "work/web/lead", "home/secretary"} {
		reg, err := henry.Register(ctx, hubapi.RegisterRequest{Address: addr, Name: fmt.Sprintf("Crash%c", 'a'+i), Human: "human:henry"})
		mustNil(t, err)
		_, err = henry.Decide(ctx, reg.Confirmation.ID, hubapi.DecideRequest{Approve: true})
		mustNil(t, err)
		rt, err := hubclient.Dial(ctx, home.Dir, hubclient.WithTokenFile(home.GenerationDir(reg.Persona.ID)+"/"+hubapi.TokenFile))
		mustNil(t, err)
		defer rt.Close()
		runtimes = append(runtimes, rt)
	}
	snap, err := henry.Snapshot(ctx)
	mustNil(t, err)
	sub := henry.Subscribe(ctx, snap.Seq)

	// Writers: runtimes beat and ask; operators decide. Only answers that
	// came back are acknowledged.
	var mu sync.Mutex
	acked := map[string]confirm.State{}
	work, stopWork := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i, rt := range runtimes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; work.Err() == nil; n++ {
				_, _ = rt.Beat(work)
				res, err := rt.RequestConfirmation(work, deployOp(fmt.Sprintf("r%d-%d", i, n)))
				if err != nil || res.Confirmation == nil {
					time.Sleep(5 * time.Millisecond)
					continue
				}
				c, err := henry.Decide(work, res.Confirmation.ID, hubapi.DecideRequest{Approve: n%2 == 0, Reason: "crash test"})
				if err == nil {
					mu.Lock()
					acked[c.ID] = c.State
					mu.Unlock()
				}
			}
		}()
	}
	time.Sleep(1500 * time.Millisecond)
	mustNil(t, child.Process.Signal(syscall.SIGKILL))
	child.Wait()
	time.Sleep(200 * time.Millisecond) // writers fail against a dead socket meanwhile
	child = startChildHub(t, home.Dir)
	time.Sleep(1000 * time.Millisecond) // writers carry on against the new hub
	stopWork()
	wg.Wait()

	mu.Lock()
	defer mu.Unlock()
	if len(acked) < 10 {
		t.Fatalf("only %d acknowledged decisions; the load did not run", len(acked))
	}
	all, err := henry.Confirmations(ctx, true)
	mustNil(t, err)
	stored := map[string]confirm.State{}
	for _, c := range all {
		stored[c.ID] = c.State
	}
	for id, st := range acked {
		if stored[id] != st {
			t.Errorf("acknowledged decision %s (%s) is %q after the restart", id, st, stored[id])
		}
	}
	audit, err := henry.Audit(ctx, 0)
	mustNil(t, err)
	inAudit := map[string]bool{}
	for _, e := range audit {
		if e.Event == string(confirm.StateApproved) || e.Event == string(confirm.StateDenied) {
			inAudit[e.ConfirmationID] = true
		}
	}
	for id := range acked {
		if !inAudit[id] {
			t.Errorf("acknowledged decision %s has no audit entry", id)
		}
	}
	// The subscriber reconnected by itself: it was told to resync onto the
	// new hub's epoch, and then sees live changes (a runtime's client,
	// not recreated either, reports again).
	h, err := henry.Health(ctx)
	mustNil(t, err)
	collect(t, sub, 10*time.Second, func(cs []hubapi.Change) bool {
		return len(cs) > 0 && cs[len(cs)-1].Kind == hubapi.KindResync && cs[len(cs)-1].Epoch == h.Epoch
	})
	act := "after the crash"
	_, err = runtimes[0].SetPresence(ctx, &act, nil)
	mustNil(t, err)
	collect(t, sub, 10*time.Second, func(cs []hubapi.Change) bool {
		return len(cs) > 0 && activity(cs[len(cs)-1]) == act
	})
	t.Logf("%d acknowledged decisions survived a SIGKILL", len(acked))
}
