package stamp

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden stamps in testdata")

// TestGoldenStampBytes pins the exact bytes (and so the hash) the factory
// writes for fixed inputs, across runs and machines: a change of the table,
// the field order or the encoding shows up here. Regenerate with -update
// only for an intended change.
func TestGoldenStampBytes(t *testing.T) {
	for _, seat := range []string{"root/secretary", "work/coordinator", "work/core/lead", "work/core/deputy"} {
		name := filepath.Join("testdata", "v3-"+filepath.Base(seat)+".golden.json")
		got := mustMarshal(t, mustBuild(t, seat))
		if *update {
			if err := os.WriteFile(name, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(name)
		if err != nil {
			t.Fatalf("%v (run with -update to create)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the factory's bytes changed; diff against %s", seat, name)
		}
		h, _ := Hash(want)
		if _, err := load(name, h); err != nil {
			t.Errorf("golden %s does not load: %v", name, err)
		}
	}
}
