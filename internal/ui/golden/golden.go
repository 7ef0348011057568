// Package golden pins settled console views for tests: a view rendered at a
// fixed size with colour off is compared with testdata/<name>.golden, and
// `go test -update` rewrites the files. The console and its child views (the
// wizard, the matrix view) share it, so all three pin views the same way.
package golden

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// Sizes are the terminal sizes the views are pinned at: 80×24 and 120×40.
var Sizes = [][2]int{{80, 24}, {120, 40}}

// Check compares view, colour stripped, with testdata/<name>.golden; with
// -update it writes the file instead.
func Check(t testing.TB, name, view string) {
	t.Helper()
	got := ansi.Strip(view) + "\n"
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -update regenerates it)\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

// Shape checks that a view fills exactly h lines, none wider than w cells:
// a child renders into the size it is given.
func Shape(t testing.TB, name, view string, w, h int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		t.Errorf("%s at %dx%d: %d lines", name, w, h, len(lines))
	}
	for i, l := range lines {
		if lw := ansi.StringWidth(l); lw > w {
			t.Errorf("%s at %dx%d: line %d is %d cells wide: %q", name, w, h, i+1, lw, ansi.Strip(l))
		}
	}
}

// Settled renders view at every size of Sizes, checks its shape, and
// compares it with testdata/<name>-<w>x<h>.golden.
func Settled(t testing.TB, name string, view func(w, h int) string) {
	t.Helper()
	for _, sz := range Sizes {
		v := view(sz[0], sz[1])
		Shape(t, name, v, sz[0], sz[1])
		Check(t, fmt.Sprintf("%s-%dx%d", name, sz[0], sz[1]), v)
	}
}
