package ui

import (
	"context"
	"sync"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/virgo-hub/virgo-tui/internal/ui/keymap"
	"github.com/virgo-hub/virgo-tui/internal/ui/matrix"
	"github.com/virgo-hub/virgo-tui/internal/ui/styles"
	"github.com/virgo-hub/virgo-tui/internal/ui/wizard"
)

// Plugins wire the views whose data is not the console's own.
type Plugins struct {
	// Wizard is the persona add wizard's backend; nil leaves the view
	// explaining that this console was started without one.
	Wizard wizard.Backend
	// Sessions runs personas' resident sessions; nil leaves the presence
	// view's session keys saying this console was started without them.
	Sessions Sessions
}

// Sessions starts, stops and attaches to a persona's resident session (the
// session supervisor, docs/sessions.md). Start and Stop answer a line for
// the status bar; Attach the command that attaches the terminal, run with
// the console suspended (tea.Exec), returning when the operator detaches.
type Sessions interface {
	Start(ctx context.Context, address string) (string, error)
	Stop(ctx context.Context, address string) (string, error)
	Attach(ctx context.Context, address string) (tea.ExecCommand, error)
}

// plugins holds the child models of the wizard and matrix views. They draw
// no footer of their own: the shell draws their help like its own views'.
// Both are given the shell's one key map and one style sheet.
type plugins struct {
	ctx     context.Context
	keys    *keymap.KeyMap
	styles  *styles.Styles
	backend wizard.Backend
	// approvals is backend, noting the wizard's approvals; nil without one.
	approvals *wizardApprovals
	sessions  Sessions
	wizard    *wizard.Model
	matrix    matrix.Model
	width     int
	height    int
}

func newPlugins(p Plugins, ctx context.Context, keys *keymap.KeyMap, sheet *styles.Styles) *plugins {
	pl := &plugins{ctx: ctx, keys: keys, styles: sheet, sessions: p.Sessions,
		matrix: matrix.New(matrix.Options{Keys: keys, Styles: sheet, HideHelp: true})}
	if p.Wizard != nil {
		pl.approvals = &wizardApprovals{Backend: p.Wizard}
		pl.backend = pl.approvals
	}
	return pl
}

// wizardApprovals is the wizard's backend noting the confirmations the
// wizard approved on the spot, so that the decision streamed back is
// reported as made here, not "by you in another console". Approve runs in
// a command's goroutine, hence the lock.
type wizardApprovals struct {
	wizard.Backend
	mu  sync.Mutex
	ids map[string]bool
}

// Approve approves through the backend and notes id.
func (w *wizardApprovals) Approve(ctx context.Context, id string) error {
	w.mu.Lock()
	if w.ids == nil {
		w.ids = map[string]bool{}
	}
	w.ids[id] = true
	w.mu.Unlock()
	return w.Backend.Approve(ctx, id)
}

// approvedHere reports, once, whether the wizard approved id.
func (p *plugins) approvedHere(id string) bool {
	if p.approvals == nil {
		return false
	}
	w := p.approvals
	w.mu.Lock()
	defer w.mu.Unlock()
	here := w.ids[id]
	delete(w.ids, id)
	return here
}

// wizardTakesText says whether the open wizard types the key into an
// answer, so that the shell must not read it as help.
func (p *plugins) wizardTakesText(msg tea.KeyPressMsg) bool {
	return p.wizard != nil && p.wizard.TakesText(msg)
}

func (p *plugins) hasWizard() bool { return p.wizard != nil }

// openWizard starts a fresh wizard (answers start over each time the view
// is entered; a finished or cancelled wizard leaves nothing behind).
func (p *plugins) openWizard() tea.Cmd {
	if p.backend == nil {
		return nil
	}
	w := wizard.New(p.backend, wizard.Options{Context: p.ctx, Keys: p.keys, Styles: p.styles, HideHelp: true})
	w, cmd := w.Update(tea.WindowSizeMsg{Width: p.width, Height: p.height})
	p.wizard = &w
	return tea.Batch(w.Init(), cmd)
}

// closeWizard drops the wizard after it is done.
func (p *plugins) closeWizard() { p.wizard = nil }

// resize gives the children the body's size.
func (p *plugins) resize(width, height int) {
	p.width, p.height = width, height
	msg := tea.WindowSizeMsg{Width: width, Height: height}
	p.matrix, _ = p.matrix.Update(msg)
	if p.wizard != nil {
		w, _ := p.wizard.Update(msg)
		p.wizard = &w
	}
}

// update routes a message: keys to the current view's child only, other
// messages (their commands' results) to the wizard, the one child with
// commands.
func (p *plugins) update(current viewID, msg tea.Msg) tea.Cmd {
	if _, isKey := msg.(tea.KeyPressMsg); isKey {
		switch current {
		case viewMatrix:
			p.matrix, _ = p.matrix.Update(msg)
			return nil
		case viewWizard:
		default:
			return nil
		}
	}
	if p.wizard == nil {
		return nil
	}
	w, cmd := p.wizard.Update(msg)
	p.wizard = &w
	return cmd
}

// help is the current child's key help, for the shell's footer.
func (p *plugins) help(current viewID) (help.KeyMap, bool) {
	switch {
	case current == viewMatrix:
		return p.matrix, true
	case current == viewWizard && p.wizard != nil:
		return p.wizard, true
	}
	return nil, false
}

// view renders the current child view, or says why there is none.
func (p *plugins) view(st *Styles, current viewID, width, height int) string {
	switch {
	case current == viewMatrix:
		return p.matrix.View(width, height)
	case p.wizard != nil:
		return p.wizard.View(width, height)
	}
	return fit(st.Dim.Render("  persona add needs a hub that registers personas; this console has none wired (see virgo-tui persona add)"), width, height)
}
