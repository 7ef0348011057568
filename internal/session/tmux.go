package session

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/harness"
	"github.com/virgo-hub/virgo-tui/internal/private"
)

// Named refusals of the supervisor.
var (
	// ErrNoTmux: tmux is not installed; resident sessions run in it.
	ErrNoTmux = errors.New("tmux is not on PATH (resident sessions run in tmux): install it (apt-get install tmux, brew install tmux)")
	// ErrRunning: the seat's session runs already; a seat has one session.
	ErrRunning = errors.New("the seat's session is already running")
	// ErrNotRunning: the seat has no session in tmux.
	ErrNotRunning = errors.New("the seat has no session")
)

// tmuxConf is the home's tmux server configuration, read when the server
// starts (-f): a pane that exits stays, dead, so its exit status and last
// lines can be shown; nothing of the user's ~/.tmux.conf is read.
const tmuxConf = `set -g remain-on-exit on
set -g history-limit 5000
`

// Tmux is the tmux server of one home: its own socket name (-L), so the
// home's sessions are apart from the user's and from another home's.
type Tmux struct {
	bin    string
	socket string
	conf   string
}

// ForHome is the tmux server of home, ErrNoTmux when tmux is missing.
func ForHome(home string) (Tmux, error) {
	bin, err := exec.LookPath("tmux")
	if err != nil {
		return Tmux{}, ErrNoTmux
	}
	abs, err := filepath.Abs(home)
	if err != nil {
		return Tmux{}, err
	}
	sum := sha256.Sum256([]byte(abs))
	return Tmux{bin: bin, socket: "virgo-" + hex.EncodeToString(sum[:6]), conf: filepath.Join(harness.SessionsDir(abs), "tmux.conf")}, nil
}

// Socket is the server's socket name (tmux -L).
func (t Tmux) Socket() string { return t.socket }

// command is a tmux command on the home's server. Its environment is this
// process's without the variables of virgo's own principal and token
// ($VIRGO_*) and of an enclosing tmux: the server it may start keeps that
// environment for every session.
func (t Tmux) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, t.bin, append([]string{"-L", t.socket, "-f", t.conf}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "VIRGO_") && !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	return cmd
}

