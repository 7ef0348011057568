package usecase_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/usecase/usecasetest"
)

// stampDictAddresses are the generations whose first stamps make the stamp
// dictionary: one of every role, the most numerous last (DEFLATE reaches
// the end of a dictionary most cheaply, and keeps only its last 32 KiB).
var stampDictAddresses = []string{"root/secretary", "home/secretary", "work/coordinator", "work/core/lead", "work/core/deputy"}

// writeStampDictEnv names the file TestWriteStampDictionary writes.
const writeStampDictEnv = "VIRGO_WRITE_STAMP_DICT"

// TestWriteStampDictionary builds the dictionary stored stamps are
// compressed against (stampform.go): the stamp files of a first generation
// of every role, registered as `persona add` does, one after the other. It
// is a tool, run once per stamp format, never over a dictionary that has
// shipped:
//
//	VIRGO_WRITE_STAMP_DICT=$PWD/internal/usecase/stamp-dict-vN.json go test ./internal/usecase -run TestWriteStampDictionary
func TestWriteStampDictionary(t *testing.T) {
	out := usecasetest.DictionaryOut(t, writeStampDictEnv)
	home, err := registry.ResolveHome(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.OpenBolt(home.DBPath(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	register := usecasetest.Stamped(st, home)
	var dict []byte
	for i, addr := range stampDictAddresses {
		p, err := register(registry.Registration{Address: addr, Name: registry.ConstellationNames[i], Human: usecasetest.Human})
		if err != nil {
			t.Fatalf("%s: %v", addr, err)
		}
		file, err := os.ReadFile(filepath.Join(home.GenerationDir(p.ID), stamp.FileName))
		if err != nil {
			t.Fatalf("%s: %v", addr, err)
		}
		dict = append(dict, file...)
	}
	if err := os.WriteFile(out, dict, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d bytes from %d stamps", out, len(dict), len(stampDictAddresses))
}
