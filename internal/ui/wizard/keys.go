package wizard

import (
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/ui/keymap"
)

// The wizard uses the console's one key map (keymap.KeyMap): up, down, back,
// help and the scrolling keys are the tables' own, approve is the queue's.
// Its typed steps are the exception that keeps typing safe: there a key that
// can be part of an answer is text, whatever it is bound to, so k, j, q or a
// rebound y are typed, never obeyed. ? stays help because no answer can hold
// it. Approve is never enter or space (keymap refuses that), so a reflexive
// key press cannot grant power.

// isText says whether a key (by its name, as key bindings name it) can be
// part of an answer: a character some segment or name may hold. Segments
// take lowercase letters, digits and '-', names also capitals, spaces and
// '\”, so the name rules decide.
func isText(name string) bool {
	if name == "space" {
		return true
	}
	if utf8.RuneCountInString(name) != 1 {
		return false
	}
	_, err := registry.NormalizeName("a" + name)
	return err == nil
}

// answering says whether the current step takes typed text.
func (m Model) answering() bool { return !m.loading && m.step < stepPreview }

// TakesText says whether the key is typed into the current step's answer,
// which the shell must then not read as one of its own keys (help).
func (m Model) TakesText(msg tea.KeyPressMsg) bool {
	return m.answering() && isText(msg.String())
}

// withoutText is a binding reduced to its keys that are not text, for the
// help of a typed step: it shows what the key does there.
func withoutText(b key.Binding) key.Binding {
	var keys []string
	for _, k := range b.Keys() {
		if !isText(k) {
			keys = append(keys, k)
		}
	}
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(keymap.Label(keys), b.Help().Desc))
}

// ShortHelp is the footer line of the current step (help.KeyMap).
func (m Model) ShortHelp() []key.Binding {
	k := m.keys
	switch m.step {
	case stepPreview:
		return []key.Binding{k.Submit, k.Back, k.Down, k.Pane, k.Help, k.Cancel}
	case stepSubmitted:
		if m.canApprove() {
			return []key.Binding{k.Approve, k.Finish, k.Help}
		}
		return []key.Binding{k.Finish, k.Help}
	}
	return []key.Binding{withoutText(k.Up), withoutText(k.Down), k.Choose, k.Back, k.Help, k.Cancel}
}

// FullHelp is the help of the current step in columns (help.KeyMap).
func (m Model) FullHelp() [][]key.Binding {
	k := m.keys
	switch m.step {
	case stepPreview:
		return [][]key.Binding{{k.Submit, k.Back, k.Cancel}, {k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}, {k.Pane, k.Help}}
	case stepSubmitted:
		return [][]key.Binding{m.ShortHelp()}
	}
	return [][]key.Binding{{withoutText(k.Up), withoutText(k.Down)}, {k.Choose, k.Back, k.Cancel}, {k.Help}}
}
