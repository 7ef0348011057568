package hub

import (
	"container/list"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/time/rate"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// fdHeadroom is how many descriptors the connection limit leaves to the
// hub's own files (database, lock, socket, logs, a store's client) when the
// process's descriptor limit is lower than the configured total.
const fdHeadroom = 128

// connGate bounds the connections the hub holds: a number per peer
// process (from SO_PEERCRED, so a process cannot claim another's) and a
// total. It never blocks accept, as netutil.LimitListener would: a new
// connection over a limit takes the place of the oldest connection that is
// idle and has carried no operator's request, of the same process at the
// per-process limit, of the process holding the most connections at the
// total. So a flood sheds its own connections, never an operator's, and an
// operator's new connection always gets in while a process holding more is
// left something to shed. Only when nothing is is the new connection
// refused: answered 503 too_many_connections and closed at once, holding
// nothing.
type connGate struct {
	net.Listener
	perProcess, total int
	healthRate        int

	mu    sync.Mutex
	procs map[int]*peerProcess
	live  map[net.Conn]*connSlot
	order list.List // *connSlot in accept order: the oldest is shed first
}

// peerProcess is what the gate keeps of one peer process.
type peerProcess struct {
	conns int
	// health bounds the process's GET /v1/health calls without a valid
	// token (healthPerSecond); kept while the process is known, so that
	// reconnecting does not refill it.
	health *rate.Limiter
}

// connSlot is one admitted connection.
type connSlot struct {
	gate *connGate
	c    net.Conn
	pid  int
	proc *peerProcess
	// idle: no request in flight (new or between requests).
	idle bool
	// operator: it carried a request with an operator's token; it is
	// never shed.
	operator bool
	elem     *list.Element
}

// newConnGate limits ln: perProcess and total connections (0 takes the
// limits table's), the total lowered to fit the process's descriptor limit.
func newConnGate(ln net.Listener, perProcess, total int) *connGate {
	if perProcess <= 0 {
		perProcess = hubapi.LimitOf("connections_per_process").Max
	}
	if total <= 0 {
		total = hubapi.LimitOf("connections").Max
	}
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl) == nil && rl.Cur < uint64(total)+fdHeadroom {
		total = max(int(rl.Cur)-fdHeadroom, 16)
	}
	return &connGate{Listener: ln, perProcess: min(perProcess, total), total: total,
		healthRate: hubapi.LimitOf("health_per_second").Max,
		procs:      map[int]*peerProcess{}, live: map[net.Conn]*connSlot{}}
}

// Accept returns the next connection the limits admit; the others are
// answered and closed here.
func (g *connGate) Accept() (net.Conn, error) {
	for {
		c, err := g.Listener.Accept()
		if err != nil {
			return nil, err
		}
		shed, err := g.admit(c, peerPID(c))
		if shed != nil {
			shed.Close()
		}
		if err == nil {
			return c, nil
		}
		refuseConn(c, err)
	}
}

// admit counts c for process pid, or says which limit refuses it; shed is
// a connection to close to make room.
func (g *connGate) admit(c net.Conn, pid int) (shed net.Conn, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.procs[pid]
	if p == nil {
		if len(g.procs) >= 2*g.total {
			g.forgetIdleProcesses()
		}
		p = &peerProcess{health: rate.NewLimiter(rate.Limit(g.healthRate), g.healthRate)}
		g.procs[pid] = p
	}
	var victim *connSlot
	switch {
	case p.conns >= g.perProcess:
		if victim = g.oldestSheddable(p); victim == nil {
			return nil, fmt.Errorf("%w: process %d holds %d connections to the hub, its limit (connections_per_process), every one busy or an operator's", hubapi.ErrTooManyConnections, pid, p.conns)
		}
	case len(g.live) >= g.total:
		if victim = g.sheddableOfHeaviest(p); victim == nil {
			return nil, fmt.Errorf("%w: the hub holds %d connections, its limit (connections), every one busy, an operator's or of a process holding fewer than process %d", hubapi.ErrTooManyConnections, len(g.live), pid)
		}
	}
	if victim != nil {
		g.drop(victim)
		shed = victim.c
	}
	s := &connSlot{gate: g, c: c, pid: pid, proc: p, idle: true}
	s.elem = g.order.PushBack(s)
	g.live[c] = s
	p.conns++
	return shed, nil
}

