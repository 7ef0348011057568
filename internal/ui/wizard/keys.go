package wizard

import "charm.land/bubbles/v2/key"

// KeyMap holds the wizard's bindings. Letters are deliberately absent from the
// steps that take typed input (scope, project, role, name): there every
// printable key is text. Approve is a letter, never enter or space, so that
// a reflexive key press cannot grant power.
type KeyMap struct {
	// Up and Down move through the offered choices of a step.
	Up, Down key.Binding
	// Next accepts the highlighted choice (or the typed value) of a step.
	Next key.Binding
	// Back returns to the previous step, keeping every answer; on the first
	// step it cancels the wizard.
	Back key.Binding
	// Cancel leaves the wizard from any step without submitting.
	Cancel key.Binding
	// ScrollUp, ScrollDown, PageUp and PageDown scroll the preview pane.
	ScrollUp, ScrollDown, PageUp, PageDown key.Binding
	// Pane switches the preview between the stamp JSON and the matrix diff.
	Pane key.Binding
	// Submit registers the persona and queues its activation confirmation.
	Submit key.Binding
	// Approve approves the queued activation on the spot (bound human only).
	Approve key.Binding
	// Finish closes the wizard after submitting, leaving the confirmation
	// pending in the queue when it was not approved.
	Finish key.Binding
}

// DefaultKeyMap returns the wizard's default bindings; the shell may rebind
// them from its config file before passing them in Options.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:         key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑", "previous")),
		Down:       key.NewBinding(key.WithKeys("down", "ctrl+n"), key.WithHelp("↓", "next")),
		Next:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "choose")),
		Back:       key.NewBinding(key.WithKeys("esc", "shift+tab"), key.WithHelp("esc/shift+tab", "back")),
		Cancel:     key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "cancel")),
		ScrollUp:   key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll up")),
		ScrollDown: key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll down")),
		PageUp:     key.NewBinding(key.WithKeys("pgup", "b"), key.WithHelp("pgup", "page up")),
		PageDown:   key.NewBinding(key.WithKeys("pgdown", "f", "space"), key.WithHelp("pgdn", "page down")),
		Pane:       key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "stamp/diff")),
		Submit:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "submit")),
		Approve:    key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "approve now")),
		Finish:     key.NewBinding(key.WithKeys("enter", "esc"), key.WithHelp("enter/esc", "done")),
	}
}

// ShortHelp is the footer line of the current step (help.KeyMap).
func (m Model) ShortHelp() []key.Binding {
	k := m.keys
	switch m.step {
	case stepPreview:
		return []key.Binding{k.Submit, k.Back, k.ScrollDown, k.Pane, k.Cancel}
	case stepSubmitted:
		if m.canApprove() {
			return []key.Binding{k.Approve, k.Finish}
		}
		return []key.Binding{k.Finish}
	}
	return []key.Binding{k.Up, k.Down, k.Next, k.Back, k.Cancel}
}

// FullHelp is the help of the current step in columns (help.KeyMap).
func (m Model) FullHelp() [][]key.Binding {
	k := m.keys
	switch m.step {
	case stepPreview:
		return [][]key.Binding{{k.Submit, k.Back, k.Cancel}, {k.ScrollUp, k.ScrollDown, k.PageUp, k.PageDown, k.Pane}}
	case stepSubmitted:
		return [][]key.Binding{m.ShortHelp()}
	}
	return [][]key.Binding{{k.Up, k.Down}, {k.Next, k.Back, k.Cancel}}
}
