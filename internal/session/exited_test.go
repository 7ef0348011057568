package session

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// A process that has exited but is not reaped yet reads as dead, with how
// it ended; a running one, and one that is gone, do not.
func TestExitedReadsAnUnreapedProcess(t *testing.T) {
	for _, c := range []struct {
		name           string
		argv           []string
		kill           bool
		status, signal int
	}{
		{name: "exit 3", argv: []string{"sh", "-c", "exit 3"}, status: 3},
		{name: "killed", argv: []string{"sleep", "30"}, kill: true, signal: int(syscall.SIGKILL)},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(c.argv[0], c.argv[1:]...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pid := cmd.Process.Pid
			if c.kill {
				if dead, _, _ := exited(pid); dead {
					t.Fatal("a running process reads as exited")
				}
				_ = cmd.Process.Kill()
			}
			var dead bool
			var status, signal int
			for deadline := time.Now().Add(10 * time.Second); !dead; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the exited process never read as exited")
				}
				dead, status, signal = exited(pid)
			}
			if status != c.status || signal != c.signal {
				t.Fatalf("exited(%d) = status %d signal %d, want %d and %d", pid, status, signal, c.status, c.signal)
			}
			_ = cmd.Wait()
			if dead, _, _ := exited(pid); dead {
				t.Fatal("a reaped process still reads as exited")
			}
		})
	}
}
