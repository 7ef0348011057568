package boltstore

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

func TestPermissions(t *testing.T) {
	b, path := openT(t, Options{})
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s mode %v, %v; want %04o", p, fi.Mode().Perm(), err, want)
		}
	}
	b.Close()
	// Looser modes on an existing database are tightened, not refused.
	os.Chmod(path, 0o644)
	os.Chmod(filepath.Dir(path), 0o755)
	b2, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b2.Close()
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		if fi, _ := os.Stat(p); fi.Mode().Perm() != want {
			t.Errorf("%s left at %v, want %04o", p, fi.Mode().Perm(), want)
		}
	}
}

// "A lock test: a second process (or a second open) gets ErrLocked within
// two seconds." This is the second open, in the same process.
func TestLockSecondOpen(t *testing.T) {
	_, path := openT(t, Options{})
	start := time.Now()
	_, err := Open(path, Options{})
	if !errors.Is(err, store.ErrLocked) {
		t.Fatalf("second open: %v, want ErrLocked", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("ErrLocked after %v, want within 2s", d)
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "another virgo-tui") {
		t.Errorf("message %q should name the file and the other virgo-tui", err)
	}
}

const lockHolderEnv = "VIRGO_STORE_TEST_HOLD"

// TestLockHolderProcess is not a test: TestLockSecondProcess runs the test
// binary again with it, to hold a database open in another process until
// its stdin closes.
func TestLockHolderProcess(t *testing.T) {
	path := os.Getenv(lockHolderEnv)
	if path == "" {
		t.Skip("helper process for TestLockSecondProcess")
	}
	b, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	os.Stdout.WriteString("holding\n")
	bufio.NewReader(os.Stdin).ReadString('\n')
}

// The second process of "a second process (or a second open) gets ErrLocked
// within two seconds".
func TestLockSecondProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "virgo.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHolderProcess$")
	cmd.Env = append(os.Environ(), lockHolderEnv+"="+path)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if line != "holding\n" {
		stdin.Close()
		cmd.Wait()
		t.Fatalf("helper process did not hold the database: %q %v", line, err)
	}
	start := time.Now()
	_, err = Open(path, Options{})
	if !errors.Is(err, store.ErrLocked) {
		t.Errorf("open while another process holds it: %v, want ErrLocked", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("ErrLocked after %v, want within 2s", d)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper process: %v", err)
	}
	b, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("open after the other process let go: %v", err)
	}
	b.Close()
}

// populated writes a closed virgo database with n keys of 500 bytes.
func populated(t testing.TB, n int) string {
	t.Helper()
	b, path := openT(t, Options{})
	value := bytes.Repeat([]byte("v"), 500)
	ops := make([]store.Op, 0, n)
	for i := 0; i < n; i++ {
		ops = append(ops, store.Put(keyN(i), value))
	}
	if _, err := store.WriteAll(context.Background(), b, ops); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func keyN(i int) string {
	const digits = "0123456789"
	k := []byte("persona/00000")
	for p := len(k) - 1; i > 0; p-- {
		k[p] = digits[i%10]
		i /= 10
	}
	return string(k)
}

func TestBadFiles(t *testing.T) {
	random := make([]byte, 64<<10)
	rand.Read(random)
	for _, tc := range []struct {
		name  string
		make  func(t *testing.T, path string)
		want  error
		words string
	}{
		{"truncated database", func(t *testing.T, path string) {
			src, _ := os.ReadFile(populated(t, 200))
			os.WriteFile(path, src[:len(src)/2], 0o600)
		}, store.ErrCorrupt, "truncated"},
		{"random bytes", func(t *testing.T, path string) {
			os.WriteFile(path, random, 0o600)
		}, store.ErrCorrupt, "not a bbolt database"},
		{"zero-byte file", func(t *testing.T, path string) {
			os.WriteFile(path, nil, 0o600)
		}, store.ErrCorrupt, "empty"},
		{"text file", func(t *testing.T, path string) {
			os.WriteFile(path, []byte("name = spica\nrole = secretary\n"), 0o644)
		}, store.ErrCorrupt, "not a bbolt database"},
		{"damaged meta pages", func(t *testing.T, path string) {
			src, _ := os.ReadFile(populated(t, 10))
			src[pageHeaderSize+metaSumOffset] ^= 0xff
			src[4096+pageHeaderSize+metaSumOffset] ^= 0xff
			os.WriteFile(path, src, 0o600)
		}, store.ErrCorrupt, "checksum"},
		{"damaged page", func(t *testing.T, path string) {
			src, _ := os.ReadFile(populated(t, 10))
			meta := src[pageHeaderSize:] // the live meta has the higher txid
			if m1 := src[4096+pageHeaderSize:]; binary.LittleEndian.Uint64(m1[48:]) > binary.LittleEndian.Uint64(meta[48:]) {
				meta = m1
			}
			root := binary.LittleEndian.Uint64(meta[16:])
			binary.LittleEndian.PutUint16(src[root*4096+10:], 0xFFFF) // element count
			os.WriteFile(path, src, 0o600)
		}, store.ErrCorrupt, "elements do not fit"},
		{"newer schema version", func(t *testing.T, path string) {
			src, _ := os.ReadFile(populated(t, 10))
			os.WriteFile(path, src, 0o600)
			rawUpdate(t, path, func(tx *bolt.Tx) error {
				return putSchema(tx.Bucket(bucketMeta), SchemaVersion+1)
			})
		}, store.ErrNewerSchema, fmt.Sprintf("schema version %d", SchemaVersion+1)},
		{"foreign bbolt file", func(t *testing.T, path string) {
			rawUpdate(t, path, func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket([]byte("widgets"))
				if err == nil {
					err = b.Put([]byte("w"), []byte("x"))
				}
				return err
			})
		}, store.ErrCorrupt, "another application"},
		{"virgo bucket without its schema", func(t *testing.T, path string) {
			rawUpdate(t, path, func(tx *bolt.Tx) error {
				_, err := tx.CreateBucket(bucketMeta)
				return err
			})
		}, store.ErrCorrupt, "schema"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "virgo.db")
			tc.make(t, path)
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			fiBefore, _ := os.Stat(path)
			b, err := Open(path, Options{})
			if err == nil {
				b.Close()
				t.Fatal("opened a bad file")
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.words) || !strings.Contains(err.Error(), path) {
				t.Fatalf("error %q: want %v naming the file and saying %q", err, tc.want, tc.words)
			}
			after, _ := os.ReadFile(path)
			fiAfter, _ := os.Stat(path)
			if !bytes.Equal(before, after) || fiBefore.Mode() != fiAfter.Mode() {
				t.Fatal("a refused file was changed")
			}
			t.Log(err)
		})
	}
}

// rawUpdate writes to a bbolt file directly, as another program would.
func rawUpdate(t *testing.T, path string, f func(*bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(f); err != nil {
		t.Fatal(err)
	}
	db.Close()
}

// An empty bbolt file (no buckets; e.g. a first open that died before its
// first transaction) is adopted and laid out.
func TestEmptyBboltFileInitialised(t *testing.T) {
	path := filepath.Join(t.TempDir(), "virgo.db")
	rawUpdate(t, path, func(*bolt.Tx) error { return nil })
	b, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if rev := mustTxn(t, b, nil, store.Put("a", nil)); rev != 1 {
		t.Fatalf("first revision %d", rev)
	}
	if _, err := b.Get(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
}
