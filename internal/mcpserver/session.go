package mcpserver

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
)

// session is the presence of one connected MCP client: the persona's beat
// stream to the hub, beating while the client is connected, carrying the
// current tool call as the persona's activity, closed when it leaves.
type session struct {
	c    *hubclient.Client
	beat time.Duration
	// ended is told when the hub refuses the stream, and answers whether
	// that ends the runtime (fenced out, or its generation retired).
	ended func(error) bool

	mu      sync.Mutex
	current string // the activity to report
	// declared is the activity the persona set itself (set_activity): it
	// is reported again when a call ends, so it stays until replaced.
	declared string
	changed  chan struct{}
	stopOnce sync.Once
	stopped  chan struct{}
	done     chan struct{}
	// calls ends the session's calls in flight: when it stops, or when
	// its command is told to stop (endCalls).
	calls    context.Context
	endCalls context.CancelCauseFunc
}

// errSessionEnded is why the calls of a session that ended were cancelled.
var errSessionEnded = errors.New("the MCP session ended")

// startSession opens the presence of a client's session; stop it when the
// client leaves.
func startSession(c *hubclient.Client, beat time.Duration, ended func(error) bool) *session {
	s := &session{c: c, beat: beat, ended: ended, changed: make(chan struct{}, 1), stopped: make(chan struct{}), done: make(chan struct{})}
	s.calls, s.endCalls = context.WithCancelCause(context.Background())
	go s.run()
	return s
}

