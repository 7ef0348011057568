package workspace

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// tree makes a workspace directory with files (path → content) and
// returns its root, opened with the standard mutable paths.
func tree(t *testing.T, files map[string]string) *Root {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(dir, stamp.StandardMutablePaths())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestReadPagesWithContinuation(t *testing.T) {
	content := strings.Repeat("0123456789", 1000) // 10,000 bytes
	r := tree(t, map[string]string{"memory/log.md": content})
	var got bytes.Buffer
	off, pages := int64(0), 0
	for {
		pg, err := r.Read("memory/log.md", off, 4096)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		got.Write(pg.Data)
		if pg.Offset != off || pg.Size != 10000 || pg.NextOffset != off+int64(len(pg.Data)) {
			t.Fatalf("page %d: %+v", pages, pg.Range)
		}
		off = pg.NextOffset
		if pg.EOF {
			break
		}
	}
	if pages != 3 || got.String() != content {
		t.Fatalf("%d pages, %d bytes back; want 3 pages and the whole file", pages, got.Len())
	}
	if pg, err := r.Read("memory/log.md", 10000, 10); err != nil || !pg.EOF || len(pg.Data) != 0 {
		t.Fatalf("read at the end: %+v, %v; want an empty page at EOF", pg.Range, err)
	}
	if _, err := r.Read("memory/log.md", 10001, 10); !errors.Is(err, confirm.ErrBadRange) {
		t.Fatalf("read past the end: %v, want ErrBadRange", err)
	}
	if _, err := r.Read("memory/log.md", -1, 10); !errors.Is(err, confirm.ErrBadRange) {
		t.Fatalf("negative offset: %v, want ErrBadRange", err)
	}
}

func TestHostilePathsAreRefusedByName(t *testing.T) {
	r := tree(t, map[string]string{"QUEUE.md": "q"})
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	must(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(r.Dir(), "memory-link")))
	must(t, os.Symlink(outside, filepath.Join(r.Dir(), "outdir")))
	must(t, os.Symlink(filepath.Join(r.Dir(), "nowhere"), filepath.Join(r.Dir(), "dangling")))
	cases := []struct {
		path string
		want error
	}{
		{"../etc/passwd", confirm.ErrDotDot},
		{"memory/../../x", confirm.ErrDotDot},
		{"/etc/passwd", confirm.ErrAbsolutePath},
		{"~/x", confirm.ErrAbsolutePath},
		{`memory\x`, confirm.ErrBackslash},
		{"memory/%2e%2e/x", confirm.ErrPercentEncoded},
		{"QUEUE\x00.md", confirm.ErrControlChar},
		{"QUEUE\u2024md", confirm.ErrNonASCII},
		{"memory-link", confirm.ErrSymlinkEscape},
		{"outdir/secret", confirm.ErrSymlinkEscape},
		{"dangling", confirm.ErrSymlinkEscape},
		{"", confirm.ErrEmptyTarget},
	}
	for _, c := range cases {
		ops := map[string]func() error{
			"read":  func() error { _, err := r.Read(c.path, 0, 0); return err },
			"stat":  func() error { _, err := r.Stat(c.path); return err },
			"hash":  func() error { _, err := r.Hash(c.path); return err },
			"write": func() error { _, err := r.Write(c.path, []byte("x"), CreateOrReplace); return err },
		}
		for name, op := range ops {
			if err := op(); !errors.Is(err, c.want) {
				t.Errorf("%s %q: %v; want %v", name, c.path, err, c.want)
			}
		}
	}
	if _, err := r.List("outdir", "", 0); !errors.Is(err, confirm.ErrSymlinkEscape) {
		t.Errorf("list outdir: %v, want ErrSymlinkEscape", err)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != "s" {
		t.Fatalf("the file outside was changed: %q", b)
	}
}

// A link inside the workspace resolves to the file it names, so that the
// hub decides on the real target: a memory note linked to .env is .env.
func TestResolveNamesTheRealTarget(t *testing.T) {
	r := tree(t, map[string]string{".env": "TOKEN=x"})
	must(t, os.MkdirAll(filepath.Join(r.Dir(), "memory"), 0o700))
	must(t, os.Symlink("../.env", filepath.Join(r.Dir(), "memory", "notes.md")))
	got, err := r.Resolve("memory/notes.md")
	if err != nil || got != ".env" {
		t.Fatalf("Resolve(memory/notes.md) = %q, %v; want .env", got, err)
	}
}

// A workspace reached through a link (a home on a linked disk) resolves
// as one reached directly: its root's links are resolved once, at Open,
// and an in-tree link or an escape is judged below the real root.
func TestResolveUnderALinkedRoot(t *testing.T) {
	real := t.TempDir()
	must(t, os.WriteFile(filepath.Join(real, ".env"), []byte("TOKEN=x"), 0o600))
	must(t, os.MkdirAll(filepath.Join(real, "docs"), 0o700))
	must(t, os.WriteFile(filepath.Join(real, "docs", "a.md"), []byte("a"), 0o600))
	must(t, os.Symlink("docs/a.md", filepath.Join(real, "alias.md")))
	must(t, os.Symlink(t.TempDir(), filepath.Join(real, "out")))
	linked := filepath.Join(t.TempDir(), "home")
	must(t, os.Symlink(real, linked))
	r, err := Open(linked, stamp.StandardMutablePaths())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for p, want := range map[string]string{"alias.md": "docs/a.md", "docs/a.md": "docs/a.md", "docs/new.md": "docs/new.md"} {
		if got, err := r.Resolve(p); err != nil || got != want {
			t.Errorf("Resolve(%s) = %q, %v; want %s", p, got, err, want)
		}
	}
	if got, err := r.Resolve("out/x"); !errors.Is(err, confirm.ErrSymlinkEscape) {
		t.Errorf("Resolve(out/x) = %q, %v; want ErrSymlinkEscape", got, err)
	}
	if pg, err := r.Read("alias.md", 0, 0); err != nil || string(pg.Data) != "a" {
		t.Errorf("read alias.md: %+v, %v", pg, err)
	}
}

func TestWriteOnlyMutablePathsAtomically(t *testing.T) {
	r := tree(t, map[string]string{"QUEUE.md": "old", "README.md": "readme"})
	w, err := r.Write("QUEUE.md", []byte("new"), CreateOrReplace)
	if err != nil || w.Created || w.Size != 3 {
		t.Fatalf("overwrite QUEUE.md: %+v, %v", w, err)
	}
	sum := sha256.Sum256([]byte("new"))
	if w.SHA256 != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Fatalf("digest %s", w.SHA256)
	}
	w, err = r.Write("memory/2026/today.md", []byte("note"), CreateOnly)
	if err != nil || !w.Created {
		t.Fatalf("create memory/2026/today.md: %+v, %v", w, err)
	}
	if fi, _ := os.Stat(filepath.Join(r.Dir(), "memory", "2026", "today.md")); fi.Mode().Perm() != 0o600 {
		t.Fatalf("new file mode %v, want 0600", fi.Mode().Perm())
	}
	if _, err := r.Write("memory/2026/today.md", []byte("again"), CreateOnly); !errors.Is(err, ErrExists) {
		t.Fatalf("create over an existing file: %v, want ErrExists", err)
	}
	if _, err := r.Write("README.md", []byte("x"), CreateOrReplace); !errors.Is(err, ErrNotMutable) {
		t.Fatalf("write README.md: %v, want ErrNotMutable", err)
	}
	if _, err := r.Write("memory/big.md", make([]byte, MaxWrite+1), CreateOrReplace); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("write over the limit: %v, want ErrTooLarge", err)
	}
	if _, err := r.Write("memory/2026", []byte("x"), CreateOrReplace); !errors.Is(err, ErrNotFile) {
		t.Fatalf("write over a directory: %v, want ErrNotFile", err)
	}
	if b, _ := os.ReadFile(filepath.Join(r.Dir(), "README.md")); string(b) != "readme" {
		t.Fatalf("README.md changed: %q", b)
	}
	l, err := r.List("", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range l.Entries {
		if strings.Contains(e.Path, "virgo-write") {
			t.Fatalf("a temporary file was left behind: %s", e.Path)
		}
	}
}

