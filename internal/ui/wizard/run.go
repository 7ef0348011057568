package wizard

import (
	"context"
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"
)

// ErrNoResult is returned by Run when the program ended without the wizard
// finishing (the terminal went away, the program was killed).
var ErrNoResult = errors.New("persona add wizard ended without a result")

// standalone is the wizard as its own program (virgo-tui persona add on a
// terminal): it owns the window size and quits on DoneMsg.
type standalone struct {
	m             Model
	width, height int
	result        *Result
}

func (s standalone) Init() tea.Cmd { return s.m.Init() }

func (s standalone) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		s.width, s.height = msg.Width, msg.Height
	case DoneMsg:
		r := msg.Result
		s.result = &r
		return s, tea.Quit
	}
	var cmd tea.Cmd
	s.m, cmd = s.m.Update(msg)
	return s, cmd
}

func (s standalone) View() tea.View {
	v := tea.NewView(s.m.View(max(s.width, 80), max(s.height, 24)))
	v.AltScreen = true
	v.WindowTitle = "virgo-tui persona add"
	return v
}

// Run runs the wizard as its own full-screen program until the operator
// submits or cancels, and returns how it ended. Cancelling is not an error:
// check Result.Cancelled. Extra program options (input, output, size) are for
// tests and for callers with their own terminal handling.
func Run(ctx context.Context, b Backend, opts Options, popts ...tea.ProgramOption) (Result, error) {
	if opts.Context == nil {
		opts.Context = ctx
	}
	p := tea.NewProgram(standalone{m: New(b, opts), width: 80, height: 24},
		append([]tea.ProgramOption{tea.WithContext(ctx)}, popts...)...)
	final, err := p.Run()
	if err != nil {
		return Result{}, fmt.Errorf("persona add wizard: %w", err)
	}
	s, ok := final.(standalone)
	if !ok || s.result == nil {
		return Result{}, ErrNoResult
	}
	return *s.result, nil
}
