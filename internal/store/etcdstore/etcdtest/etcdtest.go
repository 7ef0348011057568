// Package etcdtest starts a real etcd member inside a test process: one
// member of its own cluster, in a temporary directory, on free loopback
// ports, silent. Tests of the etcd store (and of a hub on it) use it where
// a real cluster cannot run.
package etcdtest

import (
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore/etcdcluster"
)

// Member is one running embedded etcd member.
type Member struct {
	etcd *embed.Etcd
	// Endpoint is its client address, host:port.
	Endpoint string
}

// Start runs a single-member cluster in dir until Stop. etcd's limits keep their defaults (128 operations,
// 1.5 MiB per request), which the store's limits are checked against.
func Start(dir string) (*Member, error) {
	ports, err := etcdcluster.FreePorts(2)
	if err != nil {
		return nil, err
	}
	client := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", ports[0])}
	peer := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", ports[1])}
	cfg := embed.NewConfig()
	cfg.Name = "virgo-test"
	cfg.Dir = dir
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("start embedded etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(30 * time.Second):
		e.Close()
		return nil, fmt.Errorf("embedded etcd in %s not ready within 30s", dir)
	}
	return &Member{etcd: e, Endpoint: client.Host}, nil
}

// Stop ends the member.
func (m *Member) Stop() { m.etcd.Close() }

// Run starts a member for the tests of a package (from TestMain), runs
// them, stops it and removes its directory.
func Run(m *testing.M, started func(*Member)) int {
	dir, err := os.MkdirTemp("", "etcdtest")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	mem, err := Start(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer mem.Stop()
	started(mem)
	return m.Run()
}
