package procmem

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// mapFile writes a file of size zero bytes at path and maps it read-only
// into this process for the rest of the test.
func mapFile(t *testing.T, path string, size int) []byte {
	t.Helper()
	if err := os.WriteFile(path, make([]byte, size), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Munmap(m) })
	return m
}

// TestMappedKiBCountsTheTouchedPagesOfOneFile maps two 8 MiB files and
// reads 4 MiB of one (its name has a space, as a home's path may): only
// that one counts, at least what was read; the other, and a file not
// mapped at all, count nothing resident beyond a little readahead.
func TestMappedKiBCountsTheTouchedPagesOfOneFile(t *testing.T) {
	const size, read = 8 << 20, 4 << 20
	dir := t.TempDir()
	touched, idle := filepath.Join(dir, "touched file"), filepath.Join(dir, "idle")
	m := mapFile(t, touched, size)
	mapFile(t, idle, size)
	sum := 0
	for i := 0; i < read; i += os.Getpagesize() {
		sum += int(m[i])
	}
	if sum != 0 {
		t.Fatalf("a file of zeros read %d", sum)
	}
	pid := os.Getpid()
	if kib, err := MappedKiB(pid, touched); err != nil || kib < read>>10 {
		t.Fatalf("MappedKiB(touched) = %d KiB, %v; want at least the %d KiB read", kib, err, read>>10)
	}
	if kib, err := MappedKiB(pid, idle); err != nil || kib >= read>>10 {
		t.Fatalf("MappedKiB(idle) = %d KiB, %v; want less than the other file's read, nothing was read of it", kib, err)
	}
	if kib, err := MappedKiB(pid, filepath.Join(dir, "never mapped")); err != nil || kib != 0 {
		t.Fatalf("MappedKiB(a file not mapped) = %d KiB, %v; want 0", kib, err)
	}
}

func TestMappedKiBOfNoProcessIsErrSmaps(t *testing.T) {
	if _, err := MappedKiB(-1, "/x"); !errors.Is(err, ErrSmaps) {
		t.Fatalf("MappedKiB of pid -1: %v; want ErrSmaps", err)
	}
}
