package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Screen size of every run: the size the README screenshots are taken at.
const (
	termWidth  = 120
	termHeight = 40
)

// exitMarker is printed by the pane's shell when the program ends, so that
// a test can see the exit status on the screen after the console is gone.
const exitMarker = "virgo-tui exited with status "

// The console's decision keys act only on a row that has been selected and
// on screen for the arming time (600 ms), and the demo's runtimes ask for
// confirmations about once a second, so a row can slide under the cursor
// just before a key. The test therefore types like a careful operator:
// each key press (or typed word) waits until quiet has passed since the
// previous one, so the row it selected is armed. A press that still shows
// nothing within retryAfter (a row moved just before it) is sent again.
const (
	quiet      = 1100 * time.Millisecond
	retryAfter = 2 * time.Second
)

// keyTries bounds how often one key press is repeated.
const keyTries = 6

// term is one program running in a detached session of a private tmux
// server (its own socket, `tmux -L`), so a test never touches the user's
// tmux server and the server ends with the test.
type term struct {
	t      *testing.T
	socket string
	// stderr is where the program's standard error went (printed on failure).
	stderr string
	// logs are more files worth printing on failure (the console's log).
	logs []string
	// sent is when the last key went out.
	sent time.Time
}

// startTerm runs argv with env added in a width×height tmux pane. The pane
// stays open after the program ends and shows exitMarker and its status.
func startTerm(t *testing.T, dir string, env []string, argv ...string) *term {
	t.Helper()
	conf := filepath.Join(dir, "tmux.conf")
	// No status line (the pane is the whole 120×40 screen), no user config.
	if err := os.WriteFile(conf, []byte("set -g status off\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tm := &term{t: t, socket: fmt.Sprintf("virgo-e2e-%d-%d", os.Getpid(), time.Now().UnixNano()),
		stderr: filepath.Join(dir, "stderr.txt")}
	words := []string{"env"}
	for _, e := range append(env, argv...) {
		words = append(words, shellQuote(e))
	}
	script := strings.Join(words, " ") + " 2>" + shellQuote(tm.stderr) +
		"; echo " + shellQuote(exitMarker) + "$?; sleep 600"
	t.Cleanup(func() { _ = tm.tmux("kill-server") })
	if out, err := tm.tmuxOut("-f", conf, "new-session", "-d", "-s", "e2e",
		"-x", fmt.Sprint(termWidth), "-y", fmt.Sprint(termHeight), script); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	return tm
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func (tm *term) tmux(args ...string) error {
	_, err := tm.tmuxOut(args...)
	return err
}

func (tm *term) tmuxOut(args ...string) ([]byte, error) {
	cmd := exec.Command("tmux", append([]string{"-L", tm.socket}, args...)...)
	// A test run inside tmux must not talk to the enclosing server.
	cmd.Env = withoutVar(os.Environ(), "TMUX")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.Bytes(), err
}

func withoutVar(env []string, name string) []string {
	out := env[:0:0]
	for _, e := range env {
		if !strings.HasPrefix(e, name+"=") {
			out = append(out, e)
		}
	}
	return out
}

// screen is the pane's text as the operator sees it (no colours).
func (tm *term) screen() string {
	out, err := tm.tmuxOut("capture-pane", "-p", "-t", "e2e")
	if err != nil {
		return fmt.Sprintf("(capture-pane failed: %v: %s)", err, out)
	}
	return string(out)
}

// screenANSI is the pane with its colours, for the screenshots.
func (tm *term) screenANSI() string {
	out, err := tm.tmuxOut("capture-pane", "-p", "-e", "-t", "e2e")
	if err != nil {
		tm.fatalf("capture-pane -e: %v: %s", err, out)
	}
	return string(out)
}

// settle waits until quiet has passed since the last key.
func (tm *term) settle() {
	time.Sleep(time.Until(tm.sent.Add(quiet)))
}

// keys sends tmux key names ("Enter", "Escape", "C-u") or single characters.
func (tm *term) keys(keys ...string) {
	tm.t.Helper()
	tm.settle()
	defer func() { tm.sent = time.Now() }()
	if out, err := tm.tmuxOut(append([]string{"send-keys", "-t", "e2e"}, keys...)...); err != nil {
		tm.fatalf("send-keys %q: %v: %s", keys, err, out)
	}
}

// text types s literally.
func (tm *term) text(s string) {
	tm.t.Helper()
	tm.settle()
	defer func() { tm.sent = time.Now() }()
	if out, err := tm.tmuxOut("send-keys", "-t", "e2e", "-l", s); err != nil {
		tm.fatalf("send-keys -l %q: %v: %s", s, err, out)
	}
}

// poll calls ok on the screen every 100 ms until it holds or d passes; it
// returns the last screen and whether ok held.
func (tm *term) poll(d time.Duration, ok func(string) bool) (string, bool) {
	deadline := time.Now().Add(d)
	for {
		s := tm.screen()
		if ok(s) {
			return s, true
		}
		if time.Now().After(deadline) {
			return s, false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitFor waits until the screen shows want, and fails the test if it does
// not within d.
func (tm *term) waitFor(want string, d time.Duration) string {
	tm.t.Helper()
	s, ok := tm.poll(d, func(s string) bool { return strings.Contains(s, want) })
	if !ok {
		tm.fatalf("waited %s for %q", d, want)
	}
	return s
}

// waitMatch waits until re matches the screen and returns the submatches.
func (tm *term) waitMatch(re *regexp.Regexp, d time.Duration) []string {
	tm.t.Helper()
	s, ok := tm.poll(d, re.MatchString)
	if !ok {
		tm.fatalf("waited %s for /%s/", d, re)
	}
	return re.FindStringSubmatch(s)
}

// press sends key until the screen shows want: a decision key on a row
// that was not armed yet shows nothing of want and is sent again. Use it only for keys that
// are harmless when repeated after they took effect, or whose effect shows
// before retryAfter. (capture-pane drops trailing blanks: want must not
// end in one.)
func (tm *term) press(key, want string) string {
	tm.t.Helper()
	return tm.pressUntil(key, fmt.Sprintf("show %q", want), func(s string) bool { return strings.Contains(s, want) })
}

// pressUntil sends key until the screen satisfies ok (described by what).
func (tm *term) pressUntil(key, what string, ok func(string) bool) string {
	tm.t.Helper()
	for i := range keyTries {
		tm.keys(key)
		if s, done := tm.poll(retryAfter, ok); done {
			return s
		}
		tm.t.Logf("key %q (try %d) did not %s yet; sending it again", key, i+1, what)
	}
	tm.fatalf("pressed %q %d times and the screen did not %s", key, keyTries, what)
	return ""
}

// typeIn types s into the focused input until the screen shows want; when
// it does not (the field was not open yet) it clears the input (ctrl+u) and
// types it again.
func (tm *term) typeIn(s, want string) {
	tm.t.Helper()
	for i := range keyTries {
		tm.text(s)
		if _, ok := tm.poll(retryAfter, func(scr string) bool { return strings.Contains(scr, want) }); ok {
			return
		}
		tm.t.Logf("typed %q (try %d) and the screen does not show %q; clearing and typing again", s, i+1, want)
		tm.keys("C-u")
	}
	tm.fatalf("typed %q %d times and the screen never showed %q", s, keyTries, want)
}

// fatalf fails the test with the last screen, the program's stderr and the
// tail of its logs.
func (tm *term) fatalf(format string, args ...any) {
	tm.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, format, args...)
	fmt.Fprintf(&b, "\n--- last screen (%d×%d) ---\n%s", termWidth, termHeight, tm.screen())
	for _, f := range append([]string{tm.stderr}, tm.logs...) {
		if data, err := os.ReadFile(f); err == nil && len(data) > 0 {
			fmt.Fprintf(&b, "--- %s (tail) ---\n%s\n", filepath.Base(f), tail(data, 3000))
		}
	}
	tm.t.Fatal(b.String())
}

func tail(data []byte, n int) string {
	if len(data) > n {
		data = data[len(data)-n:]
	}
	return string(data)
}