// sheddable reports whether s may be closed to make room: it is idle and
// has carried no operator's request.
func (s *connSlot) sheddable() bool { return s.idle && !s.operator }

// oldestSheddable is the oldest sheddable connection of process p, or nil.
func (g *connGate) oldestSheddable(p *peerProcess) *connSlot {
	for e := g.order.Front(); e != nil; e = e.Next() {
		if s := e.Value.(*connSlot); s.sheddable() && s.proc == p {
			return s
		}
	}
	return nil
}

// sheddableOfHeaviest makes room at the total limit for a new connection
// of process p: the oldest sheddable connection of the process holding the
// most connections (p counting the new one), and never one of a process
// holding fewer than p would; nil when there is none. Age alone is not
// enough: a connection whose first request the hub has not read yet looks
// idle, and under load the accept loop runs ahead of the reads, so a
// flood's newer connections would close an operator's new one.
func (g *connGate) sheddableOfHeaviest(p *peerProcess) *connSlot {
	held := func(q *peerProcess) int {
		if q == p {
			return q.conns + 1
		}
		return q.conns
	}
	var victim *connSlot
	for e := g.order.Front(); e != nil; e = e.Next() {
		if s := e.Value.(*connSlot); s.sheddable() && (victim == nil || held(s.proc) > held(victim.proc)) {
			victim = s
		}
	}
	if victim == nil || held(victim.proc) < held(p) {
		return nil
	}
	return victim
}

// forgetIdleProcesses bounds the gate's memory of processes: those with no
// connection left go.
func (g *connGate) forgetIdleProcesses() {
	for pid, p := range g.procs {
		if p.conns == 0 {
			delete(g.procs, pid)
		}
	}
}

// drop stops counting s.
func (g *connGate) drop(s *connSlot) {
	if g.live[s.c] != s {
		return
	}
	delete(g.live, s.c)
	g.order.Remove(s.elem)
	s.proc.conns--
}

// track follows the server's view of each connection (http.Server.ConnState).
func (g *connGate) track(c net.Conn, st http.ConnState) {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := g.live[c]
	if s == nil {
		return
	}
	switch st {
	case http.StateActive:
		s.idle = false
	case http.StateIdle:
		s.idle = true
	case http.StateHijacked, http.StateClosed:
		g.drop(s)
	}
}

// connContext puts the connection's slot in the context of its requests.
func (g *connGate) connContext(ctx context.Context, c net.Conn) context.Context {
	g.mu.Lock()
	s := g.live[c]
	g.mu.Unlock()
	return context.WithValue(withPeer(ctx, c), slotKey{}, s)
}

// slotKey keys a request's connection slot in its context.
type slotKey struct{}

// slotOf is the slot of the connection a request came on, or nil when it
// did not come through the gate (a test calling the handler).
func slotOf(ctx context.Context) *connSlot {
	s, _ := ctx.Value(slotKey{}).(*connSlot)
	return s
}

// markOperator keeps the connection of an operator's request from being
// shed.
func (s *connSlot) markOperator() {
	if s == nil {
		return
	}
	s.gate.mu.Lock()
	s.operator = true
	s.gate.mu.Unlock()
}

// allowHealth takes one of the process's anonymous health calls.
func (s *connSlot) allowHealth() bool {
	if s == nil {
		return true
	}
	s.gate.mu.Lock()
	defer s.gate.mu.Unlock()
	return s.proc.health.Allow()
}

// refuseConn answers a connection the gate refuses with a 503 naming the
// limit, then closes it. The write cannot block the accept loop: a peer
// that reads nothing gets nothing after a moment.
func refuseConn(c net.Conn, err error) {
	ae := wireError(err)
	body, _ := json.Marshal(ae)
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s\n",
		ae.Status, http.StatusText(ae.Status), len(body)+1, body)
	_ = c.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
	_, _ = c.Write([]byte(b.String()))
	_ = c.Close()
}
