// Package mcpserver serves a persona's capability stamp as an MCP server:
// any MCP client (an agent harness, a script) connected to it works as that
// persona, with exactly the stamp's MCP projection as its tools, every call
// decided by the hub under the persona's own token. It is a front end: a
// hub client (internal/hubclient) plus the runtime's executors of the tools
// the persona carries out on its own files (internal/workspace).
//
// The session is the runtime: while a client is connected the persona beats
// and reports its current tool call as its activity, and it stops when the
// client leaves. Confirmations are waited for here, with progress
// notifications, and decided by the routed authority in its console: never
// by MCP elicitation, which would ask whoever runs the client.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/tools"
	"github.com/virgo-hub/virgo-tui/internal/workspace"
)

// Named errors of the server's start.
var (
	// ErrNotPersona: the token is not a persona runtime's (an operator's
	// token never drives an MCP session).
	ErrNotPersona = errors.New("the MCP server acts with a persona's own runtime token, never an operator's")
	// ErrWrongPersona: the token is another persona's than the one served.
	ErrWrongPersona = errors.New("the token is not the served persona's")
	// ErrNoRepository: a call named the bound repository and the stamp
	// binds none.
	ErrNoRepository = errors.New("the stamp binds no repository")
)

// Defaults of Options.
const (
	// DefaultConfirmWait ends a waiting call before the common MCP clients
	// give up on it: the TypeScript SDK fails a request at 60 s by default
	// (-32001) unless the caller asked to reset that timeout on progress.
	// A call that fails there never learns its correlation id; one that
	// answers status "unknown" at 50 s does, and joins the same
	// confirmation when it calls again.
	DefaultConfirmWait = 50 * time.Second
	DefaultBeat        = 5 * time.Second
	DefaultProgress    = time.Second
)

// Options configure a runtime. Zero values take the defaults.
type Options struct {
	// Home is the installation home; the persona's own workspace is
	// workspace.HomeDir(Home, address) — always: the hub judges file
	// arguments and hashes artifacts there, so a runtime serving another
	// tree would act on files the hub never saw.
	Home string
	// ConfirmWait is how long a call waits for a confirmation's decision
	// before it answers status "unknown" with its correlation id.
	ConfirmWait time.Duration
	// Progress is how often a waiting call notifies the client: each wait
	// on the hub holds for at most this long.
	Progress time.Duration
	// Beat is the presence heartbeat interval of a session.
	Beat time.Duration
}

func (o Options) withDefaults() Options {
	if o.ConfirmWait <= 0 {
		o.ConfirmWait = DefaultConfirmWait
	}
	if o.Progress <= 0 {
		o.Progress = DefaultProgress
	}
	if o.Beat <= 0 {
		o.Beat = DefaultBeat
	}
	return o
}

// Runtime is one persona generation's runtime: its hub client (with its
// own token), its stamp as proven at boot, its tools and its workspace.
// One runtime serves any number of MCP sessions of that persona.
type Runtime struct {
	c    *hubclient.Client
	who  hubapi.Identity
	st   stamp.Stamp
	hash string
	// tools are the stamped tools' rows, in the stamp's (the MCP
	// projection's) order.
	tools []tools.Tool
	own   *workspace.Root
	repo  *workspace.Root
	opts  Options

	sessions   sessions
	inbox      inboxWatch
	serverOnce sync.Once
	mcp        *mcp.Server

	// fence is the instance fence this runtime claimed at boot; gone
	// is why it stopped, once a newer instance claimed the generation's
	// or the generation was retired (stopFor).
	fence coord.Fence
	gone  atomic.Pointer[error]
	// life ends when the runtime stops (stopFor): every call in flight is
	// cancelled with it, so that no call holds the end of a session up (a
	// confirmation wait lasts up to ConfirmWait).
	life context.Context
	end  context.CancelCauseFunc
}

