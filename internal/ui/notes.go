package ui

import (
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// noteHistory is how many notes the console keeps for `!`: enough that a
// burst of outcomes and errors can be read after it, bounded so the log
// never grows with the session.
const noteHistory = 20

// noteLog keeps the status line's last notes, oldest first, so that one
// note never hides another: the status line shows the newest and how many
// more are still fresh, and `!` opens them all.
type noteLog struct {
	notes []note
	// open is true while the history covers the view.
	open bool
}

// add records a note, dropping the oldest beyond noteHistory.
func (l *noteLog) add(n note) {
	if len(l.notes) == noteHistory {
		l.notes = append(l.notes[:0], l.notes[1:]...)
	}
	l.notes = append(l.notes, n)
}

// fresh counts the notes still within their time on the status line.
func (l *noteLog) fresh(now time.Time) int {
	n := 0
	for _, x := range l.notes {
		if now.Before(x.until) {
			n++
		}
	}
	return n
}

// notesKey handles a key while the history is open: the notes key and
// back close it, quit quits, and nothing else acts on the view it covers.
func (m *Model) notesKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Quit) || msg.String() == "ctrl+c":
		return tea.Quit
	case key.Matches(msg, m.keys.Notes) || key.Matches(msg, m.keys.Back):
		m.notes.open = false
	}
	return nil
}

// notesView is the history over the view's body: newest first, each note
// with its age and tone marker, wrapped whole.
func (m *Model) notesView(now time.Time, height int) string {
	title := "recent notes, newest first · " + keyName(m.keys.Notes.Keys()) + " or " + keyName(m.keys.Back.Keys()) + " closes"
	var fs []field
	for i := len(m.notes.notes) - 1; i >= 0; i-- {
		n := m.notes.notes[i]
		label := padRight(since(now, n.at), 5) + noteMarker(n.kind)
		fs = append(fs, field{label, n.text})
	}
	lines := wrapFields(m.styles, fs, m.width)
	if len(lines) == 0 {
		lines = []string{m.styles.Dim.Render("no notes yet")}
	}
	var d detailPane
	return d.view(m.styles, title, lines, m.width, height)
}

// noteMarker is a note's tone in text, so it reads without colour.
func noteMarker(k noteKind) string {
	switch k {
	case noteError:
		return "✗ "
	case noteWarn:
		return "! "
	}
	return "  "
}

// padRight pads s with spaces to n cells (s is ASCII here).
func padRight(s string, n int) string { return s + spaces(n-len(s)) }

// personaIDLen is the length of a persona generation's id (16 hex digits).
// A hub error may name a generation by it; the console names its address.
const personaIDLen = 16

// withAddresses replaces every persona id in text that the console knows
// with the persona's address and generation ("work/core/lead (generation
// 2)"): an operator acts on addresses, never on internal ids. Only a
// standalone id is replaced, never one inside a word, a hash or a path.
func (m *Model) withAddresses(text string) string {
	var b strings.Builder
	done := 0 // text[:done] is written to b (or needs no change)
	for i := 0; i < len(text); {
		if !isWordByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isWordByte(text[j]) {
			j++
		}
		prefixed := i > 0 && text[i-1] == ':' // a hash's value ("sha256:…")
		if word := text[i:j]; !prefixed && len(word) == personaIDLen && strings.Trim(word, "0123456789abcdef") == "" {
			if p, ok := m.presence.table.Get(word); ok {
				b.WriteString(text[done:i])
				b.WriteString(p.Address + " (generation " + strconv.Itoa(p.Generation) + ")")
				done = j
			}
		}
		i = j
	}
	if done == 0 {
		return text
	}
	b.WriteString(text[done:])
	return b.String()
}

// isWordByte says whether c continues a word, a hash or a path, which an
// id inside is part of.
func isWordByte(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || strings.IndexByte("_-./", c) >= 0
}
