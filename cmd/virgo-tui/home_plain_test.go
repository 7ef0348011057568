package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dirState is what a command could change in a directory: every entry's
// path, mode and size, and the directory's own mode.
func dirState(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		size := fi.Size()
		if fi.IsDir() {
			size = 0
		}
		fmt.Fprintf(&b, "%s %v %d\n", strings.TrimPrefix(p, dir), fi.Mode(), size)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A read command pointed at a directory that is not a virgo home (`persona
// list --home /etc` chmod-ed it 0700, created virgo.db in it and enrolled
// an operator) says so, naming the command that creates one, and changes
// nothing: not the mode, not the entries. A missing directory is not made.
func TestReadCommandsOnAPlainDirectoryChangeNothing(t *testing.T) {
	reads := [][]string{
		{"persona", "list"},
		{"persona", "show", "root/secretary"},
		{"confirm", "list"},
		{"presence", "list"},
		{"store", "status"},
		{"store", "check"},
		{"operator", "list"},
		{"audit"},
		{"prompts", "list"},
		{"inbox", "list"},
		{"persona", "add", "--scope", "root", "--role", "secretary", "--name", "Spica"},
	}
	for _, missing := range []bool{false, true} {
		c := newCLI(t)
		c.asEnrolled = true
		if missing {
			c.home = filepath.Join(c.home, "nothing-here")
		} else {
			if err := os.Chmod(c.home, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(c.home, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		before := ""
		if !missing {
			before = dirState(t, c.home)
		}
		for _, args := range reads {
			_, errOut, code := c.run(args...)
			want := c.home + " is not a virgo home"
			if code == 0 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "operator add NAME --home "+c.home) {
				t.Errorf("%v on a plain directory: exit %d, stderr %q; want a refusal saying %q and how to create one", args, code, errOut, want)
			}
			if missing {
				if _, err := os.Lstat(c.home); err == nil {
					t.Fatalf("%v created the missing home %s", args, c.home)
				}
				continue
			}
			if after := dirState(t, c.home); after != before {
				t.Fatalf("%v changed the directory:\nbefore\n%s\nafter\n%s", args, before, after)
			}
		}
	}
}
