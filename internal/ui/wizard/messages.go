package wizard

import (
	"context"

	tea "charm.land/bubbletea/v2"
)

// SnapshotMsg delivers the installation snapshot to the wizard. Init sends
// one from Backend.Snapshot; a shell that already holds the data may send its
// own (or pass Options.Snapshot) and skip the round trip.
type SnapshotMsg struct {
	Snapshot Snapshot
	Err      error
}

// Result is how the wizard ended.
type Result struct {
	// Cancelled is true when the operator left before submitting.
	Cancelled bool
	// Registration is the last answer (zero when cancelled early).
	Registration Registration
	// Submitted is the queued activation, nil when nothing was submitted.
	Submitted *Submitted
	// Approved is true when the operator approved the activation on the spot.
	Approved bool
}

// DoneMsg is emitted (as a command) when the wizard ends; the shell closes
// the wizard on it, the standalone program quits.
type DoneMsg struct{ Result Result }

// previewMsg carries the built preview for the registration it was asked for;
// a preview for an answer the operator has since changed is dropped.
type previewMsg struct {
	reg     Registration
	preview Preview
	err     error
}

// submittedMsg carries the outcome of the one Submit call.
type submittedMsg struct {
	submitted Submitted
	err       error
}

// approvedMsg carries the outcome of an explicit approval.
type approvedMsg struct{ err error }

func loadSnapshot(ctx context.Context, b Backend) tea.Cmd {
	return func() tea.Msg {
		s, err := b.Snapshot(ctx)
		return SnapshotMsg{Snapshot: s, Err: err}
	}
}

func buildPreview(ctx context.Context, b Backend, r Registration) tea.Cmd {
	return func() tea.Msg {
		p, err := b.Preview(ctx, r)
		return previewMsg{reg: r, preview: p, err: err}
	}
}

func submit(ctx context.Context, b Backend, r Registration) tea.Cmd {
	return func() tea.Msg {
		s, err := b.Submit(ctx, r)
		return submittedMsg{submitted: s, err: err}
	}
}

func approve(ctx context.Context, b Backend, id string) tea.Cmd {
	return func() tea.Msg { return approvedMsg{err: b.Approve(ctx, id)} }
}

func done(r Result) tea.Cmd { return func() tea.Msg { return DoneMsg{Result: r} } }
