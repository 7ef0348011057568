// Package sshconsole serves the operator console over SSH, the way
// soft-serve serves its UI: a human connects with `ssh -p 2222 virgo@host`,
// is identified by the public key the session authenticated with — never
// by the user name — and gets the same console (internal/ui) as at the
// machine, acting as that human through the hub client. The console runs
// with a token the hub issues for the session (hub.OpenSSHSession), never
// with the human's operator token nor the local operator's, so every
// decision is audited "via ssh" with the key's fingerprint.
//
// Only public-key authentication is offered; only an interactive terminal
// is served (no exec, no subsystem, no forwarding of any kind); idle and
// whole-session times and a connection rate bound what one client holds.
package sshconsole

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"charm.land/wish/v2"
	"charm.land/wish/v2/bubbletea"
	gossh "golang.org/x/crypto/ssh"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/hubconsole"
	"github.com/virgo-hub/virgo-tui/internal/operatorkeys"
	"github.com/virgo-hub/virgo-tui/internal/ui"
)

// Hub is what the console needs of the hub it runs beside (*hub.Hub).
type Hub interface {
	// SSHKeyOwner is the enrolled human a public key is listed for.
	SSHKeyOwner(ctx context.Context, pk gossh.PublicKey) (operatorkeys.Key, error)
	// OpenSSHSession issues a token acting as human through via; end
	// forgets it.
	OpenSSHSession(human string, via confirm.Via) (token string, end func(), err error)
}

// Limits bound what one client can hold. Zero fields take DefaultLimits'.
type Limits struct {
	// Idle ends a session after this long without a key from its human.
	Idle time.Duration
	// Session ends a session (and its connection) this long after it
	// connected, whatever it does.
	Session time.Duration
	// Handshake bounds the SSH handshake, authentication included.
	Handshake time.Duration
	// PerMinute is how many connections the server accepts a minute, in a
	// burst or spread out; more are closed before the handshake.
	PerMinute int
}

// DefaultLimits are the console's limits unless serve's flags say otherwise.
var DefaultLimits = Limits{Idle: 15 * time.Minute, Session: 8 * time.Hour, Handshake: 10 * time.Second, PerMinute: 30}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.Idle <= 0 {
		l.Idle = d.Idle
	}
	if l.Session <= 0 {
		l.Session = d.Session
	}
	if l.Handshake <= 0 {
		l.Handshake = d.Handshake
	}
	if l.PerMinute <= 0 {
		l.PerMinute = d.PerMinute
	}
	return l
}

// Config configures a Server. Home, Hub, HostKey and Console are required.
type Config struct {
	// Home is the installation's home directory (the hub's socket is there).
	Home string
	Hub  Hub
	// HostKey is the server's key (HostKey reads the home's).
	HostKey gossh.Signer
	// Console returns the console's options over a session's hub client
	// (the wizard's backend, say); the server adds the terminal.
	Console func(c *hubclient.Client) ui.RunOptions
	Limits  Limits
	Log     *slog.Logger
}

// Named errors of a session.
var (
	// ErrKeyMismatch: the key the session signed with is not the key the
	// server accepted; nobody is bound.
	ErrKeyMismatch = errors.New("the key that authenticated the session is not the key that was accepted")
	// ErrNoKey: a session without public-key authentication.
	ErrNoKey = errors.New("the session did not authenticate with a public key")
	// ErrNotTerminal: anything but an interactive terminal was asked for.
	ErrNotTerminal = errors.New("only an interactive terminal is served: connect with ssh -t, without a command")
)

// extFingerprint is the permissions extension in which authentication
// records the fingerprint of the key it accepted. x/crypto/ssh hands the
// session the permissions of the key that actually signed, so comparing it
// with the session's key catches a key offered but not used.
const extFingerprint = "virgo-key-fingerprint"

// Server is the SSH console.
type Server struct {
	cfg    Config
	limits Limits
	log    *slog.Logger
	srv    *ssh.Server
	rate   *connRate
}

