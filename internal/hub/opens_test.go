package hub

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
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

// Item 3's reproduction: a persona's CAPABILITY-STAMP.json replaced by a
// link to a 1 GiB sparse file used to be read whole (the hub went from 28
// to 5,185 MiB); a FIFO hung that persona's requests. Now every request of
// that persona is refused at once (stamp_unreadable, naming the link), and
// the hub's heap does not grow by the file.
func TestStampLinkedToABigSparseFileIsRefusedQuickly(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx := context.Background()
	lead := th.addPersona(t, "work/core/lead", "Spica")
	rt := th.runtime(t, lead)
	_, err := rt.Beat(ctx)
	mustNil(t, err)

	path := filepath.Join(th.home.GenerationDir(lead.ID), stamp.FileName)
	sparse := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(sparse)
	mustNil(t, err)
	mustNil(t, f.Truncate(1<<30))
	mustNil(t, f.Close())
	mustNil(t, os.Remove(path))
	mustNil(t, os.Symlink(sparse, path))

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err = rt.Beat(ctx)
	if ae := wantCode(t, err, "stamp_unreadable"); !strings.Contains(ae.Msg, "symbolic link") {
		t.Errorf("the refusal %q does not say it is a link", ae.Msg)
	}
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	t.Logf("refused in %v; heap in use %d → %d KiB", took, before.HeapInuse>>10, after.HeapInuse>>10)
	if took > time.Second {
		t.Fatalf("the refusal took %v", took)
	}
	if after.HeapInuse > before.HeapInuse+64<<20 {
		t.Fatalf("heap in use %d → %d KiB: the hub read the file", before.HeapInuse>>10, after.HeapInuse>>10)
	}

	// A FIFO in its place is refused without blocking, as is a regular
	// file over the stamp limit.
	mustNil(t, os.Remove(path))
	mustNil(t, syscall.Mkfifo(path, 0o600))
	done := make(chan error, 1)
	go func() { _, err := rt.Beat(ctx); done <- err }()
	select {
	case err := <-done:
		wantCode(t, err, "stamp_unreadable")
	case <-time.After(time.Second):
		t.Fatal("a beat with a FIFO for a stamp blocked for over a second")
	}
	mustNil(t, os.Remove(path))
	mustNil(t, os.WriteFile(path, make([]byte, stamp.MaxBytes+1), 0o600))
	_, err = rt.Beat(ctx)
	wantCode(t, err, "stamp_too_large")
}

// Item 7's reproduction for the hub: a persona directory open to others
// (0755), or a stamp file others may read (0644), is not trusted — a hub
// starting on the home finds the generation not standing, and its
// requests are refused naming the fix — as the operators' files are.
func TestLoosePersonaDirectoryIsRefusedByTheHub(t *testing.T) {
	home := shortHome(t)
	th := startHub(t, home, Config{}, Timeouts{})
	ctx := context.Background()
	lead := th.addPersona(t, "work/core/lead", "Spica")
	tok, err := hubapi.ReadPersonaToken(filepath.Join(home.GenerationDir(lead.ID), hubapi.TokenFile))
	mustNil(t, err)
	th.stop()

	for _, c := range []struct {
		loosen, tighten func() error
		want            string
	}{
		{func() error { return os.Chmod(home.GenerationDir(lead.ID), 0o755) },
			func() error { return os.Chmod(home.GenerationDir(lead.ID), 0o700) }, "chmod 700"},
		{func() error { return os.Chmod(filepath.Join(home.GenerationDir(lead.ID), stamp.FileName), 0o644) },
			func() error { return os.Chmod(filepath.Join(home.GenerationDir(lead.ID), stamp.FileName), 0o600) }, "chmod 600"},
	} {
		mustNil(t, c.loosen())
		th := startHub(t, home, Config{}, Timeouts{})
		rt, err := hubclient.Dial(ctx, home.Dir, hubclient.WithToken(tok))
		mustNil(t, err)
		_, err = rt.Beat(ctx)
		if ae := wantCode(t, err, "stamp_unreadable"); !strings.Contains(ae.Msg, c.want) {
			t.Errorf("the refusal %q does not name the fix %q", ae.Msg, c.want)
		}
		mustNil(t, rt.Close())
		th.stop()
		mustNil(t, c.tighten())
	}
	startHub(t, home, Config{}, Timeouts{})
	rt, err := hubclient.Dial(ctx, home.Dir, hubclient.WithToken(tok))
	mustNil(t, err)
	defer rt.Close()
	if _, err := rt.Beat(ctx); err != nil {
		t.Fatalf("after chmod the generation stands again: %v", err)
	}
}
