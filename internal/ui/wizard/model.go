// Package wizard is the console's persona add wizard: scope, optional
// project, role and name in the spec's path order, each validated as it is
// typed with the registry's own words, then a preview of the generated stamp
// and its class-matrix diff, and the submission that queues the activation
// confirmation. It is an embeddable child model: the shell (or Run) owns the
// program, routes messages to Update and asks View for a given size.
package wizard

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/ui/keymap"
	"github.com/virgo-hub/virgo-tui/internal/ui/styles"
	"github.com/virgo-hub/virgo-tui/internal/ui/textfield"
)

// Options configure a wizard. The zero value is usable.
type Options struct {
	// Context bounds every backend call; nil means context.Background().
	Context context.Context
	// Keys is the console's key map (keys.json); nil means keymap.Default.
	Keys *keymap.KeyMap
	// Styles is the console's style sheet; nil means styles.Default.
	Styles *styles.Styles
	// Snapshot, when the shell already holds one, skips Backend.Snapshot.
	Snapshot *Snapshot
	// HideHelp leaves the footer help line to the shell (which reads
	// ShortHelp/FullHelp); by default the wizard draws its own.
	HideHelp bool
}

// Model is the wizard's state. Update returns a new Model; nothing in it
// performs I/O.
type Model struct {
	backend Backend
	ctx     context.Context
	keys    keymap.KeyMap
	styles  *styles.Styles
	help    help.Model
	// hideHelp: the shell draws the footer from ShortHelp.
	hideHelp bool

	snap    Snapshot
	taken   map[string]bool
	loading bool
	// err is the last backend error; it stays on screen until the next
	// successful call or step change, never swallowed.
	err error

	step    step
	inputs  [choiceSteps]textinput.Model
	cursor  [choiceSteps]int
	chosen  [choiceSteps]string
	answers registry.Address
	name    string

	preview *previewState
	// width and height are the last size the wizard was given, so that
	// Update can bound the preview's scrolling without rendering.
	width, height int
	submitting    bool
	submitted     *Submitted
	approving     bool
	approved      bool
	// note says what a field did not take (a paste cut to its limit, keys
	// typed into a full field) until the next key.
	note string
}

// New returns a wizard at its first step. Call Init for the command that
// loads the snapshot (nil when Options.Snapshot was given).
func New(b Backend, opts Options) Model {
	m := Model{backend: b, ctx: opts.Context, keys: keymap.Default(), styles: opts.Styles, help: help.New(), width: 80, height: 24, hideHelp: opts.HideHelp}
	if m.ctx == nil {
		m.ctx = context.Background()
	}
	if opts.Keys != nil {
		m.keys = *opts.Keys
	}
	if m.styles == nil {
		m.styles = styles.Default()
	}
	prompts := [choiceSteps]string{"scope › ", "project › ", "role › ", "name › "}
	for i := range m.inputs {
		in := textinput.New()
		in.Prompt = prompts[i]
		st := textinput.DefaultStyles(true)
		st.Cursor.Blink = false
		in.SetStyles(st)
		in.CharLimit = 64
		m.inputs[i] = in
	}
	m.inputs[stepScope].Placeholder = "type a new scope, or choose below"
	m.inputs[stepProject].Placeholder = "type a new project, or choose below"
	m.inputs[stepRole].Placeholder = "choose below"
	m.inputs[stepName].Placeholder = "type any name, or choose a suggestion"
	m.inputs[stepScope].Focus()
	m.loading = true
	if opts.Snapshot != nil {
		m = m.applySnapshot(*opts.Snapshot)
	}
	return m
}

// Init loads the snapshot unless one was given.
func (m Model) Init() tea.Cmd {
	if !m.loading {
		return nil
	}
	return loadSnapshot(m.ctx, m.backend)
}

// Registration is the current answer (complete once the preview shows).
func (m Model) Registration() Registration {
	return Registration{Address: m.answers, Name: m.name}
}

