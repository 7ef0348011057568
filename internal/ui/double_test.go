package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// t0 is the fixed clock of every test: ages are stable in golden files.
var t0 = time.Date(2026, 8, 4, 12, 0, 0, 0, time.UTC)

// hubDouble is the test double of the Client: the hub cannot run in this
// package's tests (ui must not import it). It records every Decide and
// counts every call.
type hubDouble struct {
	mu        sync.Mutex
	snap      Snapshot
	decisions []decideCall
	decideErr error
	calls     int
}

// called counts one call of the Client.
func (h *hubDouble) called() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls++
}

// callCount is how many Client calls were made.
func (h *hubDouble) callCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls
}

type decideCall struct {
	id string
	d  Decision
}

func (h *hubDouble) Snapshot(context.Context) (Snapshot, error) {
	h.called()
	return h.snap, nil
}

func (h *hubDouble) Subscribe(context.Context, uint64) (<-chan Batch, error) {
	h.called()
	return make(chan Batch), nil
}

func (h *hubDouble) Decide(_ context.Context, id string, d Decision) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls++
	h.decisions = append(h.decisions, decideCall{id, d})
	return h.decideErr
}

func (h *hubDouble) approvals() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, c := range h.decisions {
		if c.d.Approve {
			n++
		}
	}
	return n
}

var errExpired = errors.New("confirmation c-1 expired at 12:05; ask the requester to retry")

// demoSnapshot is a small installation: five personas and four
// confirmations (two for the operator, one for a lead, one unroutable).
func demoSnapshot() Snapshot {
	p := func(id, addr, name, class string, gen int, st PresenceState, act, sum string, seen time.Duration, wait int) Persona {
		return Persona{ID: id, Address: addr, Name: name, Class: class, Generation: gen, State: st, Activity: act,
			Summary: sum, LastSeen: t0.Add(-seen), Waiting: wait, StampHash: "sha256:" + strings.Repeat(id[:1], 12),
			StampSummary: class + ", 31 tools, 1 confirm",
			Bindings:     []Binding{{Kind: "authority", Target: "human:henry"}, {Kind: "workspace", Target: "ws-" + id}},
			Seats:        []SeatRecord{{Generation: gen, Name: name, State: "active", From: t0.Add(-72 * time.Hour)}}}
	}
	c := func(id, req, auth, boundary, tool, action, target, shape string, age, left time.Duration) Confirmation {
		return Confirmation{ID: id, CorrelationID: "corr-" + id, Requester: req, Authority: auth, Boundary: boundary,
			Operation: req + "#1 " + tool + " (" + action + ") " + shape + " on " + target,
			Tool:      tool, Target: target, Shape: shape, Action: action,
			StampHash: "sha256:abc" + id, Created: t0.Add(-age), Expires: t0.Add(left)}
	}
	perm := c("c-2", "work/core/deputy", "human:henry", "credential-or-permission-change", "virgo.persona.activate", "registry.activate",
		"address:work/core/deputy", "permission:change", 3*time.Minute, 12*time.Minute)
	perm.MatrixDiff = "+ runs and artifacts: R/W (assigned task)\n- tasks: assign"
	perm.Remember = RememberRule{Refusal: "remember c-2 (activation  at credential-or-permission-change): an activation grants a new " +
		"stamp's permissions; each is reviewed by the bound human: this confirmation cannot be remembered"}
	publish := c("c-1", "work/core/lead", "human:henry", "external-publication-or-deployment", "publish_deployment_v1", "deploy.publish",
		"external:https://registry.example.org/virgo/releases/v1.2.0/virgo-tui_linux_amd64.tar.gz", "publish:external", 10*time.Minute, 5*time.Minute)
	publish.Remember = RememberRule{Overlay: OverlayPersona,
		Key:    "sha256:9f2c4e1a7b3d5f60718293a4b5c6d7e8f90112233445566778899aabbccddeeff",
		Action: publish.Action, Target: publish.Target, Shape: publish.Shape}
	return Snapshot{
		Installation: "demo", Home: "/home/henry/.virgo", Operator: "human:henry", Seq: 10,
		Personas: []Persona{
			p("p1", "root/secretary", "Spica", "secretary", 1, PresenceActive, "routing", "relaying the owner's decisions", 5*time.Second, 0),
			p("p2", "work/coordinator", "Vindemiatrix", "team-coordinator", 2, PresenceIdle, "waiting", "lane review at 14:00", 3*time.Minute, 1),
			p("p3", "work/core/lead", "Porrima", "project-lead", 1, PresenceStale, "reviewing", "core release notes", 40*time.Minute, 0),
			p("p4", "work/core/deputy", "Zavijava", "coder-deputy", 1, PresenceOffline, "", "", 26*time.Hour, 2),
			p("p5", "home/secretary", "Heze", "secretary", 3, PresenceRetired, "", "retired", 30*24*time.Hour, 0),
		},
		Confirmations: []Confirmation{
			publish,
			perm,
			c("c-3", "work/core/deputy", "work/core/lead", "destructive-or-irreversible", "advance_run", "run.advance",
				"run:work/core/t-12/r-3", "delete", 20*time.Minute, 40*time.Minute),
			c("c-4", "home/secretary", "", "credential-or-permission-change", "workspace_write", "workspace.write",
				"path:memory/credentials/gateway-token-rotation-schedule.md", "credential:change", time.Minute, time.Hour),
		},
	}
}

