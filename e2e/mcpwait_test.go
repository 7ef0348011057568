package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// tsDefaultTimeout is the TypeScript SDK's default request timeout
// (DEFAULT_REQUEST_TIMEOUT_MSEC): a call still unanswered then fails with
// -32001, unless the caller resets it on progress.
const tsDefaultTimeout = 60 * time.Second

// TestMCPWaitOutlivesTheClientsDefaultTimeout is a wait longer than the
// TypeScript SDK's default 60 s request timeout, by a client with the
// SDK's default options (no timeout of its own, no progress token): the
// server's default wait answers status unknown with the correlation id
// before the client gives up; the agent calls again with it and joins the
// same confirmation; the operator approves more than 60 s after the first
// call; the joined call is carried out, and a third call under the same id
// is told it already was: the approved publication is handed out once.
func TestMCPWaitOutlivesTheClientsDefaultTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the wait test outlasts the TypeScript SDK's 60 s default timeout on purpose (about 75 s)")
	}
	requireTools(t, "the MCP wait test runs the TypeScript SDK's client (node, npm) against a hub the console runs in tmux", "tmux", "node", "npm")
	client := filepath.Join(npmCI(t, "mcpclient"), "client.mjs")
	bin := buildBinary(t)
	dir, err := os.MkdirTemp("", "vtwait")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home := filepath.Join(dir, "virgo-wait")
	env := []string{"TERM=xterm-256color", "NO_COLOR=1", "VIRGO_PRINCIPAL=" + mcpHuman, "USER=ada"}
	tm := startTerm(t, dir, env, bin, "--home", home)
	tm.logs = append(tm.logs, filepath.Join(home, "console.log"))
	c := &console{term: tm, bin: bin, home: home}
	c.waitFor("hub ● connected", startTimeout)
	var added struct{ Confirmation struct{ ID string } }
	c.cliJSON(&added, "persona", "add", "--scope", "work", "--project", "core", "--role", "lead", "--name", "Spica")
	c.cli("confirm", "approve", added.Confirmation.ID)

	cl := startMCPClient(t, client, env, "stdio", bin, "mcp", "--home", home, "--persona", mcpPersona)
	if m := cl.next(); m["connected"] != true {
		t.Fatalf("connect: %v\n%s", m, cl.err)
	}
	args := map[string]any{"destination": "https://example.org/slow", "description": "release 2"}
	start := time.Now()
	cl.send(map[string]any{"op": "call", "tool": "publish_deployment_v1", "args": args, "defaults": true})
	first := cl.result()
	corr, _ := first.Structured["correlation_id"].(string)
	conf, _ := first.Structured["confirmation"].(string)
	if took := time.Since(start); first.IsError || first.Structured["status"] != "unknown" || corr == "" || conf == "" || took >= tsDefaultTimeout {
		t.Fatalf("the first call, after %s: %+v; want status unknown with its correlation id before the client's %s timeout",
			took.Round(time.Millisecond), first, tsDefaultTimeout)
	}

	// The agent joins; the operator approves after the client's default
	// timeout has passed since the first call.
	args["correlation_id"] = corr
	cl.send(map[string]any{"op": "call", "tool": "publish_deployment_v1", "args": args, "defaults": true})
	time.Sleep(time.Until(start.Add(tsDefaultTimeout + 2*time.Second)))
	c.cli("confirm", "approve", conf)
	joined := cl.result()
	if joined.IsError || joined.Structured["status"] != "approved" || joined.Structured["confirmation"] != conf {
		t.Fatalf("the joined call after the approval: %+v; want it approved under %s", joined, conf)
	}
	if took := time.Since(start); took <= tsDefaultTimeout {
		t.Fatalf("the wait took %s; the test is about one longer than %s", took, tsDefaultTimeout)
	}
	cl.send(map[string]any{"op": "call", "tool": "publish_deployment_v1", "args": args, "defaults": true})
	if again := cl.result(); again.IsError || again.Structured["status"] != "carried" {
		t.Fatalf("a third call under %s: %+v; want already carried out, not handed out again", corr, again)
	}
}
