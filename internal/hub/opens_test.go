package hub

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/workspace"
)

// threadsAndFds reads this process's thread count and open descriptors.
func threadsAndFds(t *testing.T) (threads, fds int) {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	mustNil(t, err)
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			threads, err = strconv.Atoi(strings.TrimSpace(v))
			mustNil(t, err)
		}
	}
	ents, err := os.ReadDir("/proc/self/fd")
	mustNil(t, err)
	return threads, len(ents)
}

// Item 1's reproduction over the socket: a persona plants a named pipe in
// its workspace and sends it to its human again and again. Each call is
// refused at once (not_regular_file), and the hub keeps no thread and no
// descriptor per call; it used to block in open for ever, three
// descriptors and a thread each.
func TestFIFOSendsAreRefusedAndPinNothing(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx := context.Background()
	sec := th.addPersona(t, "root/secretary", "Porrima")
	me := th.runtime(t, sec)
	dir := workspace.HomeDir(th.home.Dir, sec.Address)
	mustNil(t, os.MkdirAll(dir, 0o700))
	mustNil(t, syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o600))
	call := func() error {
		_, err := me.CallTool(ctx, "", "send_human_file", json.RawMessage(`{"path":"pipe.md"}`), "")
		return err
	}
	refused := func() {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- call() }()
		select {
		case err := <-done:
			wantCode(t, err, "not_regular_file")
		case <-time.After(time.Second):
			t.Fatal("send_human_file of a FIFO blocked for over a second")
		}
	}
	refused()
	threads0, fds0 := threadsAndFds(t)
	const calls = 200
	start := time.Now()
	for range calls {
		refused()
	}
	threads, fds := threadsAndFds(t)
	t.Logf("%d FIFO sends in %v: threads %d → %d, descriptors %d → %d", calls, time.Since(start), threads0, threads, fds0, fds)
	if threads > threads0+4 || fds > fds0+8 {
		t.Fatalf("after %d refused sends: threads %d → %d, descriptors %d → %d; want them flat", calls, threads0, threads, fds0, fds)
	}
}
