package main

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore/etcdtest"
)

// store migrate copies the installation's bbolt file into another store,
// prints the counts and the hash it checked on both sides, and the copy
// serves the installation: persona list on it shows the persona. A second
// migrate into it is refused, until --replace.
func TestStoreMigrateBoltToBolt(t *testing.T) {
	c := newCLI(t)
	c.add("--scope", "root", "--role", "secretary", "--name", "Spica")
	home, _ := registry.CreateHome(c.home)
	dst := "bolt:" + filepath.Join(c.home, "moved.db")
	out := c.ok("store", "migrate", "--to", dst)
	wantContains(t, "migrate", out, "copied", "from      bolt:"+home.DBPath(), "to        "+dst, "on both sides, sha256 ")
	wantContains(t, "persona list on the copy", c.ok("--store", dst, "persona", "list"), "Spica")
	wantContains(t, "a migrate into a non-empty store", c.fails("store", "migrate", "--to", dst), "not empty", "replace")
	wantContains(t, "migrate --replace -o json", c.ok("store", "migrate", "--to", dst, "--replace", "-o", "json"), `"replaced": `, `"sha256": "`)
	wantContains(t, "a migrate from a missing file", c.fails("store", "migrate", "--from", "bolt:"+filepath.Join(c.home, "none.db"), "--to", dst), "does not exist")
	wantContains(t, "a migrate onto itself", c.fails("store", "migrate", "--to", dst, "--from", dst, "--replace"), "locked", "source too")
}

// store status names the backend: the home's bbolt file with its
// revision, or, while a hub holds it, that it is held.
func TestStoreStatusOfABoltStore(t *testing.T) {
	c := newCLI(t)
	c.add("--scope", "root", "--role", "secretary", "--name", "Spica")
	home, _ := registry.CreateHome(c.home)
	wantContains(t, "status", c.ok("store", "status"), "backend   bolt", home.DBPath(), "revision", "size",
		"below the high-water mark", "bucket    virgo.kv ", "bucket    virgo.log ")
	wantContains(t, "status -o json", c.ok("store", "status", "-o", "json"), `"backend": "bolt"`, `"revision": `,
		`"name": "virgo.kv"`, `"leaf_pages": `)
}

// Into etcd and back: migrate to an embedded member, status shows it (one
// member, leading, healthy), persona list reads the persona there, and
// migrate from it into a new bbolt file checks the same hash.
func TestStoreMigrateToEtcdAndStatus(t *testing.T) {
	m, err := etcdtest.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	stop := sync.OnceFunc(m.Stop)
	t.Cleanup(stop)
	c := newCLI(t)
	c.add("--scope", "root", "--role", "secretary", "--name", "Spica")
	url := "etcd://" + m.Endpoint + "/virgo/cli"
	out := c.ok("store", "migrate", "--to", url, "-o", "json")
	wantContains(t, "migrate to etcd", out, `"to": "`+url+`"`, `"keys": `)
	wantContains(t, "persona list on etcd", c.ok("--store", url, "persona", "list"), "Spica")
	st := c.ok("--store", url, "store", "status")
	wantContains(t, "status of etcd", st, "backend   etcd", "prefix    virgo/cli/", "leader    virgo-test", "member    virgo-test", "leader  http://"+m.Endpoint, "healthy")
	wantContains(t, "status -o json of etcd", c.ok("--store", url, "store", "status", "-o", "json"), `"backend": "etcd"`, `"healthy": true`)
	back := "bolt:" + filepath.Join(c.home, "back.db")
	wantContains(t, "migrate back", c.ok("store", "migrate", "--from", url, "--to", back), "to        "+back)
	stop()
	wantContains(t, "status of a stopped cluster", c.fails("--store", url, "store", "status"), "store unavailable")
}
