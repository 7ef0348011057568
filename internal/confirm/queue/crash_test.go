package queue

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

// crashChildEnv makes the test binary act as the crashing child.
const crashChildEnv = "VIRGO_CONFIRM_CRASH_CHILD_DB"

// The decision record is committed and fsynced before the caller is told:
// a process killed with SIGKILL right after Approve returns leaves the
// decision and its audit entry on disk.
func TestCrashAfterDecisionCommitKeepsDecision(t *testing.T) {
	if db := os.Getenv(crashChildEnv); db != "" {
		crashChild(t, db)
		return
	}
	if testing.Short() {
		t.Skip("subprocess crash test")
	}
	db := filepath.Join(t.TempDir(), "virgo", "virgo.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashAfterDecisionCommitKeepsDecision$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+db)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	var id string
	for lines.Scan() {
		if rest, ok := strings.CutPrefix(lines.Text(), "COMMITTED "); ok {
			id = rest
			break
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if id == "" {
		t.Fatal("child never reported a committed decision")
	}
	s, err := boltstore.Open(db, boltstore.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("reopen after SIGKILL: %v", err)
	}
	defer s.Close()
	c, err := New(s, Options{}).Get(context.Background(), id)
	if err != nil || c.State != confirm.StateApproved || c.Decision == nil || c.Decision.Decider != henry {
		t.Fatalf("decision after crash: %+v, %v", c, err)
	}
	entries, err := Audit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range entries {
		found = found || e.ConfirmationID == id && e.Event == "approved"
	}
	if !found {
		t.Fatalf("audit entry of %s lost: %+v", id, entries)
	}
}

// crashChild queues and approves one confirmation, reports the id the
// moment Approve returns, and waits to be killed.
func crashChild(t *testing.T, db string) {
	s, err := boltstore.Open(db, boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	q := New(s, Options{})
	p := policyFor(t, "work/core/lead", confirm.Options{})
	r, err := commitRequest(context.Background(), q, confirm.PersonaPrincipal(p.Address()), p, deployOp(t, p), "crash-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := commitApprove(context.Background(), q, henry, r.Confirmation.ID, confirm.RememberNone); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(os.Stdout, "COMMITTED "+r.Confirmation.ID)
	time.Sleep(time.Minute) // killed long before
}
