package sshconsole

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/ui"
)

// console is a real hub on a real socket in a short temporary home, with
// ada and bob enrolled, each with a key, and the SSH console on a loopback
// port.
type console struct {
	home    registry.Home
	addr    string
	hostKey gossh.PublicKey
	keys    map[string]gossh.Signer // by operator name; "eve" is listed for nobody
	hub     *hub.Hub
}

func newKey(t *testing.T) gossh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func startConsole(t *testing.T, limits Limits) *console {
	t.Helper()
	dir, err := os.MkdirTemp("", "vssh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	c := &console{home: registry.Home{Dir: dir}, keys: map[string]gossh.Signer{}}
	for _, name := range []string{"ada", "bob"} {
		if _, err := hubapi.EnrolOperator(dir, name, hubapi.NoUID); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready, served := make(chan *hub.Hub, 1), make(chan error, 1)
	go func() {
		served <- hub.Serve(ctx, hub.ServeOptions{Home: c.home, Ready: func(h *hub.Hub) { ready <- h }})
	}()
	select {
	case c.hub = <-ready:
	case err := <-served:
		cancel()
		t.Fatalf("hub did not start: %v", err)
	}
	client, err := hubclient.Dial(ctx, dir, hubclient.AsOperator("human:ada"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ada", "bob", "eve"} {
		c.keys[name] = newKey(t)
		if name == "eve" {
			continue
		}
		line := string(gossh.MarshalAuthorizedKey(c.keys[name].PublicKey()))
		if _, err := client.EnrolOperatorKeys(ctx, name, hubapi.NoUID, line); err != nil {
			t.Fatal(err)
		}
	}
	client.Close()
	key, err := HostKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	c.hostKey = key.PublicKey()
	srv, err := New(Config{Home: dir, Hub: c.hub, HostKey: key, Limits: limits,
		Console: func(*hubclient.Client) ui.RunOptions { return ui.RunOptions{Home: dir} }})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.addr = ln.Addr().String()
	sshDone := make(chan error, 1)
	go func() { sshDone <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-sshDone; err != nil {
			t.Errorf("ssh console: %v", err)
		}
		if err := <-served; err != nil {
			t.Errorf("hub: %v", err)
		}
	})
	return c
}

// dial connects with auth, pinning the host key, as user "virgo".
func (c *console) dial(auth ...gossh.AuthMethod) (*gossh.Client, error) {
	return gossh.Dial("tcp", c.addr, &gossh.ClientConfig{User: "virgo", Auth: auth,
		HostKeyCallback: gossh.FixedHostKey(c.hostKey), Timeout: 10 * time.Second})
}

func (c *console) dialConfig(cfg *gossh.ClientConfig) (*gossh.Client, error) {
	cfg.User, cfg.HostKeyCallback, cfg.Timeout = "virgo", gossh.FixedHostKey(c.hostKey), 10*time.Second
	return gossh.Dial("tcp", c.addr, cfg)
}

// screen is a session's output as it arrives.
type screen struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitFor waits until the output holds want.
func (s *screen) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(s.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("waited 15 s for %q; the session wrote:\n%q", want, tail(s.String(), 2000))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func tail(s string, n int) string { return s[max(0, len(s)-n):] }

// openConsole opens an interactive terminal session (80×24) on client
// with env set, and returns its output and input.
func openConsole(t *testing.T, client *gossh.Client, env map[string]string) (*screen, io.WriteCloser) {
	t.Helper()
	sess, err := client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	for k, v := range env {
		if err := sess.Setenv(k, v); err != nil {
			t.Fatalf("setenv %s: %v", k, err)
		}
	}
	out := &screen{}
	sess.Stdout, sess.Stderr = out, out
	in, err := sess.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	return out, in
}

// The human is the owner of the key the session authenticated with: ada's
// key gets ada's console, bob's bob's, whatever user name is sent.
func TestTheKeyNamesTheHuman(t *testing.T) {
	c := startConsole(t, Limits{})
	for _, name := range []string{"ada", "bob"} {
		client, err := c.dial(gossh.PublicKeys(c.keys[name]))
		if err != nil {
			t.Fatalf("%s's key: %v", name, err)
		}
		out, _ := openConsole(t, client, map[string]string{"NO_COLOR": "1"})
		out.waitFor(t, "as human:"+name)
		client.Close()
	}
	// The host key is the home's: nothing is written where the server runs.
	if _, err := os.Stat("id_ed25519"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the server wrote a host key into its working directory: %v", err)
	}
}

// A key listed for nobody, a password and keyboard-interactive
// authentication are all refused.
func TestUnknownKeysAndPasswordsAreRefused(t *testing.T) {
	c := startConsole(t, Limits{})
	if client, err := c.dial(gossh.PublicKeys(c.keys["eve"])); err == nil {
		client.Close()
		t.Fatal("a key listed for nobody was let in")
	}
	if client, err := c.dial(gossh.Password("ada")); err == nil {
		client.Close()
		t.Fatal("a password was let in")
	}
	if client, err := c.dial(gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) {
		return []string{"ada"}, nil
	})); err == nil {
		client.Close()
		t.Fatal("keyboard-interactive was let in")
	}
}

// offerOnly offers a key (the server accepts ada's) but cannot sign with it.
type offerOnly struct{ gossh.Signer }

var errWontSign = errors.New("this test's client offers the key but never signs with it")

func (offerOnly) Sign(io.Reader, []byte) (*gossh.Signature, error) { return nil, errWontSign }

// forged offers one key and signs with another.
type forged struct {
	offered gossh.PublicKey
	signer  gossh.Signer
}

func (f forged) PublicKey() gossh.PublicKey { return f.offered }
func (f forged) Sign(r io.Reader, data []byte) (*gossh.Signature, error) {
	return f.signer.Sign(r, data)
}

// A session that offers ada's key but authenticates with bob's is bob's
// (the key that signed, re-checked after authentication), never ada's; one
// that offers ada's key and signs with bob's is refused.
func TestOfferedKeyNeverBinds(t *testing.T) {
	c := startConsole(t, Limits{})
	attempt := 0
	client, err := c.dialConfig(&gossh.ClientConfig{AuthCallback: func(*gossh.ClientAuthContext) (gossh.AuthMethod, error) {
		attempt++
		switch attempt {
		case 1:
			return gossh.PublicKeys(offerOnly{c.keys["ada"]}), nil
		case 2:
			return gossh.PublicKeys(c.keys["bob"]), nil
		}
		return nil, errors.New("no more keys")
	}})
	if err != nil {
		t.Fatalf("offer ada's key, sign with bob's: %v", err)
	}
	if attempt != 2 {
		t.Fatalf("the client made %d attempts; want ada's offer, then bob's", attempt)
	}
	out, _ := openConsole(t, client, map[string]string{"NO_COLOR": "1"})
	out.waitFor(t, "as human:bob")
	if strings.Contains(out.String(), "human:ada") {
		t.Fatalf("a session signed by bob's key shows ada:\n%q", tail(out.String(), 2000))
	}
	client.Close()

	if client, err := c.dial(gossh.PublicKeys(forged{offered: c.keys["ada"].PublicKey(), signer: c.keys["bob"]})); err == nil {
		client.Close()
		t.Fatal("ada's key with bob's signature was let in")
	}
}

// Only an interactive terminal is served: exec, a subsystem, a shell
// without a pty and every kind of forwarding are refused.
func TestOnlyAnInteractiveTerminal(t *testing.T) {
	c := startConsole(t, Limits{})
	client, err := c.dial(gossh.PublicKeys(c.keys["ada"]))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()

	sess, err := client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if out, err := sess.CombinedOutput("virgo-tui confirm approve c-1"); err == nil {
		t.Fatalf("exec was served: %q", out)
	}
	sess.Close()

	sess, err = client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("xterm", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	if err := sess.Start("id"); err == nil {
		t.Fatal("exec on a pty was served")
	}
	sess.Close()

	sess, err = client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestSubsystem("sftp"); err == nil {
		t.Fatal("the sftp subsystem was served")
	}
	sess.Close()

	sess, err = client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Shell(); err == nil {
		t.Fatal("a shell without a pty was served")
	}
	sess.Close()

	if conn, err := client.Dial("tcp", c.addr); err == nil {
		conn.Close()
		t.Fatal("local port forwarding (direct-tcpip) was served")
	}
	if ln, err := client.Listen("tcp", "127.0.0.1:0"); err == nil {
		ln.Close()
		t.Fatal("remote port forwarding (tcpip-forward) was served")
	}
	if ok, _, err := client.SendRequest("auth-agent-req@openssh.com", true, nil); err == nil && ok {
		t.Fatal("agent forwarding was accepted")
	}
}

// register queues the activation of a new root/secretary bound to ada.
func (c *console) register(t *testing.T) string {
	t.Helper()
	client, err := hubclient.Dial(context.Background(), c.home.Dir, hubclient.AsOperator("human:ada"))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	r, err := client.Register(context.Background(), hubapi.RegisterRequest{Address: "root/secretary", Name: "Spica", Human: "human:ada"})
	if err != nil {
		t.Fatal(err)
	}
	return r.Confirmation.ID
}

// waitAudit waits until the hub's audit log holds a decision of
// confirmation id, and returns the log's decisions of it.
func (c *console) waitAudit(t *testing.T, id string) []string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := c.audit(t, id)
		if len(got) > 0 {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 15 s for a decision of %s in the audit log", id)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// audit is the hub's audit log of confirmation id.
func (c *console) audit(t *testing.T, id string) []string {
	t.Helper()
	client, err := hubclient.Dial(context.Background(), c.home.Dir, hubclient.AsOperator("human:ada"))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	log, err := client.Audit(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range log {
		if e.ConfirmationID == id && e.Event != "requested" {
			via := "local"
			if e.Via != nil {
				via = e.Via.String()
			}
			out = append(out, e.Event+" by "+e.Actor.String()+" "+via)
		}
	}
	return out
}

// A decision made in the SSH console is the bound human's, audited "via
// ssh" with the fingerprint of the key the session signed with; and the
// arming rule holds when keys arrive in one burst, as over a slow link or
// a paste: "2a" shows the queue and presses a in the same packet, which
// approves nothing; a after the arming time approves.
func TestDecisionOverSSHIsAuditedWithTheKey(t *testing.T) {
	c := startConsole(t, Limits{})
	id := c.register(t)
	client, err := c.dial(gossh.PublicKeys(c.keys["ada"]))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	out, in := openConsole(t, client, map[string]string{"NO_COLOR": "1"})
	out.waitFor(t, "as human:ada")
	out.waitFor(t, "(1 pending)") // the title: the screen is drawn in diffs

	if _, err := in.Write([]byte("2a")); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "look first")
	if got := c.audit(t, id); len(got) != 0 {
		t.Fatalf("a burst of 2a decided %s: %v", id, got)
	}

	time.Sleep(DefaultArmingForTest)
	if _, err := in.Write([]byte("a")); err != nil {
		t.Fatal(err)
	}
	// The audit record is the decision, and the condition to wait on: the
	// screen is drawn in diffs, so the note "approved: …" may reach the
	// wire as only the cells that changed from the line before it.
	want := "approved by human:ada via ssh " + gossh.FingerprintSHA256(c.keys["ada"].PublicKey())
	if got := c.waitAudit(t, id); len(got) != 1 || got[0] != want {
		t.Fatalf("audit of %s: %q; want [%q]", id, got, want)
	}
}

// DefaultArmingForTest is a little more than the console's arming time.
const DefaultArmingForTest = ui.DefaultArming + 300*time.Millisecond

// The client's terminal drives the console: its size (too small at 50
// columns, the console once a window-change makes it 80) and its colours
// (TERM's, none with NO_COLOR sent).
func TestTerminalFromTheClient(t *testing.T) {
	c := startConsole(t, Limits{})
	client, err := c.dial(gossh.PublicKeys(c.keys["ada"]))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()

	sess, err := client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	out := &screen{}
	sess.Stdout = out
	if _, err := sess.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("xterm-256color", 20, 50, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "terminal too small")
	if err := sess.WindowChange(24, 80); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "human:ada") // colours sit between "as" and the name
	if !strings.Contains(out.String(), "\x1b[38;5;") {
		t.Errorf("TERM=xterm-256color without NO_COLOR drew no colour:\n%q", tail(out.String(), 1500))
	}

	plain, _ := openConsole(t, client, map[string]string{"NO_COLOR": "1"})
	plain.waitFor(t, "as human:ada")
	if s := plain.String(); strings.Contains(s, "\x1b[38;") || strings.Contains(s, "\x1b[48;") {
		t.Errorf("NO_COLOR=1 was sent and the console drew colours:\n%q", tail(s, 1500))
	}
}

// A session whose human types nothing for the idle time is closed, and
// connections over the rate are closed before the handshake.
func TestIdleSessionsAndConnectionRate(t *testing.T) {
	c := startConsole(t, Limits{Idle: 500 * time.Millisecond, PerMinute: 3})
	client, err := c.dial(gossh.PublicKeys(c.keys["ada"]))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	out, _ := openConsole(t, client, map[string]string{"NO_COLOR": "1"})
	out.waitFor(t, "as human:ada")
	out.waitFor(t, "session closed: idle")

	refused := 0
	for range 4 {
		client, err := c.dial(gossh.PublicKeys(c.keys["ada"]))
		if err != nil {
			refused++
			continue
		}
		client.Close()
	}
	// The first connection took one of the 3; two more get in.
	if refused != 2 {
		t.Fatalf("%d of 4 connections over a rate of 3 a minute were refused; want 2", refused)
	}
}

// Removing an operator ends their SSH console within a second, and their
// key no longer lets them in.
func TestRemovedOperatorIsCutOff(t *testing.T) {
	c := startConsole(t, Limits{})
	client, err := c.dial(gossh.PublicKeys(c.keys["bob"]))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	out, _ := openConsole(t, client, map[string]string{"NO_COLOR": "1"})
	out.waitFor(t, "as human:bob")

	ada, err := hubclient.Dial(context.Background(), c.home.Dir, hubclient.AsOperator("human:ada"))
	if err != nil {
		t.Fatal(err)
	}
	defer ada.Close()
	removed := time.Now()
	if err := ada.RemoveOperator(context.Background(), "human:bob"); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "no longer names an enrolled human")
	if d := time.Since(removed); d > 2*time.Second {
		t.Errorf("bob's session ended %v after the removal; want within a second or so", d)
	}
	if client, err := c.dial(gossh.PublicKeys(c.keys["bob"])); err == nil {
		client.Close()
		t.Fatal("a removed operator's key was let in")
	}
}

// The console over SSH asks the client's terminal for bracketed paste, so a
// paste arrives as one paste, never as its keys: 1 MiB pasted into the
// filter field is cut to the field's limit in one step and the session
// answers at once (as separate keys into a full field it once held a
// session for 105 s at 115 CPU-s in the hub).
func TestBigPasteOverSSH(t *testing.T) {
	c := startConsole(t, Limits{})
	client, err := c.dial(gossh.PublicKeys(c.keys["ada"]))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	out, in := openConsole(t, client, map[string]string{"NO_COLOR": "1"})
	out.waitFor(t, "as human:ada")
	if !strings.Contains(out.String(), "\x1b[?2004h") {
		t.Fatalf("the console did not turn bracketed paste on:\n%q", tail(out.String(), 1500))
	}
	if _, err := in.Write([]byte("/")); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "filter ›")
	start := time.Now()
	if _, err := in.Write([]byte("\x1b[200~" + strings.Repeat("x", 1<<20) + "\x1b[201~")); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "paste cut: 256 of 1048576 characters taken")
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("a 1 MiB paste over SSH was answered after %v", d)
	}
	t.Logf("1 MiB pasted over SSH, answered after %v", time.Since(start))
}
