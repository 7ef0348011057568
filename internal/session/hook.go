package session

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/events"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// Named refusals of a hook's input: a harness runs the hook, but what it
// writes on the hook's stdin carries text a model chose (a tool's input), so
// it is read bounded and checked like any other hostile input.
var (
	// ErrUnknownHookEvent: an event the hook table has no row for.
	ErrUnknownHookEvent = errors.New("unknown hook event")
	// ErrHookInput: the hook's JSON is not one object with the event and
	// the session named.
	ErrHookInput = errors.New("the hook's input is not the JSON object a harness sends")
	// ErrHookTooLarge: the hook's input is over MaxHookInput.
	ErrHookTooLarge = errors.New("the hook's input is over its limit")
	// ErrHookSession: the hook's input names another session than the
	// seat's, or another event than the command line.
	ErrHookSession = errors.New("the hook is not this seat's session")
)

// MaxHookInput bounds a hook's stdin: a tool call's input rides in it
// (Claude Code's PreToolUse), and a tool's arguments are bounded well
// below this by the hub's limits.
const MaxHookInput = 1 << 20

// HookStates is what each hook event says of the session's turn: the
// session state reported into presence, or "" for a heartbeat alone. One
// table for every harness that reports hooks (Claude Code's event names;
// a command harness uses the same).
var HookStates = map[string]events.SessionState{
	// A session that began (or resumed, or was cleared) waits at its
	// input line until a prompt arrives.
	"SessionStart":     events.SessionIdle,
	"UserPromptSubmit": events.SessionWorking,
	"PreToolUse":       events.SessionWorking,
	"PostToolUse":      events.SessionWorking,
	// A notification (a permission prompt, an idle reminder) changes no
	// turn: a persona waiting on a confirmation is told by the hub's count.
	"Notification": "",
	"Stop":         events.SessionIdle,
	"SessionEnd":   events.SessionEnded,
}

// Hook is what a hook's input says, the fields the supervisor reads.
type Hook struct {
	Event     string `json:"hook_event_name"`
	SessionID string `json:"session_id"`
	// Source is SessionStart's: startup, resume, clear or compact.
	Source string `json:"source,omitempty"`
}

// ReadHook reads the input of the hook of event (at most MaxHookInput
// bytes, one JSON object) and checks it names event and sessionID, the
// seat's session. It returns the state the event reports (HookStates).
func ReadHook(r io.Reader, event, sessionID string) (Hook, events.SessionState, error) {
	state, ok := HookStates[event]
	if !ok {
		return Hook{}, "", fmt.Errorf("%q: %w; the events are %s", event, ErrUnknownHookEvent, strings.Join(hookEvents(), ", "))
	}
	b, err := io.ReadAll(io.LimitReader(r, MaxHookInput+1))
	if err != nil {
		return Hook{}, "", fmt.Errorf("hook %s: read its input: %w", event, err)
	}
	if len(b) > MaxHookInput {
		return Hook{}, "", fmt.Errorf("hook %s: %w (%d bytes)", event, ErrHookTooLarge, MaxHookInput)
	}
	// Open, not closed: the input's shape is the harness's, and Claude
	// Code adds members (tool_input, transcript_path, cwd, ...) from one
	// release to the next; refusing them would stop every report. A name
	// twice, another case or invalid UTF-8 is still refused.
	var h Hook
	if err := strictjson.DecodeOpen(b, &h); err != nil {
		return Hook{}, "", fmt.Errorf("hook %s: %w: %v", event, ErrHookInput, err)
	}
	switch {
	case h.SessionID == "":
		return Hook{}, "", fmt.Errorf("hook %s: %w: no session_id", event, ErrHookInput)
	case h.Event != "" && h.Event != event:
		return Hook{}, "", fmt.Errorf("hook %s: %w: its input is another event's", event, ErrHookSession)
	case h.SessionID != sessionID:
		return Hook{}, "", fmt.Errorf("hook %s: %w: its input names another session than the seat's %s", event, ErrHookSession, sessionID)
	}
	h.Event = event
	return h, state, nil
}

// hookEvents are HookStates' events, sorted.
func hookEvents() []string {
	out := make([]string, 0, len(HookStates))
	for e := range HookStates {
		out = append(out, e)
	}
	slices.Sort(out)
	return out
}
