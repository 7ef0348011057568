package stamp

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzRead feeds any bytes to the version dispatch, the readers, the
// validators and the projections: no input may panic, and whatever Read
// accepts must project without loss. Seeds: testdata/fuzz/FuzzRead and the
// legacy fixtures.
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, seat := range seats {
		f.Add(mustMarshal(f, mustBuild(f, seat)))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Read(b)
		if _, perr := Project(b); err == nil && perr != nil {
			t.Fatalf("Read accepted what Project refused: %v", perr)
		}
		if err != nil {
			return
		}
		if err := CheckProjections(ProjectTools(s.Tools)); err != nil {
			t.Fatalf("accepted stamp does not project: %v", err)
		}
		_, _ = Hash(b)
	})
}
