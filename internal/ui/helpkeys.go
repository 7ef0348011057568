package ui

import (
	"strings"

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

// presenceHelp is the presence view's help; an open detail pane gives
// the keys of the pane.
func presenceHelp(k keymap.KeyMap, d detailPane) helpKeys {
	if d.open {
		pane := paneHelp(k, d.zoomed)
		return helpKeys{
			short: append(pane[:3:3], k.Filter, k.Help, k.Quit),
			full: [][]key.Binding{pane, {k.Sort, k.SortReverse, k.Filter, k.Jump},
				{k.NextView, k.PrevView, k.Presence, k.Queue, k.Wizard, k.Matrix, k.Inbox}, {k.Notes, k.Latest, k.Help, k.Quit}},
		}
	}
	return helpKeys{
		short: []key.Binding{k.Down, k.Up, k.Detail, k.Filter, k.Jump, k.Sort, k.NextView, k.Help, k.Quit},
		full: [][]key.Binding{
			{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
			{k.Detail, k.Zoom, k.Sort, k.SortReverse, k.Filter, k.Jump, k.Back},
			{k.NextView, k.PrevView, k.Presence, k.Queue, k.Wizard, k.Matrix, k.Inbox},
			{k.Notes, k.Latest, k.Help, k.Quit},
		},
	}
}

// queueHelp is the approval queue's help; an open detail pane gives the
// keys of the pane, the preview (preview true) its scroll keys.
func queueHelp(k keymap.KeyMap, d detailPane, preview bool) helpKeys {
	if d.open {
		pane := paneHelp(k, d.zoomed)
		return helpKeys{
			short: append([]key.Binding{k.Approve, k.ApproveRemember, k.Deny}, append(pane[:3:3], k.Help, k.Quit)...),
			full: [][]key.Binding{{k.Approve, k.ApproveRemember, k.Deny, k.Mark, k.ApproveMarked}, pane, {k.Filter, k.Jump, k.Sort, k.SortReverse},
				{k.NextView, k.PrevView, k.Presence, k.Queue, k.Wizard, k.Matrix, k.Inbox}, {k.Notes, k.Latest, k.Help, k.Quit}},
		}
	}
	if preview {
		scroll := pair("scroll preview", k.PaneDown, k.PaneUp)
		return helpKeys{
			short: []key.Binding{k.Approve, k.ApproveRemember, k.Deny, k.Detail, pair("select", k.Down, k.Up), scroll, k.Help, k.Quit},
			full: [][]key.Binding{
				{k.Approve, k.ApproveRemember, k.Deny, k.Mark, k.ApproveMarked, k.Back},
				{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
				{k.Detail, k.Zoom, scroll, k.Filter, k.Jump, k.Sort, k.SortReverse},
				{k.NextView, k.PrevView, k.Presence, k.Queue, k.Wizard, k.Matrix, k.Inbox},
				{k.Notes, k.Latest, k.Help, k.Quit},
			},
		}
	}
	return helpKeys{
		short: []key.Binding{k.Approve, k.ApproveRemember, k.Deny, k.Detail, k.Down, k.Up, k.Filter, k.Help, k.Quit},
		full: [][]key.Binding{
			{k.Approve, k.ApproveRemember, k.Deny, k.Mark, k.ApproveMarked, k.Back},
			{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
			{k.Detail, k.Zoom, k.Filter, k.Jump, k.Sort, k.SortReverse},
			{k.NextView, k.PrevView, k.Presence, k.Queue, k.Wizard, k.Matrix, k.Inbox},
			{k.Notes, k.Latest, k.Help, k.Quit},
		},
	}
}

// paneHelp is the keys of an open detail pane: its own keys scroll it,
// the movement keys still move the selection it shows, enter and z widen
// it (narrow it back when zoomed), esc closes it.
func paneHelp(k keymap.KeyMap, zoomed bool) []key.Binding {
	widen := "widen"
	if zoomed {
		widen = "narrow"
	}
	return []key.Binding{
		pair("scroll detail", k.PaneDown, k.PaneUp),
		pair(widen, k.Zoom, k.Detail),
		pair("close detail", k.Back),
		pair("select", k.Down, k.Up),
		pair("page", k.PageDown, k.PageUp),
		pair("ends", k.Top, k.Bottom),
	}
}

// pair is one help entry for several bindings, named by the first key of
// each ("J/K scroll").
func pair(what string, bs ...key.Binding) key.Binding {
	var keys, names []string
	for _, b := range bs {
		keys = append(keys, b.Keys()...)
		if len(b.Keys()) > 0 {
			names = append(names, b.Keys()[0])
		}
	}
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(strings.Join(names, "/"), what))
}

// promptHelp is the help while a prompt line has the keys.
func promptHelp(submit, cancel string) helpKeys {
	b := []key.Binding{
		key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", submit)),
		key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", cancel)),
	}
	return helpKeys{short: b, full: [][]key.Binding{b}}
}
