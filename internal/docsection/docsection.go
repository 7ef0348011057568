// Package docsection keeps a generated section of a Markdown document equal
// to the table it is generated from (test support: docs/tools.md and
// docs/mcp.md carry tables derived from the one tool table), and its tests
// check that every link of the repository's Markdown resolves. No
// production code imports it.
package docsection

import (
	"os"
	"strings"
	"testing"
)

// Check fails t when the lines of path between the line start and the
// marker end differ from body; with update it rewrites them to body
// instead. how tells the reader the command that regenerates the section.
func Check(t testing.TB, path, start, end, body string, update bool, how string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	before, rest, ok1 := strings.Cut(doc, start+"\n")
	_, after, ok2 := strings.Cut(rest, end)
	if !ok1 || !ok2 {
		t.Fatalf("%s: no generated section between %q and %q", path, start, end)
	}
	want := before + start + "\n" + body + end + after
	if update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if doc != want {
		t.Fatalf("%s's generated section is out of date: %s", path, how)
	}
}
