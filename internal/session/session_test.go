package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/events"

	"github.com/virgo-hub/virgo-tui/internal/harness"
)

const sid = "a94d7e4d-a7c3-521b-a610-5f736ac92276"

// A hook's input is a model's text in part: each wrong input is refused
// with its named error, and a right one reports its event's state. A
// member the harness adds that the supervisor does not read (tool_input)
// is no error: the input's shape is the harness's, not ours.
func TestReadHookRefusesHostileInput(t *testing.T) {
	for _, c := range []struct {
		name, event, in string
		want            error
	}{
		{"unknown event", "Evil", `{"session_id":"` + sid + `"}`, ErrUnknownHookEvent},
		{"not JSON", "Stop", `Stop`, ErrHookInput},
		{"not an object", "Stop", `["` + sid + `"]`, ErrHookInput},
		{"two objects", "Stop", `{"session_id":"` + sid + `"} {}`, ErrHookInput},
		{"no session", "Stop", `{"hook_event_name":"Stop"}`, ErrHookInput},
		{"another session", "Stop", `{"session_id":"b94d7e4d-a7c3-521b-a610-5f736ac92276"}`, ErrHookSession},
		{"another event", "Stop", `{"session_id":"` + sid + `","hook_event_name":"UserPromptSubmit"}`, ErrHookSession},
		{"invalid UTF-8", "PreToolUse", "{\"session_id\":\"" + sid + "\",\"tool_input\":{\"command\":\"rm \xff\"}}", ErrHookInput},
		{"the session twice", "Stop", `{"session_id":"b94d7e4d-a7c3-521b-a610-5f736ac92276","session_id":"` + sid + `"}`, ErrHookInput},
		{"the session in other case", "Stop", `{"Session_ID":"` + sid + `"}`, ErrHookInput},
		{"too large", "PreToolUse", `{"session_id":"` + sid + `","tool_input":"` + strings.Repeat("x", MaxHookInput) + `"}`, ErrHookTooLarge},
	} {
		if _, _, err := ReadHook(strings.NewReader(c.in), c.event, sid); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	for event, want := range map[string]events.SessionState{"SessionStart": events.SessionIdle, "UserPromptSubmit": events.SessionWorking,
		"PreToolUse": events.SessionWorking, "Stop": events.SessionIdle, "SessionEnd": events.SessionEnded, "Notification": ""} {
		in := `{"session_id":"` + sid + `","hook_event_name":"` + event + `","tool_input":{"x":"\u001b[2J"}}`
		if _, got, err := ReadHook(strings.NewReader(in), event, sid); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", event, got, err, want)
		}
	}
}

// A launch's files go into the session's private directory; the file the
// harness keeps state in is merged into, never written over.
func TestWriteMergesTheHarnessesOwnState(t *testing.T) {
	home := t.TempDir()
	dir, err := Prepare(home, "work/core/lead")
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "claude", ".claude.json")
	l := harness.Launch{Files: []harness.File{{Path: filepath.Join(dir, "mcp.json"), Content: "{}\n"},
		{Path: state, Content: `{"hasCompletedOnboarding": true, "projects": {"/w": {"hasTrustDialogAccepted": true}}}`, Merge: true}}}
	if err := Write(dir, l, Record{Address: "work/core/lead"}); err != nil {
		t.Fatal(err)
	}
	// The harness writes its own keys beside ours.
	if err := os.WriteFile(state, []byte(`{"userID": "u-1", "hasCompletedOnboarding": false, "projects": {"/w": {"history": [1]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, l, Record{Address: "work/core/lead"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(state)
	var got struct {
		UserID                 string
		HasCompletedOnboarding bool
		Projects               map[string]map[string]any
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.UserID != "u-1" || !got.HasCompletedOnboarding || got.Projects["/w"]["history"] == nil || got.Projects["/w"]["hasTrustDialogAccepted"] != true {
		t.Fatalf("merged state %s", b)
	}
	for _, p := range []string{dir, filepath.Dir(state)} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v; want 0700", p, fi, err)
		}
	}
	outside := harness.Launch{Files: []harness.File{{Path: filepath.Join(home, "elsewhere.json"), Content: "{}"}}}
	if err := Write(dir, outside, Record{}); err == nil {
		t.Error("a file outside the session directory was written")
	}
	if rec, err := ReadRecord(dir); err != nil || rec.Address != "work/core/lead" {
		t.Errorf("record %+v, %v", rec, err)
	}
}

// A harness that exits is listed exited with how it ended — its status, or
// the signal that killed it — once tmux has collected it, never as a
// status 0 it did not have; its last lines are what its terminal shows
// (tmux interprets escape sequences; what is left is cleaned), without
// tmux's own line under a dead pane.
func TestListTellsHowAHarnessEnded(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	home := t.TempDir()
	tm, err := ForHome(home)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", tm.Socket(), "kill-server").Run() })
	ctx := context.Background()
	for address, argv := range map[string][]string{
		// Each pauses after its last words: tmux 3.3a now and then drops
		// what a pane's process wrote in the instant before it exited
		// (docs/sessions.md), and this test is about how the exit reads.
		"work/core/lead":   {"sh", "-c", "printf 'bye\\033[2J\\n'; sleep 0.3; exit 3"},
		"work/core/deputy": {"sh", "-c", "echo killed; sleep 0.3; kill -9 $$"},
		// A child left behind holds the terminal: the harness ended all the same.
		"work/coordinator": {"sh", "-c", "sleep 30 & echo orphan; sleep 0.3; exit 4"},
	} {
		dir, err := Prepare(home, address)
		if err != nil {
			t.Fatal(err)
		}
		if err := Write(dir, harness.Launch{}, Record{Address: address, Harness: "command"}); err != nil {
			t.Fatal(err)
		}
		if err := tm.Start(ctx, harness.SessionName(address), home, nil, argv); err != nil {
			t.Fatal(err)
		}
	}
	// tmux knows a harness ended (its status, or the zombie in /proc)
	// before it has read the last of its output from the terminal, so a
	// list right after the exit may show fewer last lines than a moment
	// later: the story is complete once every harness reads as exited with
	// its lines, within the deadline.
	deadline := time.Now().Add(5 * time.Second)
	for {
		ss, err := List(ctx, home, tm)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]Info{}
		for _, s := range ss {
			got[s.Address] = s
		}
		lead, deputy, coord := got["work/core/lead"], got["work/core/deputy"], got["work/coordinator"]
		var wrong []string
		if coord.State != StateExited || coord.Status != 4 || !slices.Equal(coord.LastLines, []string{"orphan"}) {
			wrong = append(wrong, fmt.Sprintf("the harness that left a child behind: %+v", coord))
		}
		if lead.State != StateExited || lead.Status != 3 || lead.Signal != 0 || !slices.Equal(lead.LastLines, []string{"bye"}) {
			wrong = append(wrong, fmt.Sprintf("the harness that exited 3: %+v", lead))
		}
		if deputy.State != StateExited || deputy.Signal != 9 || !slices.Equal(deputy.LastLines, []string{"killed"}) {
			wrong = append(wrong, fmt.Sprintf("the harness killed by signal 9: %+v", deputy))
		}
		if len(wrong) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(strings.Join(wrong, "\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
