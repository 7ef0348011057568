package boltstore

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// requireCleanCloseRecords skips where the record is not kept (cleanclose_other.go).
func requireCleanCloseRecords(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the clean-close record is kept on Linux only")
	}
}

// walkedAtOpen opens path and reports whether the open walked every page.
func walkedAtOpen(t *testing.T, path string) bool {
	t.Helper()
	b, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := os.Lstat(cleanClosePath(path)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the clean-close record is there while the store is open (%v)", err)
	}
	st, err := b.Stats()
	if err != nil {
		t.Fatal(err)
	}
	return st.WalkedAtOpen
}

// cleanRecord is the record a clean close left at path, failing without one.
func cleanRecord(t *testing.T, path string) cleanState {
	t.Helper()
	s := readCleanClose(path)
	if s == nil {
		t.Fatalf("no clean-close record beside %s after a clean close", path)
	}
	return *s
}

// "Check the whole file only when it may have changed since this store last
// closed it cleanly": a clean close then a reopen skips the walk; without
// the record the open walks.
func TestCleanCloseSkipsTheWalk(t *testing.T) {
	requireCleanCloseRecords(t)
	path := populated(t, 200)
	fi, err := os.Lstat(cleanClosePath(path))
	if err != nil {
		t.Fatalf("no record after a clean close: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("the record is mode %04o, want 0600", fi.Mode().Perm())
	}
	if walkedAtOpen(t, path) {
		t.Error("the open after a clean close walked every page")
	}
	if walkedAtOpen(t, path) {
		t.Error("the second open after a clean close walked every page")
	}
	os.Remove(cleanClosePath(path))
	if !walkedAtOpen(t, path) {
		t.Error("an open without the record did not walk")
	}
}

// "A flipped bit written after a clean close is caught at the next open",
// even with the file's modification time put back: its change time moved.
func TestCleanCloseWriteAfterwardsIsCaught(t *testing.T) {
	requireCleanCloseRecords(t)
	path := varied(t)
	rec := cleanRecord(t, path)
	data, leaf, pageSize := aLeafPage(t, path)
	ps := int64(pageSize)
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The page's own id, one bit flipped, in place: same inode, same size.
	if _, err := f.WriteAt([]byte{data[int64(leaf)*ps] ^ 1}, int64(leaf)*ps); err != nil {
		t.Fatal(err)
	}
	f.Close()
	mtime := time.Unix(0, rec.MtimeNs)
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	_, err = Open(path, Options{})
	if !errors.Is(err, store.ErrCorrupt) || !strings.Contains(err.Error(), "carries the id") {
		t.Fatalf("open after a write since the clean close: %v, want store.ErrCorrupt naming the page", err)
	}
}

// "A sidecar that doesn't match (edited, truncated, other inode after a
// copy/restore) walks."
func TestCleanCloseMismatchWalks(t *testing.T) {
	requireCleanCloseRecords(t)
	edit := func(f func(*cleanState)) func(t *testing.T, path string) {
		return func(t *testing.T, path string) {
			s := cleanRecord(t, path)
			f(&s)
			writeRecord(t, path, s)
		}
	}
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, path string)
	}{
		{"device edited", edit(func(s *cleanState) { s.Dev++ })},
		{"inode edited", edit(func(s *cleanState) { s.Ino++ })},
		{"size edited", edit(func(s *cleanState) { s.Size += 4096 })},
		{"mtime edited", edit(func(s *cleanState) { s.MtimeNs-- })},
		{"ctime edited", edit(func(s *cleanState) { s.CtimeNs-- })},
		{"txid edited", edit(func(s *cleanState) { s.TxID-- })},
		{"meta checksum edited", edit(func(s *cleanState) { s.MetaSum ^= 1 })},
		{"file grown", func(t *testing.T, path string) {
			fi, _ := os.Stat(path)
			if err := os.Truncate(path, fi.Size()+4096); err != nil {
				t.Fatal(err)
			}
		}},
		{"file restored from a copy (another inode)", func(t *testing.T, path string) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			tmp := path + ".restore"
			if err := os.WriteFile(tmp, data, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := populated(t, 50)
			tc.change(t, path)
			if !walkedAtOpen(t, path) {
				t.Error("the open trusted a record that does not match the file")
			}
		})
	}
}