// activity sets what the persona is doing now ("" when idle); the latest
// value is reported, at once, on the session's beat stream.
func (s *session) activity(text string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.current = text
	s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// idle reports that no call runs: the persona's own declared activity
// again ("" when it declared none).
func (s *session) idle() {
	if s == nil {
		return
	}
	s.mu.Lock()
	text := s.declared
	s.mu.Unlock()
	s.activity(text)
}

// declare records the activity the persona set itself, reported from now
// on whenever no call runs.
func (s *session) declare(text string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.declared = text
	s.mu.Unlock()
}

// stop ends the session's presence: its beat stream is closed, so the
// persona stops beating the moment the client leaves.
func (s *session) stop() {
	if s == nil {
		return
	}
	s.stopOnce.Do(func() { close(s.stopped) })
	s.endCalls(errSessionEnded)
	<-s.done
}

// run owns the beat stream (a stream is used from one goroutine): it beats
// every interval, reports each activity change, and opens the stream again
// after the hub ended it (a restart), until stopped.
func (s *session) run() {
	defer close(s.done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tick := time.NewTicker(s.beat)
	defer tick.Stop()
	var bs *hubclient.BeatStream
	closeStream := func() {
		if bs != nil {
			_, _ = bs.Close()
			bs = nil
		}
	}
	defer closeStream()
	// send beats or reports; it answers false once the hub fenced this
	// instance out or retired its generation (the session then ends).
	send := func(rep *hubapi.PresenceReport) bool {
		if bs == nil {
			var err error
			if bs, err = s.c.OpenBeatStream(ctx); err != nil {
				bs = nil
				return !s.ended(err)
			}
		}
		var err error
		if rep == nil {
			err = bs.Beat()
		} else {
			err = bs.Report(*rep)
		}
		if err != nil {
			_, cerr := bs.Close()
			bs = nil // opened again on the next beat
			return !s.ended(err) && !s.ended(cerr)
		}
		return true
	}
	// Activity is reported when it changes, at most once per
	// activityEvery: a call that starts and ends in between is not shown
	// (the console redraws a few times a second), and the latest activity
	// is always reported. A new stream reports it again.
	var (
		reported   string                // the activity last reported,
		reportedOn *hubclient.BeatStream // on this stream
		lastAt     time.Time
		due        <-chan time.Time
	)
	report := func() bool {
		s.mu.Lock()
		text := s.current
		s.mu.Unlock()
		if bs != nil && reportedOn == bs && text == reported {
			return true
		}
		lastAt = time.Now()
		ok := send(&hubapi.PresenceReport{Activity: &text})
		reported, reportedOn = text, bs
		return ok
	}
	ok := send(nil)
	for ok {
		var ended <-chan struct{}
		if bs != nil {
			ended = bs.Done()
		}
		select {
		case <-s.stopped:
			return
		case <-ended:
			// The hub answered the stream: it ended it. Fenced out or
			// retired ends the session; anything else opens a new stream
			// at the next beat.
			_, err := bs.Close()
			bs = nil
			ok = !s.ended(err)
		case <-tick.C:
			ok = send(nil)
		case <-s.changed:
			if wait := activityEvery - time.Since(lastAt); wait > 0 {
				if due == nil {
					due = time.After(wait)
				}
				continue
			}
			ok = report()
		case <-due:
			due = nil
			ok = report()
		}
	}
}

// activityEvery is the least time between two activity reports of a
// session: an agent making hundreds of calls a second reports a few.
const activityEvery = 100 * time.Millisecond

// sessions tracks the presence of each connected MCP session.
type sessions struct {
	mu sync.Mutex
	m  map[*mcp.ServerSession]*session
}

// closeAll ends every session (the runtime was fenced out or retired),
// each told why first.
func (ss *sessions) closeAll(why error) {
	ss.mu.Lock()
	all := make([]*mcp.ServerSession, 0, len(ss.m))
	for s := range ss.m {
		all = append(all, s)
	}
	ss.mu.Unlock()
	for _, s := range all {
		closeSession(s, why)
	}
}

// logWait bounds telling a session why it ends: a client that does not
// read does not hold its close up.
const logWait = 200 * time.Millisecond

// closeSession tells s why it ends, as an MCP log message (sent when the
// client asked for log messages), and closes it. It waits for the calls in
// flight to return, so it is never called from one of their handlers.
// MCP's logging is deprecated (SEP-2577, protocol 2026-07-28) but works
// through its deprecation window, and is the one way to tell a client why
// its session ends when no call is in hand (the fence seen by the beat
// stream); the call in hand gets a tool error besides.
func closeSession(s *mcp.ServerSession, why error) {
	ctx, cancel := context.WithTimeout(context.Background(), logWait)
	//lint:ignore SA1019 the one channel to say why a session ends outside a call (see above)
	_ = s.Log(ctx, &mcp.LoggingMessageParams{Level: "error", Logger: "virgo", Data: why.Error()})
	cancel()
	_ = s.Close()
}

// present is the server's receiving middleware that makes every MCP
// session the persona's presence: the first request of a session (its
// initialize, or a first call under a protocol without one) opens it, and
// it ends when the session does.
func (r *Runtime) present(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
			r.openSession(ss)
		}
		return next(ctx, method, req)
	}
}

// openSession starts the presence of ss, unless it runs, and ends it when
// ss ends; a session of a runtime fenced out is closed once the request
// that opened it is answered (it runs in that request's handling).
func (r *Runtime) openSession(ss *mcp.ServerSession) {
	if err := r.stopped(); err != nil {
		go closeSession(ss, err)
		return
	}
	r.sessions.mu.Lock()
	if _, open := r.sessions.m[ss]; open {
		r.sessions.mu.Unlock()
		return
	}
	if r.sessions.m == nil {
		r.sessions.m = map[*mcp.ServerSession]*session{}
	}
	s := startSession(r.c, r.opts.Beat, r.checkEnded)
	r.sessions.m[ss] = s
	r.sessions.mu.Unlock()
	go func() {
		_ = ss.Wait()
		r.sessions.mu.Lock()
		delete(r.sessions.m, ss)
		r.sessions.mu.Unlock()
		s.stop()
	}()
}

// sessionOf is the presence of ss, nil before it is initialized.
func (r *Runtime) sessionOf(ss *mcp.ServerSession) *session {
	r.sessions.mu.Lock()
	defer r.sessions.mu.Unlock()
	return r.sessions.m[ss]
}