// New returns the console's server; Serve runs it.
func New(cfg Config) (*Server, error) {
	if cfg.Home == "" || cfg.Hub == nil || cfg.HostKey == nil || cfg.Console == nil {
		return nil, errors.New("sshconsole: Home, Hub, HostKey and Console are required")
	}
	s := &Server{cfg: cfg, limits: cfg.Limits.withDefaults(), log: cfg.Log}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.rate = newConnRate(s.limits.PerMinute, time.Now)
	srv, err := wish.NewServer(
		// The home's key, given here: without one wish writes a new key
		// to ./id_ed25519 in whatever directory serve runs in.
		func(srv *ssh.Server) error { srv.AddHostKey(cfg.HostKey); return nil },
		ssh.PublicKeyAuth(s.acceptKey),
		wish.WithMiddleware(s.console),
	)
	if err != nil {
		return nil, fmt.Errorf("sshconsole: %w", err)
	}
	srv.HandshakeTimeout = s.limits.Handshake
	srv.MaxTimeout = s.limits.Session
	srv.ConnCallback = s.admit
	srv.SessionRequestCallback = s.allowRequest
	// Nothing but sessions, and no global requests: no port forwarding
	// either way, no agent or X11 channels, no subsystems.
	srv.ChannelHandlers = map[string]ssh.ChannelHandler{"session": ssh.DefaultSessionHandler}
	srv.RequestHandlers = map[string]ssh.RequestHandler{}
	srv.SubsystemHandlers = map[string]ssh.SubsystemHandler{}
	srv.LocalPortForwardingCallback = nil
	srv.ReversePortForwardingCallback = nil
	s.srv = srv
	return s, nil
}

// Fingerprint is the host key's SHA-256 fingerprint, for the humans to pin.
func (s *Server) Fingerprint() string { return gossh.FingerprintSHA256(s.cfg.HostKey.PublicKey()) }

// Serve accepts connections on ln until ctx ends or Close is called; then
// every session ends.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	stop := context.AfterFunc(ctx, func() { _ = s.srv.Close() })
	defer stop()
	err := s.srv.Serve(ln)
	if errors.Is(err, ssh.ErrServerClosed) {
		return nil
	}
	return err
}

