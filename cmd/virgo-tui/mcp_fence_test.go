package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// stdioServer is `virgo-tui mcp --persona work/core/lead` on stdio, a
// child process (TestMCPChildProcess), with a real MCP client (the SDK)
// connected to its stdin and stdout that asked for log messages.
type stdioServer struct {
	cmd    *exec.Cmd
	cs     *mcp.ClientSession
	stdin  io.Closer
	stderr *lockedBuffer
	exited chan struct{}

	mu   sync.Mutex
	logs []string
}

// lockedBuffer collects the child's stderr, written by exec's copying
// goroutine while a failing test may already print it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func startStdioServer(t *testing.T, home string) *stdioServer {
	t.Helper()
	s := &stdioServer{cmd: exec.Command(os.Args[0], "-test.run=^TestMCPChildProcess$"), stderr: &lockedBuffer{}, exited: make(chan struct{})}
	s.cmd.Env = append(os.Environ(), mcpChildEnv+"="+home)
	s.cmd.Stderr = s.stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "fence-test", Version: "1"}, &mcp.ClientOptions{
		//lint:ignore SA1019 the server's log message is what is tested (docs/mcp.md, "Fenced out")
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			s.mu.Lock()
			s.logs = append(s.logs, fmt.Sprint(req.Params.Data))
			s.mu.Unlock()
		}})
	stdin, err := s.cmd.StdinPipe()
	mustNil(t, err)
	stdout, err := s.cmd.StdoutPipe()
	mustNil(t, err)
	mustNil(t, s.cmd.Start())
	s.stdin = stdin
	go func() {
		_ = s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		_ = s.cmd.Process.Kill()
		<-s.exited
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: stdout, Writer: stdin}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nserver stderr: %s", err, s.stderr)
	}
	s.cs = cs
	t.Cleanup(func() {
		// The process first: the client's close waits for its calls.
		_ = s.cmd.Process.Kill()
		<-s.exited
		_ = cs.Close()
	})
	//lint:ignore SA1019 as above: the client asks for the log message under test
	mustNil(t, cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}))
	return s
}

// mustExit fails unless the server process exits within a second.
func (s *stdioServer) mustExit(t *testing.T, what string) {
	t.Helper()
	select {
	case <-s.exited:
	case <-time.After(raceSlowdown * time.Second):
		t.Fatalf("%s: the MCP server still runs a second later\nserver stderr: %s", what, s.stderr)
	}
}

// call makes a tool call in the background; its result arrives on the
// channel (nil when the call failed at the protocol level).
func (s *stdioServer) call(name string, args map[string]any) <-chan *mcp.CallToolResult {
	out := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		out <- res
	}()
	return out
}

// claimNewer claims the persona's instance fence as a newer runtime
// instance would when it connects.
func claimNewer(t *testing.T, home string) {
	t.Helper()
	seat, err := hubapi.FindSeat(home, "work/core/lead")
	mustNil(t, err)
	c, err := hubclient.Dial(context.Background(), home, hubclient.WithTokenFile(hubapi.SeatTokenFile(home, seat)))
	mustNil(t, err)
	defer c.Close()
	_, err = c.ClaimFence(context.Background())
	mustNil(t, err)
}

// The reproduction: "If the old instance calls send_broker_message before
// its next beat notices the fence, the call never answers, the process
// ignores SIGTERM and stdin closing, and only SIGKILL ends it". Now the
// fenced-out server answers the call with a tool error and a log message
// naming the newer instance, closes its session and exits, all within a
// second; a server stopped by SIGTERM, or by its stdin's end, while a call
// waits on a confirmation exits within a second too.
func TestFencedStdioServerAnswersClosesAndExits(t *testing.T) {
	c := personaHome(t)
	serveHub(t, c)

	t.Run("fenced call", func(t *testing.T) {
		s := startStdioServer(t, c.home)
		claimNewer(t, c.home)
		var res *mcp.CallToolResult
		select {
		case res = <-s.call("send_broker_message", map[string]any{"to": "work/core/lead", "body": "late"}):
		case <-time.After(raceSlowdown * time.Second):
			t.Fatalf("the fenced-out call did not answer within a second\nserver stderr: %s", s.stderr)
		}
		// The call answers the tool error, unless the beat stream (ended
		// by the hub within 250 ms of the claim) told the server first and
		// it had already closed the session: then the call fails to reach
		// it, and the log message below is what says why.
		if res != nil && (!res.IsError || !strings.Contains(toolText(res), "fenced") || !strings.Contains(toolText(res), "newer instance")) {
			t.Fatalf("the fenced-out call answered %+v (%s), want a tool error naming the newer instance", res, toolText(res))
		}
		s.mustExit(t, "after the fenced-out call")
		s.mu.Lock()
		logs := strings.Join(s.logs, "\n")
		s.mu.Unlock()
		if !strings.Contains(logs, "newer instance") || !strings.Contains(logs, "work/core/lead") {
			t.Errorf("log messages %q; want one naming the persona and the newer instance", logs)
		}
		if !strings.Contains(s.stderr.String(), "fenced") {
			t.Errorf("the server's stderr does not say it was fenced out: %s", s.stderr)
		}
	})
	for _, stop := range []struct {
		name string
		do   func(*stdioServer) error
	}{
		{"SIGTERM", func(s *stdioServer) error { return s.cmd.Process.Signal(syscall.SIGTERM) }},
		{"stdin's end", func(s *stdioServer) error { return s.stdin.Close() }},
	} {
		t.Run(stop.name+" during a confirmation wait", func(t *testing.T) {
			s := startStdioServer(t, c.home)
			waiting := s.call(stamp.PublishTool, map[string]any{"destination": "https://example.org/" + strings.ReplaceAll(stop.name, " ", "-")})
			time.Sleep(300 * time.Millisecond) // the call is in the server, waiting
			mustNil(t, stop.do(s))
			s.mustExit(t, stop.name)
			select {
			case <-waiting:
			case <-time.After(time.Second):
				t.Error("the waiting call never ended on the client")
			}
		})
	}
}

// toolText is a tool result's text content.
func toolText(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
