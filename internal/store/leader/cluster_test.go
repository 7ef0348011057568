//go:build etcdcluster

package leader

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore/etcdcluster"
)

// fencedWriterEnv makes the test binary, run as TestFencedWriterChild, a
// job leader in a process of its own on the store it names.
const fencedWriterEnv = "VIRGO_TEST_FENCED_WRITER"

// fencedKey is what the leaders write.
const fencedKey = "jobs/fenced"

// TestFencedWriterChild campaigns on the store $VIRGO_TEST_FENCED_WRITER
// names and, once leading, writes fencedKey through its term's fenced store
// every 20 ms until killed, printing each result: "ok REV" or "refused
// ERROR". Otherwise it does nothing.
func TestFencedWriterChild(t *testing.T) {
	url := os.Getenv(fencedWriterEnv)
	if url == "" {
		return
	}
	ctx := context.Background()
	o, err := etcdstore.ParseURL(url)
	mustNil(t, err)
	s, err := etcdstore.Open(ctx, o)
	mustNil(t, err)
	term, err := For(s, Options{Name: "jobs", Holder: "child", TTL: 2 * time.Second}).Campaign(ctx)
	mustNil(t, err)
	fmt.Println("fence: leading")
	jobs := term.Store(s)
	for i := 0; ; i++ {
		rev, err := jobs.Txn(ctx, nil, []store.Op{store.Put(fencedKey, []byte("child-"+strconv.Itoa(i)))})
		if err != nil {
			fmt.Printf("fence: refused %v\n", strings.ReplaceAll(err.Error(), "\n", " "))
		} else {
			fmt.Printf("fence: ok %d\n", rev)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// "a paused (SIGSTOP) old instance cannot write after its fence
// moved on". A job leader in another process writes through its fenced
// store in a loop on a real three-member cluster; it is paused with
// SIGSTOP, its lease expires, this process is elected and writes, and the
// old leader is resumed with SIGCONT: none of its writes commits after the
// new leader's (every one is refused as no longer leader), and the key
// keeps the new leader's value.
func TestEtcdClusterPausedLeaderCannotWriteAfterItsFenceMoved(t *testing.T) {
	cl := etcdcluster.Start(t)
	url := cl.URL("virgo/fence")
	child := exec.Command(os.Args[0], "-test.run=^TestFencedWriterChild$")
	child.Env = append(os.Environ(), fencedWriterEnv+"="+url)
	child.Stderr = os.Stderr
	out, err := child.StdoutPipe()
	mustNil(t, err)
	mustNil(t, child.Start())
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })

	var mu sync.Mutex
	var lines []string
	changed := make(chan struct{}, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if l, ok := strings.CutPrefix(sc.Text(), "fence: "); ok {
				mu.Lock()
				lines = append(lines, l)
				mu.Unlock()
				select {
				case changed <- struct{}{}:
				default:
				}
			}
		}
	}()
	// waitLines waits until the child printed more than n lines.
	waitLines := func(n int, what string) {
		t.Helper()
		deadline := time.After(etcdcluster.StartTimeout)
		for {
			mu.Lock()
			got := len(lines)
			mu.Unlock()
			if got > n {
				return
			}
			select {
			case <-changed:
			case <-deadline:
				t.Fatalf("the child printed %d lines, waiting for %s", got, what)
			}
		}
	}
	waitLines(3, "its first fenced writes")

	mustNil(t, child.Process.Signal(syscall.SIGSTOP))
	paused := time.Now()
	ctx := context.Background()
	o, err := etcdstore.ParseURL(url)
	mustNil(t, err)
	s, err := etcdstore.Open(ctx, o)
	mustNil(t, err)
	defer s.Close()
	cctx, cancel := context.WithTimeout(ctx, etcdcluster.StartTimeout)
	defer cancel()
	term, err := For(s, Options{Name: "jobs", Holder: "parent", TTL: 2 * time.Second}).Campaign(cctx)
	mustNil(t, err)
	t.Logf("elected %s after the old leader was paused", time.Since(paused).Round(time.Millisecond))
	newRev, err := term.Store(s).Txn(ctx, nil, []store.Op{store.Put(fencedKey, []byte("parent"))})
	mustNil(t, err)
	mu.Lock()
	before := len(lines)
	mu.Unlock()

	mustNil(t, child.Process.Signal(syscall.SIGCONT))
	waitLines(before+5, "its writes after it was resumed")
	mu.Lock()
	defer mu.Unlock()
	refused := 0
	for _, l := range lines[1:] { // after "leading"
		if r, ok := strings.CutPrefix(l, "ok "); ok {
			if rev, err := strconv.ParseInt(r, 10, 64); err != nil || rev > newRev {
				t.Errorf("the resumed old leader committed a write at revision %s, after the new leader's at %d", r, newRev)
			}
			continue
		}
		if !strings.Contains(l, ErrNotLeader.Error()) {
			t.Errorf("a write of the old leader failed with %q, want %q", l, ErrNotLeader)
		}
		refused++
	}
	if refused == 0 {
		t.Fatalf("no write of the resumed old leader was refused: %q", lines)
	}
	kv, err := s.Get(ctx, fencedKey)
	mustNil(t, err)
	if string(kv.Value) != "parent" || kv.ModRev != newRev {
		t.Fatalf("%s is %q at revision %d, want the new leader's write at %d", fencedKey, kv.Value, kv.ModRev, newRev)
	}
	t.Logf("the resumed old leader's %d writes were refused: %s", refused, lines[len(lines)-1])
}

func mustNil(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
