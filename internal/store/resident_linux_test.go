package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/procmem"
)

// mappedKiB is how much of the map of file is resident in this process.
func mappedKiB(t *testing.T, file string) int {
	t.Helper()
	kib, err := procmem.MappedKiB(os.Getpid(), file)
	if err != nil {
		t.Fatal(err)
	}
	return kib
}

func TestReleasePagesLetsGoOfWhatReadsLeftResident(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "virgo.db")
	s, err := OpenBolt(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	value := incompressible(500)
	var ops []Op
	for i := 0; i < 20_000; i++ {
		ops = append(ops, Put(fmt.Sprintf("persona/%08d", i), value))
	}
	if _, err := WriteAll(ctx, s, ops); err != nil {
		t.Fatal(err)
	}
	// A start reads every record: 10 MB, resident through the map.
	kvs, err := s.List(ctx, "persona/")
	if err != nil || len(kvs) != 20_000 {
		t.Fatalf("listed %d: %v", len(kvs), err)
	}
	if read := mappedKiB(t, path); read < 8<<10 {
		t.Fatalf("%d KiB of the map resident after reading 10 MB: the test reads nothing", read)
	}
	if err := s.ReleasePages(); err != nil {
		t.Fatal(err)
	}
	if left := mappedKiB(t, path); left > 256 {
		t.Fatalf("%d KiB of the map still resident after ReleasePages", left)
	}
	// Nothing is lost: every record reads back whole.
	kvs, err = s.List(ctx, "persona/")
	if err != nil || len(kvs) != 20_000 || string(kvs[19_999].Value) != string(value) {
		t.Fatalf("after ReleasePages: listed %d: %v", len(kvs), err)
	}
	s.Close()
	if err := s.ReleasePages(); err == nil {
		t.Fatal("ReleasePages of a closed store answered nil")
	}
}

// BenchmarkReleasePages: what letting go of the map's pages costs the hub
// that does it after every presence flush, on a 128 MiB file (the size of
// a 10,000-persona database): with nothing resident (an idle second), and
// after a read left 16 MiB resident (reported per release, the read apart).
func BenchmarkReleasePages(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "virgo.db")
	s, err := OpenBolt(path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	value := incompressible(1000)
	var ops []Op
	for i := 0; i < 100_000; i++ {
		ops = append(ops, Put(fmt.Sprintf("persona/%08d", i), value))
	}
	if _, err := WriteAll(ctx, s, ops); err != nil {
		b.Fatal(err)
	}
	b.Run("nothing-resident", func(b *testing.B) {
		for b.Loop() {
			if err := s.ReleasePages(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("16MiB-resident", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			if _, err := s.List(ctx, "persona/0001"); err != nil { // 10,000 values: about 16 MiB of pages
				b.Fatal(err)
			}
			b.StartTimer()
			if err := s.ReleasePages(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
