package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// as runs a command of the program run under name (virgo or virgo-tui).
func (c *cli) as(name string, args ...string) (stdout, stderr string, code int) {
	c.t.Helper()
	var out, errb bytes.Buffer
	root := newRootCmdNamed(name)
	root.SetArgs(append([]string{"--home", c.home}, args...))
	root.SetIn(strings.NewReader(""))
	code = execute(root, &out, &errb)
	return out.String(), errb.String(), code
}

// "Help, usage and every printed next step use the name the
// program was run as (virgo persona add prints virgo confirm approve …)".
func TestBothNamesInHelpUsageAndNextSteps(t *testing.T) {
	c := newCLI(t)
	_, errOut, _ := c.as("virgo", "persona", "list")
	wantContains(t, "virgo persona list on a plain directory", errOut, "run `virgo operator add NAME --home "+c.home+"` to create one")
	if _, err := registry.CreateHome(c.home); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := c.as("virgo", "persona", "add", "--scope", "root", "--role", "secretary", "--name", "Spica")
	if code != 0 {
		t.Fatalf("virgo persona add: exit %d: %s", code, errOut)
	}
	wantContains(t, "virgo persona add", out, "\n  virgo confirm approve c-")
	if strings.Contains(out, "virgo-tui") {
		t.Errorf("virgo persona add names virgo-tui:\n%s", out)
	}
	out, _, _ = c.as("virgo", "persona", "add", "--help")
	wantContains(t, "virgo persona add --help", out, "Usage:\n  virgo persona add", "  virgo persona add --scope work",
		"approves: virgo confirm approve ID")
	if strings.Contains(out, "virgo-tui") {
		t.Errorf("virgo's help names virgo-tui:\n%s", out)
	}
	_, errOut, _ = c.as("virgo", "persona", "show", "Nobody")
	wantContains(t, "virgo persona show Nobody", errOut, "virgo: ", "(see `virgo persona list --all`)")

	// The same as virgo-tui, and the module path is never renamed.
	out, _, _ = c.as("virgo-tui", "persona", "add", "--help")
	wantContains(t, "virgo-tui persona add --help", out, "Usage:\n  virgo-tui persona add", "  virgo-tui persona add --scope work")
	if got := renamed("see github.com/virgo-hub/virgo-tui and `virgo-tui serve`", "virgo"); got != "see github.com/virgo-hub/virgo-tui and `virgo serve`" {
		t.Errorf("renamed: %q", got)
	}
}

// Completion works under both names and completes confirmation ids
// (confirm approve|deny|show) and persona addresses (presence set|beat).
func TestCompletionUnderBothNames(t *testing.T) {
	c := newCLI(t)
	pending := c.add("--scope", "root", "--role", "secretary", "--name", "Spica")
	active := c.activate("--scope", "work", "--role", "coordinator", "--name", "Porrima")
	for _, name := range []string{"virgo", "virgo-tui"} {
		for _, sub := range []string{"approve", "deny", "show"} {
			out, errOut, code := c.as(name, "__complete", "confirm", sub, "")
			if code != 0 {
				t.Fatalf("%s __complete confirm %s: exit %d %s", name, sub, code, errOut)
			}
			wantContains(t, name+" completion of confirm "+sub, out, pending.Confirmation.ID+"\tactivation root/secretary")
		}
		out, _, _ := c.as(name, "__complete", "confirm", "show", "")
		wantContains(t, name+" completion of confirm show (every confirmation)", out, active.Confirmation.ID)
		for _, verb := range []string{"set", "beat"} {
			out, _, _ := c.as(name, "__complete", "presence", verb, "")
			wantContains(t, name+" completion of presence "+verb, out, "work/coordinator\n")
			if strings.Contains(out, "root/secretary") {
				t.Errorf("presence %s completes the pending root/secretary, which has no runtime token:\n%s", verb, out)
			}
		}
		script, _, _ := c.as(name, "completion", "bash")
		wantContains(t, name+" completion bash", script, "complete -o default -F __start_"+name+" "+name+"\n")
	}
}

// "no --version": --version prints the name run as and the version the
// build recorded, and exits 0 without opening anything.
func TestVersionFlag(t *testing.T) {
	c := newCLI(t)
	for _, name := range []string{"virgo", "virgo-tui"} {
		out, errOut, code := c.as(name, "--version")
		if code != 0 || !strings.HasPrefix(out, name+" ") || strings.TrimSpace(strings.TrimPrefix(out, name+" ")) == "" {
			t.Errorf("%s --version: exit %d, stdout %q, stderr %q; want %q and a version", name, code, out, errOut, name+" …")
		}
	}
}