// run runs a tmux command, its stderr in the error.
func (t Tmux) run(ctx context.Context, args ...string) ([]byte, error) {
	var stderr bytes.Buffer
	cmd := t.command(ctx, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("tmux %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// Pane is what tmux says of a session's one pane.
type Pane struct {
	Name string `json:"name"`
	PID  int    `json:"pid"`
	// Dead says the harness exited and tmux collected how: Status is its
	// exit status, or Signal the signal that ended it.
	Dead   bool `json:"dead"`
	Status int  `json:"status"`
	Signal int  `json:"signal,omitempty"`
	// Attached counts the clients attached to the session (an operator).
	Attached int `json:"attached"`
}

// Panes lists the sessions of the home's server, by name; none when the
// server does not run.
func (t Tmux) Panes(ctx context.Context) (map[string]Pane, error) {
	out, err := t.run(ctx, "list-panes", "-a", "-F", "#{session_name}\t#{pane_pid}\t#{pane_dead}\t#{pane_dead_status}\t#{pane_dead_signal}\t#{session_attached}")
	if err != nil {
		if msg := err.Error(); strings.Contains(msg, "no server running") || strings.Contains(msg, "error connecting") {
			return map[string]Pane{}, nil
		}
		return nil, err
	}
	panes := map[string]Pane{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			continue
		}
		// The harness ended when tmux has reaped it: its status or its
		// signal is known. Not #{pane_dead} alone: that is the terminal
		// closing, which comes before the reaping, and not at all while a
		// child the harness left behind still holds the terminal.
		p := Pane{Name: f[0], Dead: f[3] != "" || f[4] != ""}
		p.PID, _ = strconv.Atoi(f[1])
		p.Status, _ = strconv.Atoi(f[3])
		p.Signal, _ = strconv.Atoi(f[4])
		p.Attached, _ = strconv.Atoi(f[5])
		if !p.Dead {
			p.Dead, p.Status, p.Signal = exited(p.PID)
		}
		panes[p.Name] = p
	}
	return panes, nil
}

// exited reads from /proc whether pid is a zombie — exited, not yet reaped
// — and how it ended. tmux's server now and then leaves its pane's process
// unreaped for many seconds (seen with tmux 3.3a under load: the harness
// <defunct> under the server, #{pane_dead_status} empty), and a harness that
// has exited must not be listed running meanwhile. The exit code is field
// 52 of /proc/PID/stat (Linux 3.5 and later), in waitpid's form.
func exited(pid int) (dead bool, status, signal int) {
	if pid <= 0 {
		return false, 0, 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false, 0, 0
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return false, 0, 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 50 || f[0] != "Z" {
		return false, 0, 0
	}
	code, err := strconv.Atoi(f[49])
	if err != nil {
		return true, 0, 0
	}
	if sig := code & 0x7f; sig != 0 {
		return true, 0, sig
	}
	return true, (code >> 8) & 0xff, 0
}

// Pane is the pane of the session name, ErrNotRunning when there is none.
func (t Tmux) Pane(ctx context.Context, name string) (Pane, error) {
	ps, err := t.Panes(ctx)
	if err != nil {
		return Pane{}, err
	}
	p, ok := ps[name]
	if !ok {
		return Pane{}, fmt.Errorf("%s: %w", name, ErrNotRunning)
	}
	return p, nil
}

// Start runs argv as the session name in dir, detached, with env added.
// A session of that name that exited (its pane dead) is started again in
// its pane; one that runs is ErrRunning.
func (t Tmux) Start(ctx context.Context, name, dir string, env, argv []string) error {
	if err := private.Replace(t.conf, []byte(tmuxConf)); err != nil {
		return err
	}
	// A dead session is respawned, not killed and created again: killing
	// the server's last session ends the server, and a new-session sent
	// while it ends fails with "server exited unexpectedly".
	args := []string{"new-session", "-d", "-s", name, "-x", "200", "-y", "50"}
	switch p, err := t.Pane(ctx, name); {
	case errors.Is(err, ErrNotRunning):
	case err != nil:
		return err
	case !p.Dead:
		return fmt.Errorf("%s (pid %d): %w", name, p.PID, ErrRunning)
	default:
		// -k: tmux may not have reaped the harness yet (see exited).
		args = []string{"respawn-pane", "-k", "-t", "=" + name + ":"}
	}
	args = append(args, "-c", dir)
	for _, kv := range env {
		args = append(args, "-e", kv)
	}
	// One shell word list, exec'd by sh: tmux runs a single argument
	// through sh -c, and exec leaves the harness as the pane's process, so
	// its exit status is the pane's.
	args = append(args, "exec "+harness.ShellLine(argv))
	_, err := t.run(ctx, args...)
	return err
}

// Stop ends the session name: its process group is hung up (tmux
// kill-session) and Stop waits, up to wait, for the harness to exit; a
// harness still running then is killed.
func (t Tmux) Stop(ctx context.Context, name string, wait time.Duration) (Pane, error) {
	p, err := t.Pane(ctx, name)
	if err != nil {
		return Pane{}, err
	}
	if _, err := t.run(ctx, "kill-session", "-t", "="+name); err != nil {
		return p, err
	}
	if p.Dead || p.PID <= 0 {
		return p, nil
	}
	deadline := time.Now().Add(wait)
	for syscall.Kill(p.PID, 0) == nil {
		if time.Now().After(deadline) {
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return p, nil
}

// LastLines are the last n non-empty lines of the session's pane — a dead
// pane's are what the harness wrote before it exited. They are the
// harness's output, unsanitized: print them through termtext.
func (t Tmux) LastLines(ctx context.Context, name string, n int) ([]string, error) {
	out, err := t.run(ctx, "capture-pane", "-p", "-J", "-t", "="+name+":", "-S", "-200")
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		// tmux's own line under a dead pane is not the harness's.
		if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "Pane is dead (") {
			lines = append(lines, strings.TrimRight(l, " "))
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines, nil
}

// Attach is the command that attaches the terminal to the session name;
// it returns when the operator detaches (C-b d) or the session ends.
func (t Tmux) Attach(name string) *exec.Cmd {
	return t.command(context.Background(), "attach-session", "-t", "="+name)
}

// Type sends text and Enter to the session name, as keys, after clearing
// its input: C-u (kill to the start of the line) and BSpace (join the line
// above) for as many lines as lost wakes can have left (WakeTries), so text
// typed again after its Enter was lost, or became a new line, replaces
// itself instead of doubling. On an empty input these keys do nothing; in
// Claude Code ctrl+y brings killed text back, and a terminal's line
// discipline reads them as kill and erase.
func (t Tmux) Type(ctx context.Context, name, text string) error {
	target := "=" + name + ":"
	clear := []string{"C-u"}
	for range WakeTries {
		clear = append(clear, "BSpace", "C-u")
	}
	for i, keys := range [][]string{clear, {"-l", text}, {"Enter"}} {
		if i == 2 {
			// Keys that arrive together read as a paste, and an Enter
			// inside the paste's window joins the paste as a new line
			// instead of sending it: Claude Code commits a paste 100 ms
			// after its last key, Codex 120 ms. So the Enter waits.
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(EnterDelay):
			}
		}
		if _, err := t.run(ctx, append([]string{"send-keys", "-t", target}, keys...)...); err != nil {
			return err
		}
	}
	return nil
}

// EnterDelay is how long Type waits between the text and its Enter: past
// the paste windows of the harnesses in the table (100–120 ms).
const EnterDelay = 300 * time.Millisecond
