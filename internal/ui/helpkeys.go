package ui

import (
	"charm.land/bubbles/v2/key"

	"github.com/virgo-hub/virgo-tui/internal/ui/keymap"
)

// helpKeys is one view's help: short for the footer, full for `?`. It
// implements bubbles' help.KeyMap.
type helpKeys struct {
	short []key.Binding
	full  [][]key.Binding
}

// ShortHelp is the footer line (help.KeyMap).
func (h helpKeys) ShortHelp() []key.Binding { return h.short }

// FullHelp is the `?` help in columns (help.KeyMap).
func (h helpKeys) FullHelp() [][]key.Binding { return h.full }

// presenceHelp is the presence view's help.
func presenceHelp(k keymap.KeyMap) helpKeys {
	return helpKeys{
		short: []key.Binding{k.Down, k.Up, k.Detail, k.Filter, k.Jump, k.Sort, k.NextView, k.Help, k.Quit},
		full: [][]key.Binding{
			{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
			{k.Detail, k.Sort, k.SortReverse, k.Filter, k.Jump, k.Back},
			{k.NextView, k.PrevView, k.Presence, k.Queue, k.Wizard, k.Matrix},
			{k.Help, k.Quit},
		},
	}
}

// queueHelp is the approval queue's help.
func queueHelp(k keymap.KeyMap) helpKeys {
	return helpKeys{
		short: []key.Binding{k.Approve, k.ApproveRemember, k.Deny, k.Detail, k.Down, k.Up, k.Filter, k.Help, k.Quit},
		full: [][]key.Binding{
			{k.Approve, k.ApproveRemember, k.Deny, k.Back},
			{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
			{k.Detail, k.Filter, k.Jump, k.Sort, k.SortReverse},
			{k.NextView, k.PrevView, k.Presence, k.Queue, k.Wizard, k.Matrix},
			{k.Help, k.Quit},
		},
	}
}

// promptHelp is the help while a prompt line has the keys.
func promptHelp(submit, cancel string) helpKeys {
	b := []key.Binding{
		key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", submit)),
		key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", cancel)),
	}
	return helpKeys{short: b, full: [][]key.Binding{b}}
}
