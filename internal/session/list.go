package session

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/virgo-hub/virgo-tui/internal/harness"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

// The states of a session as the supervisor sees it in tmux.
const (
	// StateRunning: the harness runs in its tmux session.
	StateRunning = "running"
	// StateExited: the harness exited on its own; Status and LastLines say
	// how. `session start` resumes it.
	StateExited = "exited"
	// StateStopped: no tmux session (stopped, or never started on this
	// host since a reboot).
	StateStopped = "stopped"
)

// LastLinesShown is how many of an exited harness's last lines are kept.
const LastLinesShown = 8

// maxLine bounds one of the last lines kept, in bytes.
const maxLine = 240

// cut is s cut to at most n bytes, at a rune's start.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Info is one session of a home.
type Info struct {
	Record
	State string `json:"state"`
	// Status is an exited harness's exit status, Signal the signal that
	// ended it.
	Status   int `json:"status,omitempty"`
	Signal   int `json:"signal,omitempty"`
	PID      int `json:"pid,omitempty"`
	Attached int `json:"attached,omitempty"`
	// LastLines are an exited harness's last lines, cleaned for a terminal.
	LastLines []string `json:"last_lines,omitempty"`
	// Turned says the next start resumes the session.
	Turned bool `json:"turned"`
}

// List is every session recorded in home, in name order, with its state in
// the home's tmux server.
func List(ctx context.Context, home string, t Tmux) ([]Info, error) {
	ents, err := os.ReadDir(harness.SessionsDir(home))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	panes, err := t.Panes(ctx)
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(harness.SessionsDir(home), e.Name())
		rec, err := ReadRecord(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue // prepared, never started
		}
		if err != nil {
			return nil, err
		}
		in := Info{Record: rec, State: StateStopped, Turned: Turned(dir)}
		if p, ok := panes[harness.SessionName(rec.Address)]; ok {
			in.PID, in.Attached = p.PID, p.Attached
			in.State = StateRunning
			if p.Dead {
				in.State, in.Status, in.Signal = StateExited, p.Status, p.Signal
				lines, err := t.LastLines(ctx, p.Name, LastLinesShown)
				if err != nil {
					return nil, err
				}
				for _, l := range lines {
					in.LastLines = append(in.LastLines, termtext.Clean(cut(l, maxLine)))
				}
			}
		}
		out = append(out, in)
	}
	return out, nil
}
