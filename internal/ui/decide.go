package ui

import (
	"context"
	"log/slog"
	"time"

	tea "charm.land/bubbletea/v2"
)

// decideTimeout bounds one Decide call so a stuck hub shows as an error.
const decideTimeout = 10 * time.Second

// decidedMsg is the outcome of one Decide call.
type decidedMsg struct {
	c   Confirmation
	d   Decision
	err error
}

func verb(d Decision) string {
	switch {
	case d.Approve && d.Remember:
		return "approve and remember"
	case d.Approve:
		return "approve"
	}
	return "deny"
}

func decideCmd(ctx context.Context, client Client, log *slog.Logger, c Confirmation, d Decision) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, decideTimeout)
		defer cancel()
		err := client.Decide(ctx, c.ID, d)
		log.Info("decide", "id", c.ID, "correlation", c.CorrelationID, "decision", verb(d), "err", err)
		return decidedMsg{c: c, d: d, err: err}
	}
}

// onDecided shows the outcome: gone from the queue on success, the hub's
// own words on failure.
func (m *Model) onDecided(msg decidedMsg) tea.Cmd {
	delete(m.deciding, msg.c.ID)
	what := msg.c.Requester + " " + msg.c.Operation
	if msg.err != nil {
		m.setNote(noteError, msg.err.Error()+" ("+verb(msg.d)+" "+what+" not done)", 10*time.Second)
		return nil
	}
	// The next confirmation may slide under the cursor: it is re-armed
	// (Update observes the new selection), so a second press of the same
	// key does not decide it unseen.
	m.queue.remove(msg.c.ID)
	m.setNote(noteInfo, done(msg.d)+": "+what, 4*time.Second)
	return nil
}