// A repository root (nil mutable paths) is writable throughout.
func TestRepositoryRootWritesAnywhere(t *testing.T) {
	r, err := Open(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Write("cmd/main.go", []byte("package main\n"), CreateOrReplace); err != nil {
		t.Fatal(err)
	}
}

func TestListPagesInNameOrder(t *testing.T) {
	files := map[string]string{}
	for i := range 25 {
		files[fmt.Sprintf("memory/n%02d.md", i)] = "x"
	}
	r := tree(t, files)
	var names []string
	after := ""
	for pages := 0; ; pages++ {
		l, err := r.List("memory", after, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range l.Entries {
			names = append(names, e.Path)
			if e.Type != "file" || e.Size != 1 {
				t.Fatalf("entry %+v", e)
			}
		}
		if l.Next == "" {
			if pages != 2 {
				t.Fatalf("%d pages, want 3", pages+1)
			}
			break
		}
		after = l.Next
	}
	if len(names) != 25 || names[0] != "memory/n00.md" || names[24] != "memory/n24.md" {
		t.Fatalf("listed %v", names)
	}
	for _, bad := range []string{"../x", "a/b", ".."} {
		if _, err := r.List("memory", bad, 10); !errors.Is(err, ErrBadCursor) {
			t.Errorf("cursor %q: %v, want ErrBadCursor", bad, err)
		}
	}
	if _, err := r.List("memory/n00.md", "", 0); !errors.Is(err, ErrNotDir) {
		t.Errorf("list a file: %v, want ErrNotDir", err)
	}
}

func TestStatHashAndMissing(t *testing.T) {
	r := tree(t, map[string]string{"FINDINGS.md": "found"})
	e, err := r.Stat("FINDINGS.md")
	if err != nil || e.Type != "file" || e.Size != 5 {
		t.Fatalf("stat: %+v, %v", e, err)
	}
	d, err := r.Hash("FINDINGS.md")
	sum := sha256.Sum256([]byte("found"))
	if err != nil || d.SHA256 != "sha256:"+hex.EncodeToString(sum[:]) || d.Size != 5 {
		t.Fatalf("hash: %+v, %v", d, err)
	}
	if _, err := r.Read("missing.md", 0, 0); !errors.Is(err, ErrNotFound) {
		t.Fatalf("read missing: %v, want ErrNotFound", err)
	}
	must(t, os.Mkdir(filepath.Join(r.Dir(), "d"), 0o700))
	if _, err := r.Hash("d"); !errors.Is(err, ErrNotFile) {
		t.Fatalf("hash a directory: %v, want ErrNotFile", err)
	}
	if _, err := Open(filepath.Join(r.Dir(), "nope"), nil); !errors.Is(err, ErrNoRoot) {
		t.Fatalf("open a missing root: %v, want ErrNoRoot", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestRemoveOnlyMutableFiles(t *testing.T) {
	r := tree(t, map[string]string{"memory/old.md": "old", "README.md": "r"})
	got, err := r.Remove("memory/old.md")
	if err != nil || got.Size != 3 {
		t.Fatalf("remove memory/old.md: %+v, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(r.Dir(), "memory", "old.md")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("memory/old.md still there: %v", err)
	}
	if _, err := r.Remove("README.md"); !errors.Is(err, ErrNotMutable) {
		t.Fatalf("remove README.md: %v, want ErrNotMutable", err)
	}
	if _, err := r.Remove("memory/old.md"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("remove again: %v, want ErrNotFound", err)
	}
}

// Removing a secret (once its bound human confirmed it) answers no digest:
// a secret's sha256 leaves the workspace no more than its bytes do.
func TestRemovedSecretLeavesNoDigest(t *testing.T) {
	r := tree(t, map[string]string{"memory/.env": "SECRET=xyz\n", "memory/old.md": "old"})
	got, err := r.Remove("memory/.env")
	if err != nil || got.SHA256 != "" || got.Path != "memory/.env" {
		t.Fatalf("remove memory/.env: %+v, %v; want it removed without a digest", got, err)
	}
	if _, err := os.Lstat(filepath.Join(r.Dir(), "memory", ".env")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("memory/.env is still there: %v", err)
	}
	if got, err := r.Remove("memory/old.md"); err != nil || got.SHA256 == "" {
		t.Fatalf("remove memory/old.md: %+v, %v; want its digest", got, err)
	}
}
