package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
)

// within runs op and fails the test when it does not return within a
// second: the reproductions below used to block the caller for ever.
func within(t *testing.T, what string, op func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- op() }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Second):
		t.Fatalf("%s blocked for over a second", what)
		return nil
	}
}

// A named pipe planted in the workspace is refused at once by every
// operation that reads bytes: opening it for reading used to block until a
// writer came, holding a thread and its descriptors per call.
func TestFIFOIsRefusedWithoutBlocking(t *testing.T) {
	r := tree(t, map[string]string{"QUEUE.md": "q"})
	must(t, syscall.Mkfifo(filepath.Join(r.Dir(), "pipe"), 0o600))
	for name, op := range map[string]func() error{
		"read": func() error { _, err := r.Read("pipe", 0, 0); return err },
		"hash": func() error { _, err := r.Hash("pipe"); return err },
	} {
		if err := within(t, name+" of a FIFO", op); !errors.Is(err, ErrNotFile) {
			t.Errorf("%s of a FIFO: %v; want ErrNotFile", name, err)
		}
	}
}

// Devices are refused by what was opened: /dev/zero would never end and
// /dev/null reads as an empty file.
func TestDevicesAreRefused(t *testing.T) {
	r, err := Open("/dev", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, dev := range []string{"zero", "null", "urandom"} {
		err := within(t, "read of /dev/"+dev, func() error { _, err := r.Read(dev, 0, 0); return err })
		if !errors.Is(err, ErrNotFile) {
			t.Errorf("read /dev/%s: %v; want ErrNotFile", dev, err)
		}
		err = within(t, "hash of /dev/"+dev, func() error { _, err := r.Hash(dev); return err })
		if !errors.Is(err, ErrNotFile) {
			t.Errorf("hash /dev/%s: %v; want ErrNotFile", dev, err)
		}
	}
}

// A hard link to a secret (or to a file of another tree) is one inode with
// two names; the innocent name would pass the secret table. Refused.
func TestHardLinkIsRefused(t *testing.T) {
	r := tree(t, map[string]string{".env": "TOKEN=hunter2\n", "memory/plain.md": "plain"})
	must(t, os.Link(filepath.Join(r.Dir(), ".env"), filepath.Join(r.Dir(), "memory", "notes.md")))
	outside := filepath.Join(filepath.Dir(r.Dir()), "outside-secret")
	must(t, os.WriteFile(outside, []byte("key"), 0o600))
	must(t, os.Link(outside, filepath.Join(r.Dir(), "memory", "out.md")))
	for _, p := range []string{"memory/notes.md", "memory/out.md"} {
		if pg, err := r.Read(p, 0, 0); !errors.Is(err, ErrHardLink) {
			t.Errorf("read %s: %q, %v; want ErrHardLink", p, pg.Data, err)
		}
		if d, err := r.Hash(p); !errors.Is(err, ErrHardLink) {
			t.Errorf("hash %s: %+v, %v; want ErrHardLink", p, d, err)
		}
	}
	if _, err := r.Read("memory/plain.md", 0, 0); err != nil {
		t.Fatalf("a file with one name: %v", err)
	}
}

// A file read and hashed is judged by the secret table on the file opened,
// whatever asked: a secret is refused by Read and Hash themselves, not
// only by the hub's decision before them.
func TestSecretIsRefusedOnWhatWasOpened(t *testing.T) {
	r := tree(t, map[string]string{"memory/.env": "TOKEN=hunter2\n"})
	if _, err := r.Read("memory/.env", 0, 0); !errors.Is(err, confirm.ErrSecretMaterial) {
		t.Fatalf("read memory/.env: %v; want ErrSecretMaterial", err)
	}
	if _, err := r.Hash("memory/.env"); !errors.Is(err, confirm.ErrSecretMaterial) {
		t.Fatalf("hash memory/.env: %v; want ErrSecretMaterial", err)
	}
}

// The check-then-open race: between the resolve (on which the hub decides)
// and the open, the file is swapped for a link to .env, over and over. Not
// one read may return the secret; the campaign saw 41 of 600 do.
func TestSwapForLinkBetweenCheckAndOpenLeaksNothing(t *testing.T) {
	const secret = "TOKEN=hunter2\n"
	r := tree(t, map[string]string{".env": secret, "memory/notes.md": "plain notes\n"})
	notes := filepath.Join(r.Dir(), "memory", "notes.md")
	plain, link := notes+".plain", notes+".link"
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; !stop.Load(); i++ {
			// Each swap is a rename, as an attacker would do it: the
			// name is always either the plain file or the link.
			if i%2 == 0 {
				_ = os.WriteFile(plain, []byte("plain notes\n"), 0o600)
				_ = os.Rename(plain, notes)
			} else {
				_ = os.Symlink("../.env", link)
				_ = os.Rename(link, notes)
			}
		}
	})
	const reads = 5000
	var served, refused, leaked int
	for range reads {
		rel, err := r.Resolve("memory/notes.md")
		if err != nil || confirm.Egress(rel).Verdict == confirm.Deny {
			refused++ // the hub refuses this call before any open
			continue
		}
		pg, err := r.Read(rel, 0, 0)
		switch {
		case err == nil && string(pg.Data) == secret:
			leaked++
		case err == nil:
			served++
		case errors.Is(err, ErrLink), errors.Is(err, ErrNotFound), errors.Is(err, confirm.ErrSecretMaterial),
			errors.Is(err, confirm.ErrSymlinkEscape): // the open's own resolve met the link mid-swap
			refused++
		default:
			t.Errorf("read %s: %v", rel, err)
		}
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d reads: %d served the plain file, %d refused, %d leaked the secret", reads, served, refused, leaked)
	if leaked != 0 {
		t.Fatalf("%d of %d reads returned .env", leaked, reads)
	}
	if served == 0 {
		t.Fatalf("no read was served: the race did not run as intended")
	}
}

