package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// serveChildHomeEnv makes the test binary, run as TestServeChildProcess,
// be `virgo-tui serve` on that home: a hub in another process, to kill.
const serveChildHomeEnv = "VIRGO_TEST_SERVE_HOME"

// TestServeChildProcess is `virgo-tui serve` when the test binary runs as
// a child hub (see startServe); otherwise it does nothing.
func TestServeChildProcess(t *testing.T) {
	home := os.Getenv(serveChildHomeEnv)
	if home == "" {
		return
	}
	var out, errb bytes.Buffer
	root := newRootCmd()
	root.SetArgs([]string{"--home", home, "serve"})
	if code := execute(root, &out, &errb); code != 0 {
		t.Fatalf("serve: exit %d: %s", code, errb.String())
	}
}

// startServe runs `virgo-tui serve` on home in a child process with the
// failpoint, and returns once it answers.
func startServe(t *testing.T, home, failpoint string) *exec.Cmd {
	t.Helper()
	child := exec.Command(os.Args[0], "-test.run=^TestServeChildProcess$")
	child.Env = append(os.Environ(), serveChildHomeEnv+"="+home, usecase.FailpointEnv+"="+failpoint)
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	c, err := hubclient.Dial(context.Background(), home, hubclient.WithRetryBudget(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if h, err := c.Health(context.Background()); err != nil || h.PID != child.Process.Pid {
		t.Fatalf("health %+v, %v; want the child hub %d", h, err, child.Process.Pid)
	}
	return child
}

// wantSIGKILL waits for the child hub and checks it died at its failpoint.
func wantSIGKILL(t *testing.T, child *exec.Cmd) {
	t.Helper()
	err := child.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("the hub ended with %v, want killed at its failpoint", err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the hub ended with %v, want SIGKILL", err)
	}
}

// Through a command: the hub commits the decision and is
// killed -9 before it answers; the command's client retries the decision
// (same Idempotency-Key) on a hub it starts itself and reports the
// original success — not "already decided" for its own approval.
func TestApproveReportsItsSuccessAfterTheHubDiesBeforeReplying(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills a hub subprocess")
	}
	c := newCLI(t)
	r := c.add("--scope", "work", "--project", "core", "--role", "lead", "--name", "Spica")
	child := startServe(t, c.home, usecase.UseDecide+":"+usecase.StepAfterCommit)
	out, errOut, code := c.run("confirm", "approve", r.Confirmation.ID)
	wantSIGKILL(t, child)
	if code != 0 || !strings.Contains(out, "approved "+r.Confirmation.ID) {
		t.Fatalf("approve across the kill: exit %d, %q, stderr %q; want the original approval", code, out, errOut)
	}
	es := auditOf(t, c)
	approvals := 0
	for _, e := range es {
		if e.ConfirmationID == r.Confirmation.ID && e.Event == "approved" {
			approvals++
		}
	}
	if approvals != 1 {
		t.Fatalf("%d approvals of %s in the audit log, want exactly 1", approvals, r.Confirmation.ID)
	}
}

// The same for a registration: persona add reports the generation it
// registered before the kill, and there is only that one.
func TestAddReportsItsRegistrationAfterTheHubDiesBeforeReplying(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills a hub subprocess")
	}
	c := newCLI(t)
	c.ok("persona", "list") // the home exists, with its operator token
	child := startServe(t, c.home, usecase.UseRegister+":"+usecase.StepAfterCommit)
	r := c.add("--scope", "work", "--project", "core", "--role", "lead", "--name", "Spica")
	wantSIGKILL(t, child)
	home := registry.Home{Dir: c.home}
	op, err := hubclient.Dial(context.Background(), c.home, hubclient.WithStarter(hub.InProcessOn(home, "")))
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	all, err := op.Personas(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].Persona.ID != r.Persona["id"] || all[0].Persona.Name != "Spica" {
		t.Fatalf("after the kill: %+v; want the one generation the command reported (%v)", all, r.Persona["id"])
	}
	cf, err := op.Confirmation(context.Background(), r.Confirmation.ID)
	if err != nil || cf.State != confirm.StatePending || cf.Kind != confirm.KindActivation {
		t.Fatalf("the reported activation %s: %+v, %v", r.Confirmation.ID, cf, err)
	}
}

// auditOf is the installation's audit log, read through a hub.
func auditOf(t *testing.T, c *cli) []confirm.AuditEntry {
	t.Helper()
	home := registry.Home{Dir: c.home}
	op, err := hubclient.Dial(context.Background(), c.home, hubclient.WithStarter(hub.InProcessOn(home, "")))
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	es, err := op.Audit(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return es
}
