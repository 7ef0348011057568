// Package etcdcluster runs a real three-member etcd cluster for a test:
// three etcd server processes (built from go.etcd.io/etcd/server/v3's
// etcdmain by the command in ./etcd, at the version go.mod names), each with
// its own data directory and free loopback ports, so that a test can kill -9
// the leader, pause a member (SIGSTOP), take two away and bring them back —
// what an embedded single member (etcdtest) cannot show. Only test
// support imports it (etcdtest, for FreePorts); the tests that start a
// cluster sit behind the etcdcluster build tag (`make test-etcd`).
package etcdcluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// size is the number of members: the smallest cluster that survives the
// loss of one.
const size = 3

// Times a test waits for the cluster. Generous: the tests run on a shared,
// loaded machine, where a member's start and an election take seconds.
const (
	// StartTimeout bounds the first leader of a new cluster.
	StartTimeout = 60 * time.Second
	// ElectionTimeout bounds a new leader after a member died or returned.
	ElectionTimeout = 30 * time.Second
)

// The members' raft timing: etcd's defaults are a 100 ms heartbeat and a
// 1 s election timeout, tuned for an idle machine; a loaded two-core test
// machine misses heartbeats at that pace and elects spuriously. Twice both
// still replaces a lost leader within the store's 5 s call timeout.
const (
	heartbeatMS = "200"
	electionMS  = "2000"
)

// ErrNoLeader: no member of the cluster leads within the time waited.
var ErrNoLeader = errors.New("etcd cluster: no member leads")

// Member is one etcd server process of the cluster.
type Member struct {
	// Name is the member's name in the cluster (m0, m1, m2).
	Name string
	// Endpoint is its client address, host:port.
	Endpoint string
	peerURL  string
	dir      string
	args     []string
	log      *os.File
	cmd      *exec.Cmd
	exited   chan struct{} // closed when cmd has been waited for
}

// Cluster is a running three-member cluster; it ends with its test.
type Cluster struct {
	t       testing.TB
	Members []*Member
	mu      sync.Mutex // orders starts and kills against the test's cleanup
}