// console builds a loaded console at a size with a fixed clock.
func console(t testing.TB, h *hubDouble, width, height int, opts ...Options) *Model {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	o.Now = func() time.Time { return t0 }
	m := New(h, o)
	m.Update(tea.WindowSizeMsg{Width: width, Height: height})
	snap, _ := h.Snapshot(context.Background())
	m.Update(snapshotMsg{snap: snap})
	m.Update(subscribedMsg{})
	return m
}

// setClock moves the console's clock.
func setClock(m *Model, t time.Time) { m.now = func() time.Time { return t } }

// advance moves the console's clock forward by d.
func advance(m *Model, d time.Duration) { setClock(m, m.now().Add(d)) }

// look is the operator looking at the selected row for the arming time, so
// that a decision key acts on it. A tick is delivered as it would be.
func look(m *Model) {
	advance(m, m.opts.Arming)
	m.Update(batchMsg{at: m.now()})
}

// press sends key presses by name and runs any command they return that
// completes at once (a Decide), feeding its message back.
func press(t testing.TB, m *Model, keys ...string) {
	t.Helper()
	for _, k := range keys {
		_, cmd := m.Update(keyMsg(k))
		runCmd(m, cmd)
	}
}

// runCmd executes the commands a key returned (a Decide, the wizard's
// loads) and delivers their messages, a few levels deep.
func runCmd(m *Model, cmd tea.Cmd) { runCmdDepth(m, cmd, 3) }

func runCmdDepth(m *Model, cmd tea.Cmd, depth int) {
	if cmd == nil || depth == 0 {
		return
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	select {
	case msg := <-done:
		switch msg := msg.(type) {
		case tea.BatchMsg:
			for _, c := range msg {
				runCmdDepth(m, c, depth)
			}
		case tea.QuitMsg, nil:
		default:
			_, next := m.Update(msg)
			runCmdDepth(m, next, depth-1)
		}
	case <-time.After(2 * time.Second): // a tick: not ours
	}
}

// keyMsg builds the key press a terminal sends for a key name.
func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	r := []rune(k)
	if len(r) != 1 {
		panic(fmt.Sprintf("keyMsg: unknown key %q", k))
	}
	if r[0] >= 'A' && r[0] <= 'Z' {
		return tea.KeyPressMsg{Code: r[0] + 32, ShiftedCode: r[0], Text: k, Mod: tea.ModShift}
	}
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

// typeText presses each rune of s.
func typeText(t testing.TB, m *Model, s string) {
	t.Helper()
	for _, r := range s {
		press(t, m, string(r))
	}
}

// plain is the screen with colour off.
func plain(m *Model) string { return ansi.Strip(m.Render()) }

func resizeMsg(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }

// nudge is a message that is not a key and that the console ignores: it
// stands for the frame tick after which a settled decision is sent,
// without the tick's own command (the next tick, 200 ms of real time).
type nudge struct{}

// settled lets the settle time pass with no key and delivers a message, as
// the frame tick would, so a decision waiting for it is sent.
func settled(t testing.TB, m *Model) {
	t.Helper()
	advance(m, m.opts.Settle)
	_, cmd := m.Update(nudge{})
	runCmd(m, cmd)
}

// deliberately presses each key as an operator deciding does: alone, after
// a quiet of the arming time, and followed by the settle time with no key.
func deliberately(t testing.TB, m *Model, keys ...string) {
	t.Helper()
	for _, k := range keys {
		advance(m, m.opts.Arming)
		press(t, m, k)
		settled(t, m)
	}
}

// denyWith is a deliberate denial: `d` alone, a pause, the reason typed,
// enter, and the settle time.
func denyWith(t testing.TB, m *Model, reason string) {
	t.Helper()
	deliberately(t, m, "d")
	typeText(t, m, reason)
	press(t, m, "enter")
	settled(t, m)
}
