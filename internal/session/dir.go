// Package session is the supervisor of persona sessions: a harness (a row of
// internal/harness) running as a resident interactive session in tmux, on a
// tmux server of the home's own, one session per seat. It writes a session's
// configuration into the session's private directory, starts, stops and
// lists sessions, tells a session that exited from one that runs (its exit
// status and last lines), and types a wake prompt into an idle one. It knows
// no rule: what a session may do is its stamp's, decided by the hub.
package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/harness"
	"github.com/virgo-hub/virgo-tui/internal/private"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// Files of a session directory besides its harness's configuration.
const (
	// RecordFile is the session's record (Record).
	RecordFile = "session.json"
	// TurnedFile records that the harness ran a turn under the session's
	// id, so its transcript exists and the next start resumes it.
	TurnedFile = "turned"
)

// Record is what a session directory says of the session last started in
// it: enough for list to name it while tmux holds the rest.
type Record struct {
	Address   string    `json:"address"`
	Harness   string    `json:"harness"`
	Program   string    `json:"program"`
	SessionID string    `json:"session_id"`
	Workdir   string    `json:"workdir"`
	Started   time.Time `json:"started"`
	// MCPClientOnly is the operator's statement a command harness was
	// started under (harness.Session.MCPClientOnly).
	MCPClientOnly bool `json:"mcp_client_only,omitempty"`
	// Fence is the instance fence the session claimed at its start: its
	// hooks and its stop present it (a stop from another shell too).
	Fence string `json:"fence"`
}

// Prepare makes the private directory of the session of address in home
// (<home>/sessions/<name>, 0700) and returns it.
func Prepare(home, address string) (string, error) {
	if err := private.Dir(harness.SessionsDir(home)); err != nil {
		return "", fmt.Errorf("session of %s: %w", address, err)
	}
	dir := harness.Dir(home, address)
	if err := private.Dir(dir); err != nil {
		return "", fmt.Errorf("session of %s: %w", address, err)
	}
	return dir, nil
}

// Write puts a launch's files and the session's record into its directory,
// each 0600, replacing what an earlier start wrote.
func Write(dir string, l harness.Launch, rec Record) error {
	for _, f := range l.Files {
		rel, err := filepath.Rel(dir, f.Path)
		if err != nil || !filepath.IsLocal(rel) {
			return fmt.Errorf("%w: %s is not in the session directory %s", private.ErrUnsafe, f.Path, dir)
		}
		var subs []string // the directories between dir and the file, deepest first
		for sub := filepath.Dir(f.Path); sub != dir; sub = filepath.Dir(sub) {
			subs = append(subs, sub)
		}
		for i := len(subs) - 1; i >= 0; i-- {
			if err := private.Dir(subs[i]); err != nil {
				return err
			}
		}
		content := []byte(f.Content)
		if f.Merge {
			if content, err = merged(f.Path, content); err != nil {
				return err
			}
		}
		if err := private.Replace(f.Path, content); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return private.Replace(filepath.Join(dir, RecordFile), append(b, '\n'))
}

// MaxMerged bounds a harness's own state file that a launch merges into.
const MaxMerged = 8 << 20

// merged is the JSON object at path (the harness's own state, when it
// exists) with ours merged into it, ours winning key by key at every depth.
func merged(path string, ours []byte) ([]byte, error) {
	var add map[string]any
	if err := strictjson.Decode(ours, &add); err != nil {
		return nil, err
	}
	b, err := private.ReadFileMax(path, MaxMerged)
	if errors.Is(err, fs.ErrNotExist) {
		return ours, nil
	}
	if err != nil {
		return nil, err
	}
	var have map[string]any
	if err := strictjson.Decode(b, &have); err != nil || have == nil {
		return nil, fmt.Errorf("%s: not the JSON object the harness keeps (%v): move it away to start afresh", path, err)
	}
	mergeInto(have, add)
	return json.MarshalIndent(have, "", "  ")
}

// mergeInto puts add's keys into have, objects merged, anything else replaced.
func mergeInto(have, add map[string]any) {
	for k, v := range add {
		sub, ok := v.(map[string]any)
		if old, isMap := have[k].(map[string]any); ok && isMap {
			mergeInto(old, sub)
			continue
		}
		have[k] = v
	}
}

// ReadRecord reads the record of the session directory dir.
func ReadRecord(dir string) (Record, error) {
	b, err := private.ReadFile(filepath.Join(dir, RecordFile))
	if err != nil {
		return Record{}, err
	}
	var r Record
	if err := strictjson.Decode(b, &r); err != nil {
		return Record{}, fmt.Errorf("%s: %w", filepath.Join(dir, RecordFile), err)
	}
	return r, nil
}

// Turned says the harness ran a turn in the session of dir: its transcript
// exists, so it is resumed rather than named anew.
func Turned(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, TurnedFile))
	return err == nil
}

// MarkTurned records that the harness ran a turn under the session's id.
func MarkTurned(dir, sessionID string) error {
	err := private.Create(filepath.Join(dir, TurnedFile), []byte(sessionID+"\n"))
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	return err
}