// An in-tree link is resolved before the decision; what is opened is the
// target, by its own name, with no link followed.
func TestInTreeLinkReadsItsTarget(t *testing.T) {
	r := tree(t, map[string]string{"docs/a.md": "a"})
	must(t, os.Symlink("docs/a.md", filepath.Join(r.Dir(), "alias.md")))
	rel, err := r.Resolve("alias.md")
	if err != nil || rel != "docs/a.md" {
		t.Fatalf("resolve alias.md: %q, %v", rel, err)
	}
	if pg, err := r.Read("alias.md", 0, 0); err != nil || string(pg.Data) != "a" || pg.Path != "docs/a.md" {
		t.Fatalf("read alias.md: %+v, %v; want docs/a.md's bytes", pg, err)
	}
	// Opening the link's own name (as a resolved path never is) is refused.
	if _, err := r.openBytes("read", "alias.md", -1, true); !errors.Is(err, ErrLink) {
		t.Fatalf("open of the link itself: %v; want ErrLink", err)
	}
	must(t, os.Symlink("docs", filepath.Join(r.Dir(), "d")))
	if _, err := r.openBytes("read", "d/a.md", -1, true); !errors.Is(err, ErrLink) {
		t.Fatalf("open through a linked directory: %v; want ErrLink", err)
	}
}

// A file over MaxHashed is refused by its size before a byte is read: a
// sparse 1 GiB file costs nothing to make and seconds of a core to hash.
func TestHashRefusesOversizeBeforeReading(t *testing.T) {
	r := tree(t, map[string]string{"QUEUE.md": "q"})
	f, err := os.Create(filepath.Join(r.Dir(), "sparse.bin"))
	must(t, err)
	must(t, f.Truncate(1<<30))
	must(t, f.Close())
	start := time.Now()
	if _, err := r.Hash("sparse.bin"); !errors.Is(err, ErrFileTooLarge) {
		t.Fatalf("hash of a 1 GiB file: %v; want ErrFileTooLarge", err)
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Fatalf("the refusal took %v: it read the file", d)
	}
}

// BenchmarkSafeOpen is the cost of reading a small workspace file through
// the one safe open (resolve, openat per component, fstat, the secret
// table) against os.ReadFile of the same file in the same run.
func BenchmarkSafeOpen(b *testing.B) {
	dir := b.TempDir()
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "memory", "notes"), 0o700))
	full := filepath.Join(dir, "memory", "notes", "today.md")
	must(os.WriteFile(full, make([]byte, 4096), 0o600))
	r, err := Open(dir, nil)
	must(err)
	defer r.Close()
	b.Run("workspace.Read", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := r.Read("memory/notes/today.md", 0, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("os.ReadFile", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := os.ReadFile(full); err != nil {
				b.Fatal(err)
			}
		}
	})
}