// Boot proves a persona can run and returns its runtime: the client's token
// must be a persona's (address, when not empty, must be its address); its
// stamp, loaded through the hub, must hash to the recorded hash; the three
// projections derived from the file's bytes must be equal; and every
// stamped tool must have an input schema and an executor. Otherwise it
// refuses, naming what is missing (stamp.ErrNotStanding).
func Boot(ctx context.Context, c *hubclient.Client, address string, opts Options) (*Runtime, error) {
	who, err := c.WhoAmI(ctx)
	if err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	if who.Kind != hubapi.PrincipalPersona {
		return nil, fmt.Errorf("mcp: the token is %s's: %w", who.Principal, ErrNotPersona)
	}
	if address != "" && who.Principal != address {
		return nil, fmt.Errorf("mcp: serving %s with the token of %s: %w", address, who.Principal, ErrWrongPersona)
	}
	// The runtime is one instance of its generation: it claims the
	// generation's fence, which fences out any older instance, and the
	// client presents it on every request from now on. It claims before
	// anything else, as every call but who-am-I presents the fence: an
	// instance that then fails its proof leaves the seat to no runtime,
	// never to a stale one. A server handed a fence is part of the
	// instance that claimed it (a resident session, whose hooks present the
	// same fence): it serves under it rather than fence its own session out.
	fence := c.Fence()
	if fence == coord.NoFence {
		if fence, err = c.ClaimFence(ctx); err != nil {
			return nil, fmt.Errorf("mcp: %s: claim the instance fence: %w", who.Principal, err)
		}
	}
	v, err := c.Stamp(ctx, who.PersonaID)
	if err != nil {
		return nil, fmt.Errorf("mcp: load the stamp of %s: %w", who.Principal, err)
	}
	rows, err := prove(v)
	if err != nil {
		return nil, fmt.Errorf("mcp: %s: %w", who.Principal, err)
	}
	r := &Runtime{c: c, who: who, st: v.Stamp, hash: v.Hash, tools: rows, opts: opts.withDefaults(), fence: fence}
	r.life, r.end = context.WithCancelCause(context.Background())
	if err := r.openWorkspace(); err != nil {
		return nil, err
	}
	return r, nil
}

// Why a runtime stops serving while it runs.
var (
	// ErrFencedOut: a newer runtime instance of the same generation claimed
	// its fence; this one stops serving.
	ErrFencedOut = errors.New("fenced out: a newer instance of this persona generation connected; this MCP session ends")
	// ErrRetiredOut: the generation this runtime acts for was retired; its
	// token acts no more, so the runtime stops serving.
	ErrRetiredOut = errors.New("retired: this persona generation was retired; this MCP session ends")
)

// stopFor stops the runtime after the hub refused it for good (why is
// ErrFencedOut or ErrRetiredOut, cause the hub's refusal): the calls in
// flight end, every session is told why (a log message) and closed, and
// every later call answers why. It is called from inside a call's handler
// too, whose session's close waits for that handler to return: so the
// sessions are closed after it, never from it.
func (r *Runtime) stopFor(why, cause error) {
	err := fmt.Errorf("%w (%s: %v)", why, r.who.Principal, cause)
	if r.gone.CompareAndSwap(nil, &err) {
		r.end(err)
		go r.sessions.closeAll(err)
	}
}

// living is the context of one call of session s: ctx, ended too when
// the runtime is fenced out or the session stops serving.
func (r *Runtime) living(ctx context.Context, s *session) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	stops := []func() bool{context.AfterFunc(r.life, func() { cancel(context.Cause(r.life)) })}
	if s != nil {
		stops = append(stops, context.AfterFunc(s.calls, func() { cancel(context.Cause(s.calls)) }))
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel(nil)
	}
}

// stopped is why the runtime stopped serving, nil while it serves.
func (r *Runtime) stopped() error {
	if p := r.gone.Load(); p != nil {
		return *p
	}
	return nil
}

// retiredCheck bounds the who-am-I that confirms a retirement.
const retiredCheck = 5 * time.Second

// checkEnded stops the runtime when err says it was fenced out or its
// generation retired, and reports whether it did. A call's `retired` may
// name another persona (a target retired), so it stops the runtime only
// once who-am-I, which answers from the runtime's own token alone, says
// this generation is the one retired.
func (r *Runtime) checkEnded(err error) bool {
	switch {
	case errors.Is(err, coord.ErrFenced):
		r.stopFor(ErrFencedOut, err)
		return true
	case errors.Is(err, registry.ErrRetired):
		ctx, cancel := context.WithTimeout(context.Background(), retiredCheck)
		defer cancel()
		if _, werr := r.c.WhoAmI(ctx); errors.Is(werr, registry.ErrRetired) {
			r.stopFor(ErrRetiredOut, werr)
			return true
		}
	}
	return false
}

