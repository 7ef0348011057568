package ui

import (
	"context"
	"io"
	"log/slog"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/virgo-hub/virgo-tui/internal/termtext"
	"github.com/virgo-hub/virgo-tui/internal/ui/keymap"
	"github.com/virgo-hub/virgo-tui/internal/ui/styles"
	"github.com/virgo-hub/virgo-tui/internal/ui/wizard"
)

// viewID names the shell's views, in tab order.
type viewID int

const (
	viewPresence viewID = iota
	viewQueue
	viewWizard
	viewMatrix
	viewInbox
	viewCount
)

var viewTitles = [viewCount]string{"Presence", "Queue", "Add persona", "Matrix", "Inbox"}

// Options configure the console. The zero value is usable.
type Options struct {
	// Keys overrides keymap.Default (see keymap.Load); the same map reaches
	// the wizard and the matrix view.
	Keys *keymap.KeyMap
	// Now is the clock; tests pass a fixed one so ages are stable.
	Now func() time.Time
	// Arming is how long a confirmation must have been the selected row,
	// visible on screen, before a/A/d act on it (DefaultArming).
	Arming time.Duration
	// Settle is how long no key may follow a decision key before the
	// decision is sent (DefaultSettle); see standing.
	Settle time.Duration
	// Notify is how the operator is called when a confirmation for them
	// arrives while they are not looking at the queue; the zero value
	// calls nobody (Run passes the console configuration's).
	Notify Notify
	// Tick is the period of the batch drain and of frame refreshes (200 ms).
	Tick time.Duration
	// Logger receives the console's log; it must not write to the screen.
	Logger *slog.Logger
	// Context bounds every client call; nil means context.Background().
	Context context.Context
	// Plugins are the wizard and matrix views, when wired in.
	Plugins Plugins
}

// noteKind is the tone of a status line note.
type noteKind uint8

const (
	noteInfo noteKind = iota
	noteWarn
	noteError
)

// note is a transient line in the status bar, kept afterwards in the
// note history (see noteLog).
type note struct {
	text  string
	kind  noteKind
	at    time.Time
	until time.Time
}

// promptLimit bounds what the prompt line takes (a filter, a reason, a path).
const promptLimit = 256

// promptKind is what the prompt line is asking for.
type promptKind uint8

const (
	promptNone promptKind = iota
	promptFilter
	promptJump
	promptReason
	// The inbox's fields: a reply's text, a reaction id, a todo line's
	// number, a path to save a file to (see inboxPrompt).
	promptReply
	promptReact
	promptTick
	promptSave
)

// Model is the console's one root model. Children render into the size the
// shell gives them; all I/O happens in commands.
type Model struct {
	client Client
	ctx    context.Context
	log    *slog.Logger
	keys   keymap.KeyMap
	styles *Styles
	help   help.Model
	now    func() time.Time
	opts   Options

	width, height int
	view          viewID

	installation, home, operator string
	seq                          uint64
	conn                         ConnState
	loaded                       bool

	presence *presenceView
	queue    *queueView
	plugins  *plugins
	inbox    *inboxView
	// inboxClient is the client's inbox, nil when it has none.
	inboxClient InboxClient
	// inboxFor is the item an open inbox field acts on; inboxDirty says a
	// batch changed the inbox, so its unread count is asked again.
	inboxFor   string
	inboxDirty bool

	prompt    promptKind
	input     textinput.Model
	reasonFor string // confirmation id the deny reason is for
	// reasonArmed says whether d was pressed on an armed row; a deny
	// prompt opened too early sends nothing.
	reasonArmed bool
	// fieldAt is when the deny field or an inbox field opened: a key
	// within the settle time after it shows the key that opened it was
	// typing (see reasonTyped, inboxTyped).
	fieldAt time.Time
	// reasonWhy says why a deny prompt has nothing to deny (reasonFor "").
	reasonWhy string
	// dialog is the open remember dialog, nil when none is.
	dialog  *rememberDialog
	several *severalDialog
	// answer is the open dialog of a card's actions, nil when none is.
	answer   *answerDialog
	deciding map[string]Decision
	note     note
	notes    noteLog
	armed    arming
	standing standing
	// blurred says the terminal reported losing focus; notified is when
	// the operator was last called (see notifyArrival).
	blurred  bool
	notified time.Time
	// called is the id of the latest confirmation for the operator to
	// arrive: the one a call names, the one the latest key shows.
	called       string
	feed         *feed
	tickInterval time.Duration
}

