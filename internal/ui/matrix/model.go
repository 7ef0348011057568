// Package matrix is the console's class-matrix view: the spec's class matrix
// (capability bundles × the four classes, R, W, R/W, C, - and footnotes)
// read from the stamp package's one table, the dossier of a chosen class
// (granted / explicitly not granted) and the diff between any two classes.
// It is an embeddable child model: no I/O, the shell routes messages to
// Update and asks View for a given size.
package matrix

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/ui/keymap"
	"github.com/virgo-hub/virgo-tui/internal/ui/styles"
)

// mode is what the view shows.
type mode int

const (
	modeMatrix mode = iota
	modeDossier
	modeCompare
)

// Options configure the view. The zero value is usable.
type Options struct {
	// Keys is the console's key map (keys.json); nil means keymap.Default.
	Keys *keymap.KeyMap
	// Styles is the console's style sheet; nil means styles.Default.
	Styles *styles.Styles
	// HideHelp leaves the footer help line to the shell.
	HideHelp bool
}

// Model is the matrix view's state: which class is chosen, which two are
// compared, and how far each mode is scrolled.
type Model struct {
	keys     keymap.KeyMap
	styles   *styles.Styles
	help     help.Model
	hideHelp bool

	mode mode
	// class, a and b index registry.Profiles: the chosen class and the two
	// compared ones (A -> B).
	class, a, b int
	offset      [3]int
	// stamps, when set, are compared instead of classes A and B (a persona's
	// generation against another's); choosing a class clears them.
	stamps *[2]stamp.Stamp
	// widthHint and pageHint are the last window size seen, so that Update
	// can bound scrolling without rendering.
	widthHint, pageHint int
}

// New returns the view showing the matrix with the first class chosen.
func New(opts Options) Model {
	m := Model{keys: keymap.Default(), styles: opts.Styles, help: help.New(), hideHelp: opts.HideHelp,
		b: 1, widthHint: 80, pageHint: 20}
	if opts.Keys != nil {
		m.keys = *opts.Keys
	}
	if m.styles == nil {
		m.styles = styles.Default()
	}
	return m
}

// Init has nothing to load: the matrix is data in the binary.
func (m Model) Init() tea.Cmd { return nil }

// Chosen is the class whose dossier the view shows or would show.
func (m Model) Chosen() registry.Profile { return registry.Profiles[m.class] }

// Compared are the two classes of the diff, A then B.
func (m Model) Compared() (a, b registry.Profile) {
	return registry.Profiles[m.a], registry.Profiles[m.b]
}

// CompareStamps shows the class-matrix diff from stamp a to stamp b (two
// generations of a seat, or any two personas); a, b or c return to
// comparing classes.
func (m Model) CompareStamps(a, b stamp.Stamp) Model {
	m.stamps = &[2]stamp.Stamp{a, b}
	m.mode, m.offset[modeCompare] = modeCompare, 0
	return m
}

// Update handles keys and window sizes; everything else is ignored.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.widthHint, m.pageHint = max(20, msg.Width), max(1, msg.Height-3)
	case tea.KeyPressMsg:
		m = m.handleKey(msg)
	}
	return m, nil
}

func (m Model) handleKey(msg tea.KeyPressMsg) Model {
	n := len(registry.Profiles)
	k := m.keys
	switch {
	case key.Matches(msg, k.ClassPrev):
		m.class = (m.class + n - 1) % n
	case key.Matches(msg, k.ClassNext):
		m.class = (m.class + 1) % n
	case key.Matches(msg, k.Dossier) && m.mode != modeCompare:
		m.mode, m.offset[modeDossier] = modeDossier, 0
	case key.Matches(msg, k.Compare):
		m.mode, m.offset[modeCompare], m.stamps = modeCompare, 0, nil
		m.a, m.b = m.class, (m.class+1)%n
	case m.mode == modeCompare && key.Matches(msg, k.CycleA):
		m.a, m.stamps = (m.a+1)%n, nil
	case m.mode == modeCompare && key.Matches(msg, k.CycleB):
		m.b, m.stamps = (m.b+1)%n, nil
	case m.mode == modeCompare && key.Matches(msg, k.Swap):
		m.a, m.b = m.b, m.a
		if m.stamps != nil {
			m.stamps = &[2]stamp.Stamp{m.stamps[1], m.stamps[0]}
		}
	case key.Matches(msg, k.Back):
		m.mode = modeMatrix
	case key.Matches(msg, k.Up):
		m.offset[m.mode]--
	case key.Matches(msg, k.Down):
		m.offset[m.mode]++
	case key.Matches(msg, k.PageUp):
		m.offset[m.mode] -= m.pageHint
	case key.Matches(msg, k.PageDown):
		m.offset[m.mode] += m.pageHint
	case key.Matches(msg, k.Top):
		m.offset[m.mode] = 0
	case key.Matches(msg, k.Bottom):
		m.offset[m.mode] = len(m.lines(m.widthHint)) // clamped to the last page below
	}
	last := max(0, len(m.lines(m.widthHint))-m.pageHint)
	m.offset[m.mode] = max(0, min(m.offset[m.mode], last))
	return m
}