// writeRecord replaces the clean-close record of path with s.
func writeRecord(t *testing.T, path string, s cleanState) {
	t.Helper()
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(cleanClosePath(path))
	if err := os.WriteFile(cleanClosePath(path), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// "A malformed sidecar is ignored (walk), never trusted" — and is gone
// once the file is opened for writing.
func TestCleanCloseMalformedRecordWalks(t *testing.T) {
	requireCleanCloseRecords(t)
	for _, tc := range []struct {
		name  string
		write func(t *testing.T, side string, good []byte)
	}{
		{"empty", func(t *testing.T, side string, _ []byte) { mustWrite(t, side, nil, 0o600) }},
		{"cut short", func(t *testing.T, side string, good []byte) { mustWrite(t, side, good[:len(good)/2], 0o600) }},
		{"garbage", func(t *testing.T, side string, _ []byte) { mustWrite(t, side, []byte("\x00\xffnot json"), 0o600) }},
		{"a second record after it", func(t *testing.T, side string, good []byte) {
			mustWrite(t, side, append(bytes.Clone(good), good...), 0o600)
		}},
		{"an unknown field", func(t *testing.T, side string, good []byte) {
			mustWrite(t, side, append([]byte(`{"extra":1,`), good[1:]...), 0o600)
		}},
		{"a field twice", func(t *testing.T, side string, good []byte) {
			mustWrite(t, side, append([]byte(`{"txid":1,`), good[1:]...), 0o600)
		}},
		{"a field in other case", func(t *testing.T, side string, good []byte) {
			mustWrite(t, side, bytes.Replace(good, []byte(`"txid"`), []byte(`"TxID"`), 1), 0o600)
		}},
		{"another format", func(t *testing.T, side string, good []byte) {
			mustWrite(t, side, bytes.Replace(good, []byte(`"format":1`), []byte(`"format":2`), 1), 0o600)
		}},
		{"open to others", func(t *testing.T, side string, good []byte) { mustWrite(t, side, good, 0o644) }},
		{"a link to a matching record", func(t *testing.T, side string, good []byte) {
			target := filepath.Join(t.TempDir(), "record")
			mustWrite(t, target, good, 0o600)
			if err := os.Symlink(target, side); err != nil {
				t.Fatal(err)
			}
		}},
		{"a directory", func(t *testing.T, side string, _ []byte) {
			if err := os.Mkdir(side, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := populated(t, 50)
			side := cleanClosePath(path)
			good, err := os.ReadFile(side)
			if err != nil {
				t.Fatal(err)
			}
			good = bytes.TrimSpace(good)
			os.Remove(side)
			tc.write(t, side, good)
			if !walkedAtOpen(t, path) {
				t.Error("the open trusted a malformed record")
			}
		})
	}
}

func mustWrite(t *testing.T, path string, data []byte, perm os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, data, perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
}

const cleanCloseHolderEnv = "VIRGO_STORE_TEST_KILLED"

// TestCleanCloseKilledProcess is not a test: TestCleanCloseAfterKill runs
// the test binary again with it, to write to a database and be killed.
func TestCleanCloseKilledProcess(t *testing.T) {
	path := os.Getenv(cleanCloseHolderEnv)
	if path == "" {
		t.Skip("helper process for TestCleanCloseAfterKill")
	}
	b, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Txn(context.Background(), nil, []store.Op{store.Put("killed/written", []byte("yes"))}); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("written\n")
	bufio.NewReader(os.Stdin).ReadString('\n')
}

// "A kill -9 in a subprocess leaves no sidecar and the next open walks."
func TestCleanCloseAfterKill(t *testing.T) {
	requireCleanCloseRecords(t)
	path := populated(t, 50)
	cleanRecord(t, path)
	cmd := exec.Command(os.Args[0], "-test.run=^TestCleanCloseKilledProcess$")
	cmd.Env = append(os.Environ(), cleanCloseHolderEnv+"="+path)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if line != "written\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the helper process did not write: %q %v", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if _, err := os.Lstat(cleanClosePath(path)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a record survives the kill -9 of the writer (%v)", err)
	}
	if !walkedAtOpen(t, path) {
		t.Error("the open after a kill -9 did not walk")
	}
	b, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if kv, err := b.Get(context.Background(), "killed/written"); err != nil || string(kv.Value) != "yes" {
		t.Errorf("the killed writer's committed write: %v %q", err, kv.Value)
	}
}

// "store check still runs the full check always": a record forged to match
// a damaged file (what only someone who can write the home can do) makes an
// open skip the walk, never CheckFile.
func TestCheckFileWalksDespiteTheRecord(t *testing.T) {
	requireCleanCloseRecords(t)
	path := varied(t)
	data, leaf, pageSize := aLeafPage(t, path)
	at := int64(leaf)*int64(pageSize) + pageHeaderSize
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{data[at] | bucketLeafFlag}, at); err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	m, err := readLiveMeta(path, f, fi.Size())
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	forged, _ := stateOf(fi, m)
	writeRecord(t, path, forged)

	problems, err := CheckFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) == 0 || !errors.Is(problems[0], store.ErrCorrupt) || !strings.Contains(problems[0].Error(), "never nests") {
		t.Fatalf("store check with a matching record: %v, want the page walk's refusal", problems)
	}
	if walkedAtOpen(t, path) {
		t.Error("the open did not trust a record that matches the file")
	}
}

// aLeafPage reads the database file at path and finds a leaf page in use:
// the file's bytes, the page's id and the page size.
func aLeafPage(t *testing.T, path string) (data []byte, leaf, pageSize int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := walkBytes(t, data)
	if err != nil {
		t.Fatal(err)
	}
	for id, k := range w.kind {
		if k == pageLeaf {
			return data, id, int(w.pageSize)
		}
	}
	t.Fatal("no leaf page in use")
	return nil, 0, 0
}