// New returns a console for client. Init fetches the first snapshot.
func New(client Client, opts Options) *Model {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Arming == 0 {
		opts.Arming = DefaultArming
	}
	if opts.Settle == 0 {
		opts.Settle = DefaultSettle
	}
	if opts.Tick == 0 {
		opts.Tick = 200 * time.Millisecond
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Context == nil {
		opts.Context = context.Background()
	}
	keys := keymap.Default()
	if opts.Keys != nil {
		keys = *opts.Keys
	}
	st := newStyles(styles.Default())
	in := textinput.New()
	in.CharLimit = promptLimit
	ist := textinput.DefaultStyles(true)
	ist.Cursor.Blink = false // a steady cursor: no blink ticks, stable screens
	in.SetStyles(ist)
	m := &Model{
		client: client, ctx: opts.Context, log: opts.Logger, keys: keys, styles: st,
		help: help.New(), now: opts.Now, opts: opts,
		width: 80, height: 24,
		presence: newPresenceView(st), queue: newQueueView(st),
		input: in, deciding: map[string]Decision{}, feed: &feed{}, tickInterval: opts.Tick,
	}
	m.plugins = newPlugins(opts.Plugins, opts.Context, &m.keys, st.Styles)
	m.inbox = newInboxView(st, m.queue)
	m.inboxClient, _ = client.(InboxClient)
	m.layout()
	return m
}

// Init fetches the snapshot and starts the frame ticker.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(fetchSnapshot(m.ctx, m.client), tick(m.tickInterval, m.feed))
}

// Update handles one message. It performs no I/O: side effects are
// returned as commands. After every message it notes what the operator has
// selected on screen, which arms decisions (see arming); every typed key is
// timed, and a decision waiting out its settle time is sent after a
// message that is not a key (see standing).
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	now := m.now()
	typing := isTyping(msg)
	if typing {
		m.beforeKey(now)
	}
	model, cmd := m.update(msg)
	m.inbox.followQueue(m.view == viewInbox, now)
	m.observeSelection(now, typing)
	if !typing {
		cmd = tea.Batch(cmd, m.settle(now))
	}
	return model, cmd
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, nil
	case snapshotMsg:
		return m, m.onSnapshot(msg)
	case subscribedMsg:
		if msg.err != nil {
			m.conn = Disconnected
			m.setNote(noteError, "hub: "+msg.err.Error(), 8*time.Second)
			return m, reconnectAfter(2 * time.Second)
		}
		m.conn = Connected
		return m, nil
	case reconnectMsg:
		m.conn = Connecting
		return m, fetchSnapshot(m.ctx, m.client)
	case batchMsg:
		return m, m.onBatch(msg)
	case decidedMsg:
		return m, m.onDecided(msg)
	case indexedMsg:
		msg.install()
		return m, nil
	case inboxLoadedMsg, inboxStatusMsg, inboxActedMsg:
		return m, m.onInboxMsg(msg)
	case sessionDoneMsg, sessionAttachMsg:
		return m, m.onSession(msg)
	case tea.KeyPressMsg:
		return m, m.onKey(msg)
	case tea.PasteMsg:
		return m, m.onPaste(msg)
	case tea.FocusMsg:
		m.blurred = false
		return m, nil
	case tea.BlurMsg:
		m.blurred = true
		return m, nil
	case wizard.DoneMsg:
		m.onWizardDone(msg.Result)
		return m, nil
	}
	return m, m.plugins.update(m.view, msg)
}

// onSnapshot loads a snapshot (at start and after a reconnect) and
// subscribes to the changes after it.
func (m *Model) onSnapshot(msg snapshotMsg) tea.Cmd {
	if msg.err != nil {
		m.conn = Disconnected
		m.setNote(noteError, "hub: "+msg.err.Error(), 8*time.Second)
		return reconnectAfter(2 * time.Second)
	}
	s := msg.snap
	sanitizeSnapshot(&s)
	now := m.now()
	m.installation, m.home, m.operator, m.seq = s.Installation, s.Home, s.Operator, s.Seq
	m.presence.load(s.Personas, now)
	var arrived []*Confirmation // new for the operator since before a reconnect
	if m.loaded {
		for i := range s.Confirmations {
			c := &s.Confirmations[i]
			if _, had := m.queue.table.Get(c.ID); !had && c.Authority == s.Operator {
				arrived = append(arrived, c)
			}
		}
	}
	m.queue.load(s.Operator, s.Confirmations, now)
	m.loaded = true
	m.closeReasonIfGone()
	m.closeDialogIfGone()
	m.closeSeveralIfChanged()
	return tea.Batch(subscribe(m.ctx, m.client, m.feed, s.Seq), m.presence.table.indexCmd(), m.queue.table.indexCmd(),
		m.notifyArrival(arrived, now), m.fetchInbox())
}

// onBatch applies every change that arrived since the last tick in one go
// and schedules the next tick.
func (m *Model) onBatch(msg batchMsg) tea.Cmd {
	next := tick(m.tickInterval, m.feed)
	now := m.now()
	if m.note.text != "" && !now.Before(m.note.until) {
		m.note = note{}
	}
	var call tea.Cmd
	if len(msg.changes) > 0 {
		call = m.notifyArrival(m.apply(msg.changes, now), now)
	}
	if m.inboxDirty {
		m.inboxDirty = false
		call = tea.Batch(call, m.fetchInboxStatus())
	}
	if msg.ended {
		m.conn = Disconnected
		m.setNote(noteWarn, "hub stream ended; reconnecting", 4*time.Second)
		return tea.Batch(next, reconnectAfter(time.Second), call)
	}
	return tea.Batch(next, call)
}