// Start builds the etcd binary (once per test process; Go's build cache
// makes it a link after the first), starts the three members and waits
// for a leader. Every member is killed when the test ends, also when it
// fails or panics; a failed test shows the tail of each member's log.
func Start(t testing.TB) *Cluster {
	t.Helper()
	bin, err := binary()
	if err != nil {
		t.Fatal(err)
	}
	ports, err := FreePorts(2 * size)
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{t: t}
	var initial []string
	for i := range size {
		m := &Member{Name: fmt.Sprintf("m%d", i), Endpoint: fmt.Sprintf("127.0.0.1:%d", ports[2*i]),
			peerURL: fmt.Sprintf("http://127.0.0.1:%d", ports[2*i+1]), dir: t.TempDir()}
		initial = append(initial, m.Name+"="+m.peerURL)
		c.Members = append(c.Members, m)
	}
	for _, m := range c.Members {
		client := "http://" + m.Endpoint
		m.args = []string{bin,
			"--name", m.Name,
			"--data-dir", filepath.Join(m.dir, "data"),
			"--listen-client-urls", client, "--advertise-client-urls", client,
			"--listen-peer-urls", m.peerURL, "--initial-advertise-peer-urls", m.peerURL,
			"--initial-cluster", strings.Join(initial, ","),
			"--initial-cluster-state", "new",
			"--initial-cluster-token", "virgo-etcdcluster",
			"--heartbeat-interval", heartbeatMS, "--election-timeout", electionMS,
			"--logger", "zap", "--log-level", "warn",
		}
		if m.log, err = os.Create(filepath.Join(m.dir, "etcd.log")); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(c.cleanup)
	for _, m := range c.Members {
		if err := c.start(m); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.WaitLeader(StartTimeout); err != nil {
		t.Fatal(err)
	}
	return c
}

// Endpoints are the members' client addresses, host:port.
func (c *Cluster) Endpoints() []string {
	var eps []string
	for _, m := range c.Members {
		eps = append(eps, m.Endpoint)
	}
	return eps
}

// URL names the cluster and an installation's prefix as --store and
// $VIRGO_STORE take it: etcd://host:port,host:port,host:port/prefix.
func (c *Cluster) URL(prefix string) string {
	return "etcd://" + strings.Join(c.Endpoints(), ",") + "/" + prefix
}

// Leader is the member that leads now, asking each running member; it is
// ErrNoLeader unless the members that answer name one leader, and it runs.
func (c *Cluster) Leader() (*Member, error) {
	ids := map[uint64]*Member{}
	named := map[uint64]bool{}
	var errs []error
	for _, m := range c.Members {
		if !m.running() {
			continue
		}
		id, lead, err := m.status()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ids[id] = m
		if lead != 0 {
			named[lead] = true
		}
	}
	if len(named) == 1 {
		for lead := range named {
			if m := ids[lead]; m != nil {
				return m, nil
			}
		}
	}
	if len(named) > 1 {
		errs = append(errs, fmt.Errorf("the members name %d different leaders", len(named)))
	}
	return nil, fmt.Errorf("%w: %w", ErrNoLeader, errors.Join(errs...))
}

// WaitLeader waits until Leader names one, or timeout passes (ErrNoLeader).
func (c *Cluster) WaitLeader(timeout time.Duration) (*Member, error) {
	deadline := time.Now().Add(timeout)
	for {
		m, err := c.Leader()
		if err == nil {
			return m, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("after %s: %w", timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Kill ends the member with SIGKILL (kill -9) and waits until it is gone.
func (c *Cluster) Kill(m *Member) {
	c.t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if !m.running() {
		c.t.Fatalf("kill %s: it is not running", m.Name)
	}
	m.signal(syscall.SIGKILL)
	<-m.exited
}

// Stop pauses the member with SIGSTOP: it holds its ports and answers
// nothing, as a host that froze.
func (c *Cluster) Stop(m *Member) {
	c.t.Helper()
	if err := m.signal(syscall.SIGSTOP); err != nil {
		c.t.Fatalf("stop %s: %v", m.Name, err)
	}
}

// Cont resumes a member paused by Stop.
func (c *Cluster) Cont(m *Member) {
	c.t.Helper()
	if err := m.signal(syscall.SIGCONT); err != nil {
		c.t.Fatalf("cont %s: %v", m.Name, err)
	}
}

// Restart starts a killed member again on its data directory: it rejoins
// the cluster with what it had written.
func (c *Cluster) Restart(m *Member) {
	c.t.Helper()
	if m.running() {
		c.t.Fatalf("restart %s: it is still running", m.Name)
	}
	if err := c.start(m); err != nil {
		c.t.Fatal(err)
	}
}

func (c *Cluster) start(m *Member) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprintf(m.log, "--- start %s\n", time.Now().Format(time.RFC3339Nano))
	cmd := exec.Command(m.args[0], m.args[1:]...)
	cmd.Stdout, cmd.Stderr = m.log, m.log
	cmd.SysProcAttr = dieWithParent()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start etcd member %s: %w", m.Name, err)
	}
	m.cmd, m.exited = cmd, make(chan struct{})
	go func(exited chan struct{}) { cmd.Wait(); close(exited) }(m.exited)
	return nil
}

// cleanup kills every member still running (a paused one too: SIGKILL
// needs no SIGCONT) and, when the test failed, shows the members' logs.
func (c *Cluster) cleanup() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.Members {
		if m.running() {
			m.signal(syscall.SIGKILL)
			<-m.exited
		}
		m.log.Close()
		if c.t.Failed() {
			c.t.Logf("etcd member %s (%s), its log:\n%s", m.Name, m.Endpoint, tail(filepath.Join(m.dir, "etcd.log"), 6000))
		}
	}
}

func (m *Member) running() bool {
	if m.cmd == nil {
		return false
	}
	select {
	case <-m.exited:
		return false
	default:
		return true
	}
}

func (m *Member) signal(sig syscall.Signal) error {
	if !m.running() {
		return fmt.Errorf("etcd member %s is not running", m.Name)
	}
	return m.cmd.Process.Signal(sig)
}

// status asks the member itself for its id and the leader it knows (0:
// none), within a second.
func (m *Member) status() (id, leader uint64, err error) {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{m.Endpoint}, DialTimeout: time.Second, Logger: zap.NewNop()})
	if err != nil {
		return 0, 0, fmt.Errorf("member %s: %w", m.Name, err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	r, err := cli.Status(ctx, m.Endpoint)
	if err != nil {
		return 0, 0, fmt.Errorf("member %s: %w", m.Name, err)
	}
	return r.Header.MemberId, r.Leader, nil
}

var build struct {
	once sync.Once
	path string
	err  error
}

// binary builds the etcd command of ./etcd once per test process into the
// user's cache directory (rebuilt each process, so never stale; renamed
// into place, so test processes building at once do not clash).
func binary() (string, error) {
	build.once.Do(func() {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		dir := filepath.Join(cache, "virgo-tui", "etcdcluster")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			build.err = err
			return
		}
		tmp, err := os.MkdirTemp(dir, "build")
		if err != nil {
			build.err = err
			return
		}
		defer os.RemoveAll(tmp)
		out, err := exec.Command("go", "build", "-tags", "etcdcluster", "-o", filepath.Join(tmp, "etcd"),
			"github.com/virgo-hub/virgo-tui/internal/store/etcdstore/etcdcluster/etcd").CombinedOutput()
		if err != nil {
			build.err = fmt.Errorf("build the etcd server for the cluster tests: %w\n%s", err, out)
			return
		}
		build.path = filepath.Join(dir, "etcd")
		build.err = os.Rename(filepath.Join(tmp, "etcd"), build.path)
	})
	return build.path, build.err
}

// FreePorts asks the kernel for n free loopback ports, for etcd members
// of a test (these, and etcdtest's embedded one). Another process could
// take one before etcd binds it; the member then fails to start, naming
// the port.
func FreePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// tail is the last n bytes of the file at path.
func tail(path string, n int64) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if int64(len(b)) > n {
		b = b[int64(len(b))-n:]
	}
	return string(b)
}
