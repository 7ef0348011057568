package wizard

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares a settled view, colour off, with testdata/<name>.golden.
func golden(t *testing.T, name, view string) {
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

// goldenSizes renders a view at both sizes the issue names and checks its
// shape: exactly height lines, none wider than width.
func goldenSizes(t *testing.T, name string, m Model) {
	t.Helper()
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		v := m.View(sz.w, sz.h)
		lines := strings.Split(v, "\n")
		if len(lines) != sz.h {
			t.Errorf("%s at %dx%d: %d lines", name, sz.w, sz.h, len(lines))
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w > sz.w {
				t.Errorf("%s at %dx%d: line %d is %d wide", name, sz.w, sz.h, i, w)
			}
		}
		golden(t, name+"-"+itoa(sz.w)+"x"+itoa(sz.h), v)
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func TestGoldenViews(t *testing.T) {
	first := &fakeBackend{snap: Snapshot{Empty: true, Suggestions: []string{"Spica", "Porrima", "Vindemiatrix"}}}
	h := newHarness(t, first)
	goldenSizes(t, "first-install-scope", h.m)

	h = newHarness(t, &fakeBackend{snap: existing()})
	goldenSizes(t, "scope", h.m)
	h.typ("Work")
	goldenSizes(t, "scope-refused", h.m)
	for range 4 {
		h.keys("backspace")
	}
	h.typ("work")
	h.keys("enter")
	goldenSizes(t, "project", h.m)
	h.keys("down", "enter")
	goldenSizes(t, "role", h.m)
	h.keys("down", "enter")
	h.typ("auva")
	goldenSizes(t, "name-taken", h.m)
	for range 4 {
		h.keys("backspace")
	}
	goldenSizes(t, "name", h.m)
	h.keys("enter")
	goldenSizes(t, "preview", h.m)
	h.keys("v")
	goldenSizes(t, "preview-diff", h.m)

	b := &fakeBackend{snap: existing(), bound: true}
	h = newHarness(t, b)
	h.typ("home")
	h.keys("enter", "enter", "enter", "enter", "enter")
	goldenSizes(t, "submitted-bound-human", h.m)
}
