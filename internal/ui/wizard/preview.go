package wizard

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/ui/keymap"
)

// pane is one scrollable half of the preview.
type pane int

const (
	paneStamp pane = iota
	paneDiff
)

// previewState is the rendered preview: the stamp file's bytes and the
// class-matrix diff, each as lines with its own scroll offset, so the view
// renders only the visible lines.
type previewState struct {
	data   Preview
	lines  [2][]string
	offset [2]int
	focus  pane
	// summary is one line: tool counts and the boundaries crossed.
	summary string
	// stampErr is set when the stamp cannot be rendered; it is shown.
	stampErr error
}

func newPreviewState(p Preview) *previewState {
	ps := &previewState{data: p}
	b, err := stamp.Marshal(p.Stamp)
	if err != nil {
		ps.stampErr = err
	}
	ps.lines[paneStamp] = strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	ps.lines[paneDiff], ps.summary = diffLines(p)
	return ps
}

// scroll moves the focused pane (or switches pane) and returns a copy, so an
// earlier Model value keeps its own preview. rows is how many lines of a
// pane show: the page keys move by that much, and the offset stops where
// the last line is at the bottom, so every key moves what is seen.
func (p *previewState) scroll(msg tea.KeyPressMsg, k keymap.KeyMap, rows int) *previewState {
	c := *p
	n := &c.offset[c.focus]
	switch {
	case key.Matches(msg, k.Pane):
		c.focus = 1 - c.focus
	case key.Matches(msg, k.Up):
		*n--
	case key.Matches(msg, k.Down):
		*n++
	case key.Matches(msg, k.PageUp):
		*n -= rows
	case key.Matches(msg, k.PageDown):
		*n += rows
	case key.Matches(msg, k.Top):
		*n = 0
	case key.Matches(msg, k.Bottom):
		*n = len(c.lines[c.focus])
	}
	for f := range c.offset { // a pane switched to keeps its place, bounded
		c.offset[f] = max(0, min(c.offset[f], len(c.lines[f])-rows))
	}
	return &c
}

// window is the visible slice of a pane of the given height; the offset is
// clamped so the last page is full.
func (p *previewState) window(which pane, height int) []string {
	lines := p.lines[which]
	off := max(0, min(p.offset[which], len(lines)-height))
	end := min(len(lines), off+height)
	return lines[off:end]
}
