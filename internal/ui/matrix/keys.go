package matrix

import "charm.land/bubbles/v2/key"

// KeyMap holds the matrix view's bindings. Nothing here grants anything, so
// letters are free to use; the shell keeps tab, digits, /, :, ? and q.
type KeyMap struct {
	// Prev and Next choose the class (column) the dossier and compare start from.
	Prev, Next key.Binding
	// Dossier opens the chosen class's dossier: granted / explicitly not granted.
	Dossier key.Binding
	// Compare opens the diff between two classes, A (the chosen one) and B.
	Compare key.Binding
	// CycleA and CycleB step the compared classes; Swap exchanges them.
	CycleA, CycleB, Swap key.Binding
	// Back returns to the matrix.
	Back key.Binding
	// Up, Down, PageUp, PageDown scroll what does not fit.
	Up, Down, PageUp, PageDown key.Binding
}

// DefaultKeyMap returns the matrix view's default bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Prev:     key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "class")),
		Next:     key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "class")),
		Dossier:  key.NewBinding(key.WithKeys("enter", "o"), key.WithHelp("enter", "dossier")),
		Compare:  key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "compare")),
		CycleA:   key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "next A")),
		CycleB:   key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "next B")),
		Swap:     key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "swap A/B")),
		Back:     key.NewBinding(key.WithKeys("esc", "backspace"), key.WithHelp("esc", "matrix")),
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "space"), key.WithHelp("pgdn", "page down")),
	}
}

// ShortHelp is the footer line of the current mode (help.KeyMap).
func (m Model) ShortHelp() []key.Binding {
	k := m.keys
	switch m.mode {
	case modeDossier:
		return []key.Binding{k.Prev, k.Next, k.Compare, k.Back, k.Down}
	case modeCompare:
		return []key.Binding{k.CycleA, k.CycleB, k.Swap, k.Back, k.Down}
	}
	return []key.Binding{k.Prev, k.Next, k.Dossier, k.Compare}
}

// FullHelp is every binding of the view in columns (help.KeyMap).
func (m Model) FullHelp() [][]key.Binding {
	k := m.keys
	return [][]key.Binding{
		{k.Prev, k.Next, k.Dossier, k.Compare},
		{k.CycleA, k.CycleB, k.Swap, k.Back},
		{k.Up, k.Down, k.PageUp, k.PageDown},
	}
}
