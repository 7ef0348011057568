package hub

import (
	"sync"

	"github.com/virgo-hub/virgo-tui/internal/coord"
)

// mailboxBuffer is how many messages a seat's open stream may fall behind
// before it is ended (its runtime reconnects and resumes after the last
// message it read): a stalled reader never grows the hub's memory.
const mailboxBuffer = 256

// mailboxes hands each coordination message, as the store's watch sees
// it committed, to the open message streams of its recipient seat.
type mailboxes struct {
	mu   sync.Mutex
	subs map[string]map[chan coord.Message]struct{}
}

func newMailboxes() *mailboxes {
	return &mailboxes{subs: make(map[string]map[chan coord.Message]struct{})}
}

// subscribe opens a stream of the messages admitted to seat from now on.
// The channel is closed when the subscriber fell mailboxBuffer behind, or
// by cancel.
func (m *mailboxes) subscribe(seat string) (<-chan coord.Message, func()) {
	ch := make(chan coord.Message, mailboxBuffer)
	m.mu.Lock()
	if m.subs[seat] == nil {
		m.subs[seat] = make(map[chan coord.Message]struct{})
	}
	m.subs[seat][ch] = struct{}{}
	m.mu.Unlock()
	return ch, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.dropLocked(seat, ch)
	}
}

// dropLocked removes and closes one subscriber, once.
func (m *mailboxes) dropLocked(seat string, ch chan coord.Message) {
	if _, ok := m.subs[seat][ch]; !ok {
		return
	}
	delete(m.subs[seat], ch)
	if len(m.subs[seat]) == 0 {
		delete(m.subs, seat)
	}
	close(ch)
}

// deliver hands msg to its seat's open streams without waiting on any.
func (m *mailboxes) deliver(msg coord.Message) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for ch := range m.subs[msg.To] {
		select {
		case ch <- msg:
		default:
			m.dropLocked(msg.To, ch)
		}
	}
}
