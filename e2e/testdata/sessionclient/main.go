// Command sessionclient is the scripted agent of the session story
// (e2e/session_test.go): a program run by the command harness, an MCP client
// of the MCP Go SDK and nothing else. It starts the MCP server the harness
// names in $VIRGO_MCP_COMMAND, reports its hooks through $VIRGO_HOOK_COMMAND,
// and reads prompts from its terminal, one a line:
//
//	list     calls workspace_list (an allowed tool)
//	publish  calls publish_deployment_v1 (a confirm tool: it waits for a human)
//	exit     ends the session (SessionEnd) with status 0
//	crash    exits with status 3, as a harness that fails
//	anything else (a wake) calls reconcile_wake
//
// What it does it appends to session-client.log in its working directory,
// one line each, for the test to read.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const logFile = "session-client.log"

func main() {
	id, resume := os.Getenv("VIRGO_SESSION_ID"), os.Getenv("VIRGO_SESSION_RESUME") == "1"
	logf("start session=%s resume=%v", id, resume)
	source := "startup"
	if resume {
		source = "resume"
	}
	hook("SessionStart", map[string]any{"source": source})

	ctx := context.Background()
	words := shellWords(os.Getenv("VIRGO_MCP_COMMAND"))
	if len(words) == 0 {
		fail("no $VIRGO_MCP_COMMAND")
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "sessionclient", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(words[0], words[1:]...)}, nil)
	if err != nil {
		fail("connect: %v", err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		fail("tools/list: %v", err)
	}
	logf("ready tools=%d", len(tools.Tools))

	// Lines are read as they arrive, and logged with whether a turn was
	// running then: a wake must never be typed into a working session.
	var busy atomic.Bool
	lines := make(chan string)
	go func() {
		defer close(lines)
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			logf("input busy=%v %s", busy.Load(), in.Text())
			lines <- in.Text()
		}
	}()
	for fmt.Print("> "); ; fmt.Print("> ") {
		raw, ok := <-lines
		if !ok {
			return
		}
		line := strings.TrimSpace(raw)
		switch line {
		case "":
			continue
		case "exit":
			hook("SessionEnd", map[string]any{"reason": "prompt_input_exit"})
			logf("exit")
			return
		case "crash":
			logf("crash")
			fmt.Println("scripted failure: the agent crashes now")
			os.Exit(3)
		}
		busy.Store(true)
		hook("UserPromptSubmit", map[string]any{"prompt": line})
		tool, args := "reconcile_wake", map[string]any{}
		switch line {
		case "list":
			tool = "workspace_list"
		case "publish":
			tool, args = "publish_deployment_v1", map[string]any{"destination": "https://example.org/release", "description": "release 1"}
		}
		hook("PreToolUse", map[string]any{"tool_name": "mcp__virgo__" + tool})
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			logf("error %s %v", tool, err)
		} else {
			b, _ := json.Marshal(res.StructuredContent)
			logf("result %s error=%v %s", tool, res.IsError, b)
		}
		hook("PostToolUse", map[string]any{"tool_name": "mcp__virgo__" + tool})
		busy.Store(false)
		hook("Stop", map[string]any{"stop_hook_active": false})
	}
}

// hook runs $VIRGO_HOOK_COMMAND EVENT with the event's JSON on stdin, as
// Claude Code runs a command hook.
func hook(event string, fields map[string]any) {
	words := shellWords(os.Getenv("VIRGO_HOOK_COMMAND"))
	if len(words) == 0 {
		fail("no $VIRGO_HOOK_COMMAND")
	}
	fields["session_id"], fields["hook_event_name"] = os.Getenv("VIRGO_SESSION_ID"), event
	b, _ := json.Marshal(fields)
	cmd := exec.Command(words[0], append(words[1:], event)...)
	cmd.Stdin = bytes.NewReader(b)
	out, err := cmd.CombinedOutput()
	if err != nil {
		logf("hook-error %s %v %s", event, err, bytes.TrimSpace(out))
		return
	}
	logf("hook %s", event)
}

// shellWords splits a line of words as harness.ShellLine writes them:
// bare, or between single quotes (a quote itself closed, escaped, reopened).
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	in, started := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case in && c == '\'':
			in = false
		case in:
			w.WriteByte(c)
		case c == '\'':
			in, started = true, true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			started = true
		case c == ' ':
			if started {
				words = append(words, w.String())
				w.Reset()
				started = false
			}
		default:
			w.WriteByte(c)
			started = true
		}
	}
	if started {
		words = append(words, w.String())
	}
	return words
}

func logf(format string, args ...any) {
	f, err := os.OpenFile(logFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s "+format+"\n", append([]any{time.Now().UTC().Format("15:04:05.000")}, args...)...)
}

func fail(format string, args ...any) {
	logf("fail "+format, args...)
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(2)
}
