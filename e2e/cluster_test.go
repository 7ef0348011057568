//go:build etcdcluster

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore/etcdcluster"
)

// "two hubs on two homes: register on one, approve in a console
// on the other (tmux), both consoles agree". One installation on a real
// three-member etcd cluster in separate processes; two homes (two hosts),
// each with its console open in its own tmux server, each console with its
// hub inside it. A persona registered through home A's hub is pending in
// both consoles' queues; approved in console B, it leaves both queues and
// is in both consoles' presence; the command line through either home says
// approved.
func TestTwoConsolesOnTwoHubsAgree(t *testing.T) {
	requireTools(t, "the two consoles run in tmux", "tmux")
	cl := etcdcluster.Start(t)
	bin := buildBinary(t)
	dir, err := os.MkdirTemp("", "vtcl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	homeA, homeB := filepath.Join(dir, "host-a"), filepath.Join(dir, "host-b")
	env := []string{"TERM=xterm-256color", "NO_COLOR=1", "VIRGO_PRINCIPAL=" + operator, "VIRGO_STORE=" + cl.URL("virgo/e2e")}
	run := func(home string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"--home", home}, args...)...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.Output()
		if err != nil {
			stderr := ""
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("virgo-tui --home %s %s: %v\n%s%s", home, strings.Join(args, " "), err, out, stderr)
		}
		return string(out)
	}
	// ada is enrolled on host A at first install; her token file is
	// copied to host B, as an operator does to act there (the enrolment's
	// hash is in the store).
	run(homeA, "operator", "add", strings.TrimPrefix(operator, "human:"))
	tok, err := hubapi.OperatorToken(homeA, strings.TrimPrefix(operator, "human:"))
	if err != nil {
		t.Fatal(err)
	}
	tokB := hubapi.OperatorTokenPath(homeB, strings.TrimPrefix(operator, "human:"))
	if err := os.MkdirAll(filepath.Dir(tokB), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(homeB, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tokB, []byte(tok+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	open := func(home string) *console {
		t.Helper()
		tdir := filepath.Join(dir, filepath.Base(home)+"-term")
		if err := os.MkdirAll(tdir, 0o700); err != nil {
			t.Fatal(err)
		}
		tm := startTerm(t, tdir, env, bin, "--home", home)
		tm.logs = append(tm.logs, filepath.Join(home, "console.log"))
		c := &console{term: tm, bin: bin, home: home}
		tm.waitFor("hub ● connected", startTimeout)
		return c
	}
	a := open(homeA)
	b := open(homeB)

	out := run(homeA, "persona", "add", "--scope", "work", "--project", "core", "--role", "lead", "--name", "Spica")
	id := regexp.MustCompile(`c-[0-9a-z]+`).FindString(out)
	if id == "" {
		t.Fatalf("persona add printed no confirmation id:\n%s", out)
	}
	const row = "address:work/core/lead" // the activation's row, in both queues
	for _, c := range []*console{a, b} {
		c.press("2", "[2 Queue")
		c.waitFor(row, stepTimeout)
	}
	if !decideDeliberately(b, id, false) {
		b.fatalf("the activation %s could not be approved in console B", id)
	}
	for _, c := range []*console{a, b} {
		if _, ok := c.poll(stepTimeout, func(s string) bool { return !strings.Contains(s, row) }); !ok {
			c.fatalf("the approved %s is still in this console's queue", id)
		}
		c.press("1", "[1 Presence")
		c.waitFor("Spica", stepTimeout)
	}
	for _, home := range []string{homeA, homeB} {
		if got := run(home, "confirm", "show", id); !strings.Contains(got, "approved") {
			t.Errorf("confirm show %s through %s: %s", id, filepath.Base(home), got)
		}
	}
	for _, c := range []*console{a, b} {
		c.press("q", exitMarker)
	}
}
