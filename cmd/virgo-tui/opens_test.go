package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// `stamp validate` on /dev/zero grew until it was killed; a FIFO blocked
// it; a link to a 1 GiB sparse file read a gibibyte. Each is refused at
// once, naming what it is.
func TestStampValidateRefusesWhatIsNoStampFileQuickly(t *testing.T) {
	c := newCLI(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	mustNil(t, syscall.Mkfifo(fifo, 0o600))
	sparse := filepath.Join(dir, "sparse.json")
	f, err := os.Create(sparse)
	mustNil(t, err)
	mustNil(t, f.Truncate(1<<30))
	mustNil(t, f.Close())
	link := filepath.Join(dir, "CAPABILITY-STAMP.json")
	mustNil(t, os.Symlink(sparse, link))
	for path, want := range map[string]string{
		"/dev/zero": "capability stamp file unreadable: it is a",
		fifo:        "capability stamp file unreadable: it is a",
		link:        "capability stamp too large: 1073741824 bytes",
	} {
		start := time.Now()
		out, errOut, code := c.run("stamp", "validate", path)
		if took := time.Since(start); took > time.Second {
			t.Errorf("stamp validate %s took %v", path, took)
		}
		if code == 0 {
			t.Errorf("stamp validate %s succeeded: %s", path, out)
		}
		wantContains(t, "stamp validate "+path, out+errOut, want)
	}
}

// Item 7's reproduction for the CLI and `mcp` (which acts through the same
// persona client): a generation directory open to others, a token file
// others may read, and a token that is a link were accepted. Each is
// refused naming the fix; put right, the runtime acts again.
func TestPersonaTokenAndDirectoryAreCheckedAsTheOperatorsAre(t *testing.T) {
	c := personaHome(t)
	seat, err := hubapi.ReadSeat(c.home, "work/core/lead")
	mustNil(t, err)
	tok := hubapi.SeatTokenFile(c.home, seat)
	gen := filepath.Dir(tok)
	wantContains(t, "intact", c.ok("presence", "beat", "work/core/lead"), "work/core/lead: active")

	mustNil(t, os.Chmod(gen, 0o755))
	wantContains(t, "0755 directory", c.fails("presence", "beat", "work/core/lead"), "is mode 0755", "run chmod 700 "+gen)
	mustNil(t, os.Chmod(gen, 0o700))

	mustNil(t, os.Chmod(tok, 0o644))
	wantContains(t, "0644 token", c.fails("presence", "beat", "work/core/lead"), "is mode 0644", "run chmod 600 "+tok)
	wantContains(t, "0644 --token-file", c.fails("presence", "beat", "work/core/lead", "--token-file", tok), "is mode 0644")
	mustNil(t, os.Chmod(tok, 0o600))

	real := tok + ".real"
	mustNil(t, os.Rename(tok, real))
	mustNil(t, os.Symlink(real, tok))
	wantContains(t, "token link", c.fails("presence", "beat", "work/core/lead"), tok+" is a symbolic link")
	handed := filepath.Join(t.TempDir(), "lead.token")
	mustNil(t, os.Symlink(real, handed))
	wantContains(t, "--token-file link", c.fails("presence", "beat", "work/core/lead", "--token-file", handed), handed+" is a symbolic link")
	mustNil(t, os.Remove(tok))
	mustNil(t, os.Rename(real, tok))

	wantContains(t, "put right", c.ok("presence", "beat", "work/core/lead"), "work/core/lead: active")
}

// Item 6's reproduction: `persona add --repo` pointing at the home itself
// was accepted, and that persona then read virgo.db and the host key and
// wrote keys.json without a confirmation. A binding that contains the home
// or lies inside it (links resolved) is refused by name; a worktree beside
// the home is bound.
func TestRepositoryBindingMayNotOverlapTheHome(t *testing.T) {
	c := newCLI(t)
	mustNil(t, os.MkdirAll(filepath.Join(c.home, "workspaces"), 0o700))
	link := filepath.Join(t.TempDir(), "home-link")
	mustNil(t, os.Symlink(c.home, link))
	for _, repo := range []string{c.home, filepath.Join(c.home, "workspaces"), filepath.Dir(c.home), link} {
		wantContains(t, "--repo "+repo, c.fails("persona", "add", "--scope", "work", "--project", "core", "--role", "lead",
			"--name", "Porrima", "--repo", repo), "repository binding overlaps the installation home", "bind a worktree outside it")
	}
	beside := t.TempDir()
	c.add("--scope", "work", "--project", "core", "--role", "lead", "--name", "Porrima", "--repo", beside)
}