// applySnapshot installs the installation's data. On an empty installation
// the first persona defaults to root/secretary with the first suggestion
// (the operator can still change each answer).
func (m Model) applySnapshot(s Snapshot) Model {
	m.snap, m.taken, m.loading = s, takenSet(s.Taken), false
	if s.Empty {
		m.chosen[stepScope] = registry.RootScope
		m.chosen[stepRole] = "secretary"
		m.answers = registry.Address{Scope: registry.RootScope, Role: "secretary"}
	}
	m.cursor[stepScope] = m.indexOf(stepScope, m.chosen[stepScope])
	return m
}

// Update handles one message. Keys go to the current step; backend results
// arrive as messages from the commands the wizard returned.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case SnapshotMsg:
		if msg.Err != nil {
			m.err = msg.Err
			return m, nil
		}
		m.err = nil
		return m.applySnapshot(msg.Snapshot), nil
	case previewMsg:
		if m.step != stepPreview || msg.reg != m.Registration() {
			return m, nil
		}
		m.err = msg.err
		if msg.err == nil {
			m.preview = newPreviewState(msg.preview)
		}
		return m, nil
	case submittedMsg:
		m.submitting = false
		m.err = msg.err
		if msg.err == nil {
			s := msg.submitted
			m.submitted, m.step = &s, stepSubmitted
		}
		return m, nil
	case approvedMsg:
		m.approving = false
		m.err = msg.err
		m.approved = msg.err == nil
		return m, nil
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, nil
	case tea.KeyPressMsg:
		return m.handleKey(msg)
	case tea.PasteMsg:
		if m.loading || m.step >= stepPreview {
			return m, nil
		}
		msg, m.note = textfield.Paste(&m.inputs[m.step], msg)
		var cmd tea.Cmd
		m.inputs[m.step], cmd = m.inputs[m.step].Update(msg)
		m.cursor[m.step] = 0
		return m, cmd
	}
	return m, nil
}

func (m Model) handleKey(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	m.note = ""
	if m.TakesText(msg) {
		return m.typeText(msg)
	}
	if key.Matches(msg, m.keys.Cancel) {
		return m, done(m.result(m.submitted == nil))
	}
	if key.Matches(msg, m.keys.Help) && !m.hideHelp {
		m.help.ShowAll = !m.help.ShowAll
		return m, nil
	}
	switch m.step {
	case stepPreview:
		return m.updatePreview(msg)
	case stepSubmitted:
		return m.updateSubmitted(msg)
	}
	if m.loading {
		if key.Matches(msg, m.keys.Back) {
			return m, done(m.result(true))
		}
		return m, nil
	}
	return m.updateChoice(msg)
}

func (m Model) result(cancelled bool) Result {
	return Result{Cancelled: cancelled, Registration: m.Registration(), Submitted: m.submitted, Approved: m.approved}
}

// updateChoice drives the four answer steps.
func (m Model) updateChoice(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	s := m.step
	switch {
	case key.Matches(msg, m.keys.Back):
		return m.back()
	case key.Matches(msg, m.keys.Up):
		m.cursor[s] = max(0, m.cursor[s]-1)
		return m, nil
	case key.Matches(msg, m.keys.Down):
		m.cursor[s] = min(len(m.options(s))-1, m.cursor[s]+1)
		m.cursor[s] = max(0, m.cursor[s])
		return m, nil
	case key.Matches(msg, m.keys.Choose):
		return m.choose()
	}
	return m.typeText(msg)
}

// typeText gives a key to the current step's input (text, or its editing
// keys: backspace, arrows left and right).
func (m Model) typeText(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	s := m.step
	if textfield.Full(&m.inputs[s], msg) {
		m.note = textfield.FullNote(&m.inputs[s])
		return m, nil
	}
	before := m.inputs[s].Value()
	var cmd tea.Cmd
	m.inputs[s], cmd = m.inputs[s].Update(msg)
	if m.inputs[s].Value() != before {
		m.cursor[s] = 0
	}
	return m, cmd
}

