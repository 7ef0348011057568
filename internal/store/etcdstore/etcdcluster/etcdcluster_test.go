//go:build etcdcluster

package etcdcluster

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// The helper itself: three members elect a leader; the leader killed -9,
// the other two elect another; the killed one restarted rejoins with the
// writes it missed; a paused member answers nothing until continued.
func TestEtcdClusterSurvivesItsLeaderAndRejoins(t *testing.T) {
	c := Start(t)
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints(), DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	put := func(k string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), ElectionTimeout)
		defer cancel()
		if _, err := cli.Put(ctx, k, "v"); err != nil {
			t.Fatalf("put %s: %v", k, err)
		}
	}
	put("before")
	old, err := c.Leader()
	if err != nil {
		t.Fatal(err)
	}
	c.Kill(old)
	next, err := c.WaitLeader(ElectionTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if next == old {
		t.Fatalf("%s still leads after it was killed", old.Name)
	}
	put("while-down")
	c.Restart(old)
	deadline := time.Now().Add(ElectionTimeout)
	for {
		one, err := clientv3.New(clientv3.Config{Endpoints: []string{old.Endpoint}, DialTimeout: time.Second, Logger: zap.NewNop()})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		r, err := one.Get(ctx, "while-down", clientv3.WithSerializable())
		cancel()
		one.Close()
		if err == nil && len(r.Kvs) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the restarted %s does not have the write it missed: %v, %v", old.Name, r, err)
		}
		time.Sleep(100 * time.Millisecond)
	}

	paused := c.Members[0]
	c.Stop(paused)
	if _, _, err := paused.status(); err == nil {
		t.Fatalf("%s answers while paused", paused.Name)
	}
	c.Cont(paused)
	if _, err := c.WaitLeader(ElectionTimeout); err != nil {
		t.Fatal(err)
	}
	if _, _, err := paused.status(); err != nil {
		t.Fatalf("%s does not answer after SIGCONT: %v", paused.Name, err)
	}
}
