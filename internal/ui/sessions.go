package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// The presence view's session keys act on the selected persona's resident
// session through Plugins.Sessions, each in a command (never in Update):
// start and stop answer a line for the status bar; attach suspends the
// console while the terminal is attached to the session, and the console
// comes back when the operator detaches.

// sessionDoneMsg is a session action's answer.
type sessionDoneMsg struct {
	note string
	err  error
}

// sessionAttachMsg carries the command that attaches the terminal.
type sessionAttachMsg struct {
	address string
	cmd     tea.ExecCommand
}

// The session actions.
const (
	sessionStart = iota
	sessionStop
	sessionAttach
)

// sessionKey runs a session action on the selected persona.
func (m *Model) sessionKey(action int) tea.Cmd {
	p, ok := m.presence.table.Get(m.presence.table.Selected())
	switch {
	case !ok:
		m.setNote(noteWarn, "select a persona first", 3*time.Second)
		return nil
	case m.plugins.sessions == nil:
		m.setNote(noteWarn, "this console was started without resident sessions (virgo-tui session … does the same)", 5*time.Second)
		return nil
	case p.State == PresenceRetired:
		m.setNote(noteWarn, p.Address+" is retired: it runs no session", 4*time.Second)
		return nil
	}
	s, ctx, address := m.plugins.sessions, m.ctx, p.Address
	switch action {
	case sessionStart:
		m.setNote(noteInfo, "starting the session of "+address+"…", 3*time.Second)
		return func() tea.Msg {
			note, err := s.Start(ctx, address)
			return sessionDoneMsg{note: note, err: err}
		}
	case sessionStop:
		return func() tea.Msg {
			note, err := s.Stop(ctx, address)
			return sessionDoneMsg{note: note, err: err}
		}
	default:
		return func() tea.Msg {
			cmd, err := s.Attach(ctx, address)
			if err != nil {
				return sessionDoneMsg{err: err}
			}
			return sessionAttachMsg{address: address, cmd: cmd}
		}
	}
}

// onSession shows a session action's answer, or suspends the console to
// attach the terminal.
func (m *Model) onSession(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case sessionAttachMsg:
		address := msg.address
		return tea.Exec(msg.cmd, func(err error) tea.Msg {
			return sessionDoneMsg{note: "back from the session of " + address, err: err}
		})
	case sessionDoneMsg:
		if msg.err != nil {
			m.setNote(noteError, msg.err.Error(), 8*time.Second)
			return nil
		}
		m.setNote(noteInfo, msg.note, 5*time.Second)
	}
	return nil
}
