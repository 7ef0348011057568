package session

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/events"

	"github.com/virgo-hub/virgo-tui/internal/harness"
)

const sid = "a94d7e4d-a7c3-521b-a610-5f736ac92276"

// A hook's input is a model's text in part: each wrong input is refused
// with its named error, and a right one reports its event's state.
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
