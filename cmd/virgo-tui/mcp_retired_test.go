package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
)

// retireLead retires work/core/lead through the CLI, approved by its bound
// human, as an operator would.
func retireLead(t *testing.T, c *cli, reason string) {
	t.Helper()
	var res struct{ Confirmation struct{ ID string } }
	mustNil(t, json.Unmarshal([]byte(c.ok("persona", "retire", "work/core/lead", "--reason", reason, "-o", "json", "--as", "human:henry")), &res))
	c.ok("confirm", "approve", res.Confirmation.ID, "--as", "human:henry")
}

// The end of the reproduction of the fenced stdio server: "A retired
// persona's calls answer `unauthenticated: send Authorization: Bearer
// <token>`, which reads like a setup error." Now a running server of a
// generation retired under it answers a call with a tool error naming the
// retirement, says so in a log message, closes its session and exits
// within a second, as a fenced-out one does; `mcp` started afterwards with
// the retired generation's token refuses to boot, naming the retirement;
// and a CLI command run with that token is answered `retired`.
func TestRetiredStdioServerAnswersClosesAndExits(t *testing.T) {
	c := personaHome(t)
	serveHub(t, c)
	var v struct{ Persona struct{ ID string } }
	mustNil(t, json.Unmarshal([]byte(c.ok("persona", "show", "work/core/lead", "-o", "json")), &v))
	token := filepath.Join(c.home, "personas", v.Persona.ID, hubapi.TokenFile)
	s := startStdioServer(t, c.home)
	retireLead(t, c, "handed to the docs team")

	var res *mcp.CallToolResult
	select {
	case res = <-s.call("send_broker_message", map[string]any{"to": "work/core/lead", "body": "late"}):
	case <-time.After(time.Second):
		t.Fatalf("the retired persona's call did not answer within a second\nserver stderr: %s", s.stderr)
	}
	// As in the fenced case, the beat stream (ended by the hub within 250
	// ms of the retirement) may have told the server first: then the call
	// fails to reach it, and the log message says why.
	if res != nil && (!res.IsError || !strings.Contains(toolText(res), "retired at") || !strings.Contains(toolText(res), "handed to the docs team")) {
		t.Fatalf("the retired persona's call answered %+v (%s), want a tool error naming the retirement", res, toolText(res))
	}
	s.mustExit(t, "after the retirement")
	// The client handles a notification on its own goroutine: the log
	// message written before the close may be read a moment after the exit.
	var logs string
	for deadline := time.Now().Add(time.Second); logs == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		s.mu.Lock()
		logs = strings.Join(s.logs, "\n")
		s.mu.Unlock()
	}
	for _, want := range []string{"work/core/lead", "retired at", "handed to the docs team", "new holder"} {
		if !strings.Contains(logs, want) {
			t.Errorf("log messages %q; want one saying %q", logs, want)
		}
	}
	if strings.Contains(logs+s.stderr.String(), "Authorization") {
		t.Errorf("the retirement still reads like a setup error: %s\n%s", logs, s.stderr)
	}

	// Booting with the retired generation's token is refused, naming why.
	t.Setenv(hubclient.TokenFileEnv, token)
	cmd := exec.Command(os.Args[0], "-test.run=^TestMCPChildProcess$")
	cmd.Env = append(os.Environ(), mcpChildEnv+"="+c.home)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	mustNil(t, cmd.Start())
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(stderr.String(), "retired at") || !strings.Contains(stderr.String(), "handed to the docs team") {
			t.Errorf("mcp with the retired token: %v\n%s\nwant a refusal naming the retirement", err, stderr.String())
		}
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		t.Fatalf("mcp with the retired token still runs\n%s", stderr.String())
	}

	// And the CLI, --as the retired persona with its token.
	errOut := c.fails("confirm", "list", "--as", "work/core/lead", "--token-file", token)
	wantContains(t, "the CLI with the retired token", errOut, "retired at", "handed to the docs team", "new holder")
}