// prove is the boot proof of a stamp as the hub served it: the file's
// bytes (the factory's canonical encoding, checked against the recorded
// hash), its three projections and their equality, and a schema and an
// executor for every tool. It returns the tools' rows in the MCP
// projection's order.
func prove(v hubapi.StampView) (rows []tools.Tool, err error) {
	b, err := stamp.Marshal(v.Stamp)
	if err != nil {
		return nil, err
	}
	if err := stamp.VerifyHash("the stamp served of "+v.Address, b, v.Hash); err != nil {
		return nil, err
	}
	p, err := stamp.Project(b)
	if err != nil {
		return nil, err
	}
	if err := stamp.CheckProjections(p); err != nil {
		return nil, err
	}
	// Every stamped tool needs a row of the tool table (its input schema)
	// and an executor: the runtime's for a runtime tool, else the hub's
	// (every hub tool of the table has one: usecase's
	// TestEveryHubToolHasAnExecutor holds the two tables together, so the
	// MCP server links no use case).
	// Each tool missing one is named once here (BootCheck then checks
	// the scopes' bindings).
	handlers := make(map[string]bool, len(v.Stamp.Tools))
	byName := make(map[string]tools.Tool, len(v.Stamp.Tools))
	var missing []stamp.Problem
	for _, t := range v.Stamp.Tools {
		handlers[t.HandlerAction] = true
		row, err := tools.Lookup(t.Name)
		byName[t.Name] = row
		switch {
		case err != nil:
			missing = append(missing, stamp.Problem{Rule: stamp.RuleHandlerMissing, Tool: t.Name,
				Message: "no input schema: the tool table has no row for it"})
		case row.Runtime && !executes(row):
			missing = append(missing, stamp.Problem{Rule: stamp.RuleHandlerMissing, Tool: t.Name,
				Message: "no executor for it in this MCP server"})
		}
	}
	if err := stamp.BootCheck(v.Stamp, handlers); err != nil || len(missing) > 0 {
		return nil, errors.Join(append(problemsErr(missing), err)...)
	}
	rows = make([]tools.Tool, 0, len(p.MCP))
	for _, name := range p.MCP {
		rows = append(rows, byName[name])
	}
	return rows, nil
}

// problemsErr wraps each problem as a refusal naming its tool.
func problemsErr(ps []stamp.Problem) []error {
	out := make([]error, 0, len(ps))
	for _, p := range ps {
		out = append(out, fmt.Errorf("%w: %s", stamp.ErrNotStanding, p))
	}
	return out
}

// openWorkspace opens the persona's own workspace (created 0700 on first
// start) and its bound repository, if any.
func (r *Runtime) openWorkspace() error {
	if r.opts.Home == "" {
		return fmt.Errorf("mcp: %s: no home: %w", r.who.Principal, workspace.ErrNoRoot)
	}
	dir := workspace.HomeDir(r.opts.Home, r.who.Principal)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("mcp: workspace of %s: %w", r.who.Principal, err)
	}
	own, err := workspace.Open(dir, r.st.Workspace.MutablePaths)
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	r.own = own
	if repo := r.st.Workspace.Repository; repo != "" {
		if r.repo, err = workspace.Open(repo, nil); err != nil {
			own.Close()
			return fmt.Errorf("mcp: bound repository: %w", err)
		}
	}
	return nil
}

// Close ends the runtime's inbox watch and releases its workspace handles
// (not its client).
func (r *Runtime) Close() error {
	r.closeInbox()
	err := r.own.Close()
	if r.repo != nil {
		err = errors.Join(err, r.repo.Close())
	}
	return err
}

// Persona is the identity the runtime acts as.
func (r *Runtime) Persona() hubapi.Identity { return r.who }

// Workspace is the persona's own workspace tree.
func (r *Runtime) Workspace() *workspace.Root { return r.own }
