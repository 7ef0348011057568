package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"

	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/sshconsole"
	"github.com/virgo-hub/virgo-tui/internal/ui"
)

// sshListener is serve's SSH console: its listener and host key are taken
// before the hub starts, so a taken port or a bad key fails serve at once;
// the console starts once the hub is ready.
type sshListener struct {
	home registry.Home
	ln   net.Listener
	cfg  sshconsole.Config
	done chan error
}

func listenSSH(home registry.Home, addr string, limits sshconsole.Limits, log *slog.Logger) (*sshListener, error) {
	key, err := sshconsole.HostKey(home.Dir)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", sshconsole.ListenAddr(addr))
	if err != nil {
		return nil, fmt.Errorf("ssh console: %w", err)
	}
	return &sshListener{home: home, ln: ln, cfg: sshconsole.Config{
		Home:    home.Dir,
		HostKey: key,
		Console: func(c *hubclient.Client) ui.RunOptions { return consoleOptions(c, home.Dir) },
		Limits:  limits,
		Log:     log,
	}}, nil
}

// start serves the console beside hub h until ctx ends, and prints where
// and with which host key.
func (l *sshListener) start(ctx context.Context, h *hub.Hub, out io.Writer) {
	cfg := l.cfg
	cfg.Hub = h
	l.done = make(chan error, 1)
	srv, err := sshconsole.New(cfg)
	if err != nil {
		l.ln.Close()
		l.done <- err
		return
	}
	_, port, _ := net.SplitHostPort(l.ln.Addr().String())
	fmt.Fprintf(out, "ssh console on %s, host key %s (%s); humans connect with: ssh -p %s virgo@HOST\n",
		l.ln.Addr(), srv.Fingerprint(), sshconsole.HostKeyPath(l.home.Dir), port)
	go func() { l.done <- srv.Serve(ctx, l.ln) }()
}

// wait returns once the console stopped (with the hub's context), or at
// once when it never started.
func (l *sshListener) wait() error {
	if l.done == nil {
		return l.ln.Close()
	}
	return <-l.done
}