// current is the highlighted option of a choice step, if any.
func (m Model) current(s step) (option, bool) {
	opts := m.options(s)
	if len(opts) == 0 {
		return option{}, false
	}
	return opts[min(m.cursor[s], len(opts)-1)], true
}

// choose accepts the highlighted option when the registry allows it.
func (m Model) choose() (Model, tea.Cmd) {
	s := m.step
	o, ok := m.current(s)
	if !ok || o.err != nil {
		return m, nil
	}
	m.chosen[s] = o.value
	m.err = nil
	switch s {
	case stepScope:
		m.answers.Scope = o.value
	case stepProject:
		m.answers.Project = o.value
	case stepRole:
		m.answers.Role = o.value
	case stepName:
		m.name = o.value
		m.step, m.preview = stepPreview, nil
		return m, buildPreview(m.ctx, m.backend, m.Registration())
	}
	next := s + 1
	if next == stepProject && m.answers.Scope == registry.RootScope {
		// "root is reserved above workspaces" and has no projects.
		m.answers.Project = ""
		next = stepRole
	}
	return m.enter(next), nil
}

// enter moves to a choice step, highlighting its earlier answer so that going
// back and forth keeps every answer; without one, the first row that may be
// chosen (a held seat is listed, refused, and not highlighted).
func (m Model) enter(s step) Model {
	m.inputs[m.step].Blur()
	m.step = s
	m.inputs[s].Focus()
	m.cursor[s] = m.indexOf(s, m.chosen[s])
	if m.chosen[s] == "" {
		for i, o := range m.options(s) {
			if o.err == nil {
				m.cursor[s] = i
				break
			}
		}
	}
	return m
}

// indexOf is the position of value among step s's options, 0 when absent.
func (m Model) indexOf(s step, value string) int {
	for i, o := range m.options(s) {
		if strings.EqualFold(o.value, value) {
			return i
		}
	}
	return 0
}

// back returns to the previous step; on the first step it cancels.
func (m Model) back() (Model, tea.Cmd) {
	m.err = nil
	switch m.step {
	case stepScope:
		return m, done(m.result(true))
	case stepPreview:
		m.preview = nil
		m.step = stepName
		m.inputs[stepName].Focus()
		return m, nil
	}
	prev := m.step - 1
	if prev == stepProject && m.answers.Scope == registry.RootScope {
		prev = stepScope
	}
	return m.enter(prev), nil
}

func (m Model) updatePreview(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	switch {
	case key.Matches(msg, m.keys.Submit):
		if m.preview == nil || m.submitting {
			return m, nil
		}
		m.submitting, m.err = true, nil
		return m, submit(m.ctx, m.backend, m.Registration())
	case key.Matches(msg, m.keys.Back):
		if m.submitting {
			return m, nil
		}
		return m.back()
	}
	if m.preview != nil {
		h := max(m.height, minHeight)
		m.preview = m.preview.scroll(msg, m.keys, m.paneRows(h-m.footerHeight(max(m.width, minWidth))))
	}
	return m, nil
}

// canApprove reports whether the approve key is live: submitted, the
// operator is the bound human, and not approved yet.
func (m Model) canApprove() bool {
	return m.submitted != nil && m.submitted.OperatorIsBoundHuman && !m.approved && !m.approving
}

func (m Model) updateSubmitted(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	switch {
	case key.Matches(msg, m.keys.Approve):
		if !m.canApprove() {
			return m, nil
		}
		m.approving, m.err = true, nil
		return m, approve(m.ctx, m.backend, m.submitted.ConfirmationID)
	case key.Matches(msg, m.keys.Finish):
		if m.approving {
			return m, nil
		}
		return m, done(m.result(false))
	}
	return m, nil
}