// apply applies a run of changes and returns the confirmations for the
// operator among them that were not pending before.
func (m *Model) apply(changes []Change, now time.Time) (arrived []*Confirmation) {
	persons := 0
	for i := range changes {
		if changes[i].Kind == PersonaChanged {
			persons++
		}
	}
	m.presence.table.Begin(persons)
	for i := range changes {
		c := &changes[i]
		if c.Seq != 0 && c.Seq <= m.seq {
			continue // already in the snapshot
		}
		sanitizeChange(c)
		if c.Seq > m.seq {
			m.seq = c.Seq
		}
		switch c.Kind {
		case PersonaChanged:
			m.presence.upsert(c.Persona, now)
		case PersonaRemoved:
			m.presence.table.Delete(c.ID)
		case ConfirmationPending:
			if _, had := m.queue.table.Get(c.Confirmation.ID); !had && m.queue.actionable(&c.Confirmation) {
				arrived = append(arrived, &c.Confirmation)
			}
			m.queue.add(c.Confirmation, now)
		case ConfirmationDecided:
			m.decidedElsewhere(c)
		case InboxItemChanged:
			m.inbox.upsert(c.Item, now)
			m.inboxDirty = true
			m.closeInboxPromptIfGone()
			m.closeAnswerIfChanged()
		case TypingChanged:
			m.inbox.setTyping(c.Typing)
		}
	}
	m.presence.table.End()
	return arrived
}

// decidedElsewhere removes a confirmation decided elsewhere and says who:
// the operator themselves in another console (or on the command line) is
// named as such. An open deny prompt for it closes.
func (m *Model) decidedElsewhere(c *Change) {
	cf, ok := m.queue.table.Get(c.ID)
	if !ok {
		return // decided here: already gone
	}
	what := cf.Requester + " " + cf.Operation
	m.queue.remove(c.ID)
	m.closeReasonIfGone()
	m.closeDialogIfGone()
	m.closeSeveralIfChanged()
	if m.isDeciding(c.ID) {
		return // this console's own decision: onDecided reports it
	}
	outcome := c.Outcome
	if outcome == "" {
		outcome = "decided"
	}
	by := c.DecidedBy
	switch {
	case by == "":
		by = "someone else"
	case by == m.operator && m.plugins.approvedHere(c.ID):
		by = "you here, in the persona add wizard"
	case by == m.operator:
		by = "you in another console"
	}
	m.setNote(noteInfo, outcome+", decided by "+by+": "+what, 5*time.Second)
}

// closeReasonIfGone closes the deny prompt when its confirmation left.
func (m *Model) closeReasonIfGone() {
	if m.prompt != promptReason || m.reasonFor == "" {
		return
	}
	if _, ok := m.queue.table.Get(m.reasonFor); !ok {
		m.closePrompt()
	}
}

// setNote shows text in the status line and keeps it in the history; it
// is cleaned there because it may quote the hub's own words (an error, a
// name), and a persona id in it is replaced by the persona's address.
func (m *Model) setNote(k noteKind, text string, d time.Duration) {
	now := m.now()
	m.note = note{text: m.withAddresses(termtext.Clean(text)), kind: k, at: now, until: now.Add(d)}
	m.notes.add(m.note)
}

// layout gives every child its size after a resize or a help toggle.
func (m *Model) layout() {
	m.help.SetWidth(m.width)
	h := m.bodyHeight()
	m.presence.setSize(m.width, h)
	m.queue.setSize(m.width, h)
	m.inbox.setSize(m.width, h)
	m.plugins.resize(m.width, h)
}

// bodyHeight is what is left for the view between the bars.
func (m *Model) bodyHeight() int {
	return max(3, m.height-3-m.footerHeight())
}

// onWizardDone closes the wizard and shows where its result went: a
// submitted activation waits in the queue unless it was approved on the spot.
func (m *Model) onWizardDone(r wizard.Result) {
	m.plugins.closeWizard()
	switch {
	case r.Cancelled || r.Submitted == nil:
		m.setNote(noteInfo, "persona add cancelled: nothing was registered", 4*time.Second)
		m.switchTo(viewPresence)
	case r.Approved:
		m.setNote(noteInfo, r.Registration.Address.String()+" registered and approved", 5*time.Second)
		m.switchTo(viewPresence)
	default:
		m.setNote(noteInfo, r.Registration.Address.String()+" registered; its activation waits in the queue", 5*time.Second)
		m.switchTo(viewQueue)
	}
}