// ListenAddr is the address the console listens on for a --ssh value: an
// address without a host is on loopback, so the console reaches the
// network only when an address says so.
func ListenAddr(flag string) string {
	host, port, err := net.SplitHostPort(flag)
	if err != nil {
		return flag // net.Listen names what is wrong
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// admit applies the connection rate before the handshake.
func (s *Server) admit(_ ssh.Context, conn net.Conn) net.Conn {
	if !s.rate.allow() {
		s.log.Warn("ssh connection refused: over the connection rate", "remote", conn.RemoteAddr().String(), "per_minute", s.limits.PerMinute)
		return nil
	}
	return conn
}

// acceptKey is public-key authentication: a key listed for an enrolled
// human is accepted, and its fingerprint recorded in the permissions of
// this attempt (see extFingerprint). It may be called for keys a client
// only offers; nothing is bound here.
func (s *Server) acceptKey(ctx ssh.Context, pk ssh.PublicKey) bool {
	k, err := s.cfg.Hub.SSHKeyOwner(ctx, pk)
	if err != nil {
		s.log.Info("ssh key refused", "fingerprint", operatorkeys.Fingerprint(pk), "remote", ctx.RemoteAddr().String(), "reason", err.Error())
		return false
	}
	perms := ctx.Permissions()
	if perms.Extensions == nil {
		perms.Extensions = map[string]string{}
	}
	perms.Extensions[extFingerprint] = k.Fingerprint
	return true
}

// allowRequest serves a shell on a terminal and nothing else: exec,
// subsystems and a shell without a pty are refused.
func (s *Server) allowRequest(sess ssh.Session, requestType string) bool {
	_, _, isPty := sess.Pty()
	if requestType == "shell" && isPty {
		return true
	}
	s.log.Info("ssh request refused", "type", requestType, "pty", isPty, "remote", sess.RemoteAddr().String())
	fmt.Fprintf(sess.Stderr(), "virgo: %v\r\n", ErrNotTerminal)
	return false
}

// bind is the human a session acts as: the owner of the key the session
// authenticated with, re-checked now that authentication is over (as
// soft-serve does). The key must be the one acceptKey accepted, still
// listed, and its human still enrolled.
func (s *Server) bind(sess ssh.Session) (operatorkeys.Key, error) {
	pk := sess.PublicKey()
	if pk == nil {
		return operatorkeys.Key{}, ErrNoKey
	}
	accepted := sess.Permissions().Extensions[extFingerprint]
	if fp := operatorkeys.Fingerprint(pk); accepted == "" || fp != accepted {
		return operatorkeys.Key{}, fmt.Errorf("%w (signed with %s)", ErrKeyMismatch, fp)
	}
	return s.cfg.Hub.SSHKeyOwner(sess.Context(), pk)
}

// console is the session's one handler: bind the human, open a hub session
// in their name, and run the console on the client's terminal until they
// quit, go idle, run out of session time or disconnect.
func (s *Server) console(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		if err := s.run(sess); err != nil {
			s.log.Info("ssh session refused or ended", "remote", sess.RemoteAddr().String(), "reason", err.Error())
			fmt.Fprintf(sess.Stderr(), "virgo: %v\r\n", err)
			_ = sess.Exit(1)
			return
		}
		next(sess)
	}
}

func (s *Server) run(sess ssh.Session) error {
	if len(sess.Command()) > 0 || sess.Subsystem() != "" {
		return ErrNotTerminal
	}
	pty, windows, isPty := sess.Pty()
	if !isPty {
		return ErrNotTerminal
	}
	k, err := s.bind(sess)
	if err != nil {
		return err
	}
	tok, end, err := s.cfg.Hub.OpenSSHSession(k.Human, confirm.Via{Transport: confirm.TransportSSH, Key: k.Fingerprint})
	if err != nil {
		return err
	}
	defer end()
	s.log.Info("ssh session", "human", k.Human, "key", k.Fingerprint, "remote", sess.RemoteAddr().String(),
		"term", pty.Term, "width", pty.Window.Width, "height", pty.Window.Height)

	ctx, cancel := context.WithCancelCause(sess.Context())
	defer cancel(nil)
	// The hub runs in this process: no starter, and a short budget, so a
	// stopping hub ends the session instead of holding it.
	c, err := hubclient.Dial(ctx, s.cfg.Home, hubclient.WithToken(tok))
	if err != nil {
		return fmt.Errorf("reach the hub: %w", err)
	}
	defer c.Close()

	resize := make(chan tea.WindowSizeMsg)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case w, ok := <-windows:
				if !ok {
					return
				}
				select {
				case resize <- tea.WindowSizeMsg{Width: w.Width, Height: w.Height}:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	input := watchIdle(ctx, sess, s.limits.Idle, func() { cancel(errIdle) })
	go s.watchKey(ctx, sess, cancel)
	opts := s.cfg.Console(c)
	opts.Program = append(bubbletea.MakeOptions(sess), tea.WithInput(input))
	opts.Resize = resize
	err = ui.Run(ctx, hubconsole.NewRemote(c), opts)
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errIdle):
		return fmt.Errorf("%w after %v without a key", errIdle, s.limits.Idle)
	case errors.Is(cause, errKeyRevoked):
		return cause
	}
	return err
}

// Causes that end a session from outside the console.
var (
	// errIdle ends a session whose human typed nothing for the idle time.
	errIdle = errors.New("session closed: idle")
	// errKeyRevoked ends a session whose key or human was removed.
	errKeyRevoked = errors.New("session closed: the key no longer names an enrolled human")
)

// keyCheck is how often a session checks that its key still names its
// human: within a second of `operator remove`, the session ends.
const keyCheck = 500 * time.Millisecond

// watchKey ends the session (cancel with errKeyRevoked) once its key is no
// longer listed or its human no longer enrolled.
func (s *Server) watchKey(ctx context.Context, sess ssh.Session, cancel context.CancelCauseFunc) {
	t := time.NewTicker(keyCheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := s.cfg.Hub.SSHKeyOwner(ctx, sess.PublicKey()); err != nil && ctx.Err() == nil {
				cancel(fmt.Errorf("%w (%v)", errKeyRevoked, err))
				return
			}
		}
	}
}
