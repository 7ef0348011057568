package ui

import (
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

// Desktop is how the console asks the terminal for a desktop notification.
type Desktop string

// The desktop notifications a terminal may understand. Both are escape
// sequences written to the terminal, which turns them into a desktop
// notification (or ignores them); the console opens no other channel.
const (
	// DesktopOff sends none (the default).
	DesktopOff Desktop = "off"
	// DesktopOSC9 is iTerm2's OSC 9 (also WezTerm, Windows Terminal, kitty).
	DesktopOSC9 Desktop = "osc9"
	// DesktopOSC777 is rxvt's OSC 777 notify (also foot, Ghostty, WezTerm).
	DesktopOSC777 Desktop = "osc777"
)

// Notify says how the console calls the operator when a confirmation for
// them arrives while they are not looking at the queue.
type Notify struct {
	// Bell rings the terminal bell.
	Bell bool
	// Title keeps the terminal title on the count pending for the operator.
	Title bool
	// Desktop asks the terminal for a desktop notification.
	Desktop Desktop
}

// notifyEvery bounds how often the bell and the desktop notification go
// out: a burst of arrivals calls the operator once, not once per arrival.
const notifyEvery = 3 * time.Second

// lookingAtQueue says whether the operator has the queue in front of them:
// the queue view is shown and the terminal has focus (as far as the
// terminal reports focus; without reports it counts as focused).
func (m *Model) lookingAtQueue() bool { return m.view == viewQueue && !m.blurred }

// notifyArrival calls the operator for confirmations routed to them that
// just arrived: the bell and a desktop notification, as configured, unless
// they are looking at the queue or were called less than notifyEvery ago.
// The title follows the count in View, whatever the focus.
func (m *Model) notifyArrival(arrived []*Confirmation, now time.Time) tea.Cmd {
	if len(arrived) > 0 {
		m.called = arrived[len(arrived)-1].ID
	}
	if len(arrived) == 0 || m.lookingAtQueue() || now.Sub(m.notified) < notifyEvery {
		return nil
	}
	var b strings.Builder
	if m.opts.Notify.Bell {
		b.WriteByte(ansi.BEL)
	}
	body := notificationBody(m.queue.mine, arrived[len(arrived)-1], m.keys.Latest)
	switch m.opts.Notify.Desktop {
	case DesktopOSC9:
		b.WriteString(ansi.Notify("virgo-tui: " + body))
	case DesktopOSC777:
		b.WriteString("\x1b]777;notify;virgo-tui " + oscField(m.installation) + ";" + body + "\a")
	}
	if b.Len() == 0 {
		return nil
	}
	m.notified = now
	return tea.Raw(b.String())
}

// notificationBody is the notification's text: the count, what the latest
// arrival asks (waitingText) and the key that shows it, with nothing that
// could end or split the sequence it travels in (hub text was cleaned of
// control characters on arrival).
func notificationBody(pending int, latest *Confirmation, show key.Binding) string {
	s := strconv.Itoa(pending) + " confirmation"
	if pending != 1 {
		s += "s"
	}
	s += " for you; latest " + oscField(waitingText(latest))
	if k := show.Help().Key; show.Enabled() && k != "" {
		s += " (" + oscField(k) + " shows it)"
	}
	return s
}

// waitTargetCells bounds the target in a notification or a title: a
// terminal shows a short title, and a persona chooses the target.
const waitTargetCells = 48

// waitingText names what waits in one line: the persona, the tool and the
// target, the target cut by cutTarget (its host or file kept) to
// waitTargetCells.
func waitingText(c *Confirmation) string {
	s := c.Requester
	if op := strings.TrimSpace(c.Tool + " " + cutTarget(c.Target, textWidth(c.Target), waitTargetCells)); op != "" {
		s += ": " + op
	}
	return s
}

// showCalled is the latest key: it shows the confirmation the latest call
// named in the queue (the filter cleared if it hides it). When that one
// was decided or expired meanwhile, it shows the first still waiting for
// the operator; when none waits, it says so.
func (m *Model) showCalled() tea.Cmd {
	cmd := m.switchTo(viewQueue)
	v := m.queue
	if _, ok := v.table.Get(m.called); ok && v.jump(m.called) {
		return cmd
	}
	if !v.table.SelectFirst(v.actionable) {
		v.table.SetFilter("")
		if !v.table.SelectFirst(v.actionable) {
			m.setNote(noteInfo, "nothing waits for you", 3*time.Second)
		}
	}
	return cmd
}

// oscField keeps text inside one field of an OSC sequence: ';' separates
// fields, and control characters are already gone.
func oscField(s string) string { return strings.ReplaceAll(termtext.Clean(s), ";", ",") }

// windowTitle is the terminal title: the installation, led by the count
// pending for the operator when the title notification is on (a tab bar
// shows the start of a title).
func (m *Model) windowTitle() string {
	t := "virgo-tui " + m.installation
	if m.opts.Notify.Title && m.queue.mine > 0 {
		p := strconv.Itoa(m.queue.mine) + " pending"
		if c, ok := m.queue.table.Get(m.called); ok {
			p += "; latest " + waitingText(c)
		}
		t = "(" + p + ") " + t
	}
	return t
}
