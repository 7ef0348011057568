//go:build etcdcluster

// Command etcd is the etcd server (go.etcd.io/etcd/server/v3's etcdmain, at
// the version go.mod names) for the three-member cluster tests: no etcd is
// installed where they run. etcdcluster builds it with `go build -tags
// etcdcluster`; the tag keeps it out of `go build ./...`, `go vet ./...` and
// CI, and nothing of virgo-tui imports it.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
