package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/procmem"
)

// BenchmarkSession measures a resident session (the command harness with
// the scripted agent, in tmux, against a real serve) beside its baseline,
// the same MCP server started by an MCP client directly, with no session:
//
//   - start: `session start` until the agent's MCP server answered
//     tools/list (the agent logs "ready"), against the client starting
//     `virgo-tui mcp` and listing its tools;
//   - approve: the operator's approval until the agent's confirm call
//     returned, against the same call of the direct client;
//   - idle-memory: the anonymous resident memory of the idle session's
//     processes (the agent and its MCP server) as KiB/session, against the
//     direct MCP server's alone as KiB/server.
func BenchmarkSession(b *testing.B) {
	s := startSessionStory(b)
	ctx := context.Background()
	op, err := hubclient.Dial(ctx, s.home, hubclient.AsOperator(operator))
	if err != nil {
		b.Fatal(err)
	}
	defer op.Close()
	start := []string{"session", "start", sessionPersona, "--harness", "command", "--program", s.client, "--mcp-client-only"}
	lines := 0
	logLines := func() int {
		bs, _ := os.ReadFile(s.log)
		return strings.Count(string(bs), "\n")
	}

	b.Run("start/session", func(b *testing.B) {
		for b.Loop() {
			lines = logLines()
			s.must(start...)
			s.waitLog(lines, "ready tools=")
			b.StopTimer()
			s.must("session", "stop", sessionPersona)
			b.StartTimer()
		}
	})
	b.Run("start/mcp-direct", func(b *testing.B) {
		for b.Loop() {
			cs := s.directClient(ctx)
			b.StopTimer()
			cs.Close()
			b.StartTimer()
		}
	})

	b.Run("approve/session", func(b *testing.B) {
		s.must(start...)
		s.waitPresence("idle", func(_, sess string, _ int) bool { return sess == "idle" })
		for b.Loop() {
			b.StopTimer()
			lines = logLines()
			s.prompt("publish")
			id := s.pendingID(ctx, op)
			b.StartTimer()
			if _, err := op.Decide(ctx, id, hubapi.DecideRequest{Approve: true}); err != nil {
				b.Fatal(err)
			}
			lines = s.waitLog(lines, "result publish_deployment_v1 error=false")
			b.StopTimer()
			s.waitPresence("idle", func(_, sess string, _ int) bool { return sess == "idle" })
			b.StartTimer()
		}
		b.StopTimer()
		s.must("session", "stop", sessionPersona)
	})
	b.Run("approve/mcp-direct", func(b *testing.B) {
		cs := s.directClient(ctx)
		defer cs.Close()
		for b.Loop() {
			b.StopTimer()
			done := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "publish_deployment_v1",
					Arguments: map[string]any{"destination": "https://example.org/release", "description": "release 1"}})
				done <- err
			}()
			id := s.pendingID(ctx, op)
			b.StartTimer()
			if _, err := op.Decide(ctx, id, hubapi.DecideRequest{Approve: true}); err != nil {
				b.Fatal(err)
			}
			if err := <-done; err != nil {
				b.Fatal(err)
			}
		}
	})

	b.Run("idle-memory", func(b *testing.B) {
		s.must(start...)
		s.waitPresence("idle", func(_, sess string, _ int) bool { return sess == "idle" })
		s.waitLog(0, "ready tools=")
		time.Sleep(time.Second) // settled
		var session, server int
		for b.Loop() {
			session = treeKiB(b, s.listed().PID)
		}
		s.must("session", "stop", sessionPersona)
		cs := s.directClient(ctx)
		defer cs.Close()
		time.Sleep(time.Second)
		server = serverKiB(b, s.bin, s.home)
		b.ReportMetric(float64(session), "KiB/session")
		b.ReportMetric(float64(server), "KiB/server")
	})
}

// directClient is the baseline: an MCP SDK client that starts the persona's
// MCP server itself and lists its tools — what a harness does, without a
// session.
func (s *sessionStory) directClient(ctx context.Context) *mcp.ClientSession {
	s.t.Helper()
	cmd := exec.Command(s.bin, "mcp", "--persona", sessionPersona, "--home", s.home)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		s.t.Fatal(err)
	}
	return cs
}

// pendingID waits for the lead's one pending confirmation.
func (s *sessionStory) pendingID(ctx context.Context, op *hubclient.Client) string {
	s.t.Helper()
	deadline := time.Now().Add(stepTimeout)
	for {
		cs, err := op.Confirmations(ctx, false)
		if err != nil {
			s.t.Fatal(err)
		}
		for _, c := range cs {
			if c.Requester.Name == sessionPersona {
				return c.ID
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("no pending confirmation of %s", sessionPersona)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// treeKiB is the anonymous resident memory of pid and its descendants.
func treeKiB(tb testing.TB, pid int) int {
	total := 0
	for _, p := range append([]int{pid}, descendants(pid)...) {
		kib, err := procmem.AnonKiB(p)
		if err != nil {
			tb.Fatal(err)
		}
		total += kib
	}
	return total
}

// serverKiB is the anonymous resident memory of the running `mcp`
// process(es) of bin on home (the baseline's one server).
func serverKiB(tb testing.TB, bin, home string) int {
	total := 0
	for _, pid := range mcpServers(bin, home) {
		kib, err := procmem.AnonKiB(pid)
		if err != nil {
			tb.Fatal(err)
		}
		total += kib
	}
	return total
}

// mcpServers are the running `bin mcp … --home home` processes.
func mcpServers(bin, home string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if args := strings.Split(string(cmd), "\x00"); len(args) > 1 && args[0] == bin && args[1] == "mcp" && slices.Contains(args, home) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// descendants are the processes below pid, from /proc's parent links.
func descendants(pid int) []int {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// After the command's closing parenthesis: state, then ppid.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 1 {
			if pp, err := strconv.Atoi(f[1]); err == nil {
				children[pp] = append(children[pp], p)
			}
		}
	}
	var out []int
	for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}
