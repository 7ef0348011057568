package matrix

import "charm.land/bubbles/v2/key"

// The matrix view uses the console's one key map (keymap.KeyMap): its own
// actions (class_prev, class_next, dossier, compare, compare_next_a,
// compare_next_b, compare_swap) and the shared moves (up, down, page_up,
// page_down, top, bottom, back). Nothing here grants anything.

// ShortHelp is the footer line of the current mode (help.KeyMap).
func (m Model) ShortHelp() []key.Binding {
	k := m.keys
	switch m.mode {
	case modeDossier:
		return []key.Binding{k.ClassPrev, k.ClassNext, k.Compare, k.Back, k.Down}
	case modeCompare:
		return []key.Binding{k.CycleA, k.CycleB, k.Swap, k.Back, k.Down}
	}
	return []key.Binding{k.ClassPrev, k.ClassNext, k.Dossier, k.Compare}
}

// FullHelp is every binding of the view in columns (help.KeyMap).
func (m Model) FullHelp() [][]key.Binding {
	k := m.keys
	return [][]key.Binding{
		{k.ClassPrev, k.ClassNext, k.Dossier, k.Compare},
		{k.CycleA, k.CycleB, k.Swap, k.Back},
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
	}
}
