package ui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/virgo-hub/virgo-tui/internal/ui/wizard"
)

// Plugins wire the views whose data is not the console's own.
type Plugins struct {
	// Wizard is the persona add wizard's backend; nil leaves the view
	// explaining that this console was started without one.
	Wizard wizard.Backend
}

// plugins holds the live child models of the wizard and matrix views.
type plugins struct {
	ctx     context.Context
	backend wizard.Backend
	wizard  *wizard.Model
	wizKeys *wizard.KeyMap
	width   int
	height  int
}

func newPlugins(p Plugins, ctx context.Context) *plugins {
	return &plugins{ctx: ctx, backend: p.Wizard}
}

func (p *plugins) hasWizard() bool { return p.wizard != nil }

// openWizard starts a fresh wizard (answers start over each time the view
// is entered; a finished or cancelled wizard leaves nothing behind).
func (p *plugins) openWizard(width, height int) tea.Cmd {
	if p.backend == nil {
		return nil
	}
	w := wizard.New(p.backend, wizard.Options{Context: p.ctx, Keys: p.wizKeys})
	p.wizard = &w
	p.width, p.height = width, height
	w2, cmd := p.wizard.Update(tea.WindowSizeMsg{Width: width, Height: height})
	p.wizard = &w2
	return tea.Batch(p.wizard.Init(), cmd)
}

// closeWizard drops the wizard after it is done.
func (p *plugins) closeWizard() { p.wizard = nil }

// resize tells the children the terminal's size.
func (p *plugins) resize(msg tea.WindowSizeMsg) tea.Cmd {
	if p.wizard == nil {
		return nil
	}
	w, cmd := p.wizard.Update(msg)
	p.wizard = &w
	return cmd
}

// update routes a message: keys to the current view's child only, other
// messages (their commands' results) to whichever child is alive.
func (p *plugins) update(current viewID, msg tea.Msg) tea.Cmd {
	if _, isKey := msg.(tea.KeyPressMsg); isKey && current != viewWizard {
		return nil
	}
	if p.wizard == nil {
		return nil
	}
	w, cmd := p.wizard.Update(msg)
	p.wizard = &w
	return cmd
}

// view renders the current child view, or says why there is none.
func (p *plugins) view(st *Styles, current viewID, width, height int) string {
	switch {
	case current == viewWizard && p.wizard != nil:
		return p.wizard.View(width, height)
	case current == viewWizard:
		return fit(st.Dim.Render("  the persona add wizard needs a hub connection with registration; run `virgo-tui persona add`"), width, height)
	}
	return fit(st.Dim.Render("  the class matrix view is not wired into this console build"), width, height)
}
