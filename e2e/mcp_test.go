package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The MCP persona the test registers, and its bound human (the console's
// operator).
const (
	mcpPersona = "work/core/lead"
	mcpHuman   = "human:ada"
)

// TestMCPClientNoOneHereWrote is the proof with a real MCP client no
// one here wrote: the TypeScript SDK's (e2e/mcpclient, installed with npm
// ci from its committed lockfile), over stdio and over streamable HTTP:
// list, an allowed read with continuation, a denied secret read, a
// publication that waits until the operator approves it in the console
// (driven through tmux), and a retired token refused.
func TestMCPClientNoOneHereWrote(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the MCP end-to-end test installs the TypeScript SDK with npm ci and drives the console in tmux (about 40 s)")
	}
	requireTools(t, "the MCP end-to-end test runs the TypeScript SDK's client (node, npm) against the console in tmux", "tmux", "node", "npm")
	client := filepath.Join(npmCI(t, "mcpclient"), "client.mjs")
	bin := buildBinary(t)
	dir, err := os.MkdirTemp("", "vtmcp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home := filepath.Join(dir, "virgo-mcp")
	env := []string{"TERM=xterm-256color", "NO_COLOR=1", "VIRGO_PRINCIPAL=" + mcpHuman, "USER=ada"}
	tm := startTerm(t, dir, env, bin, "--home", home)
	tm.logs = append(tm.logs, filepath.Join(home, "console.log"))
	c := &console{term: tm, bin: bin, home: home}
	c.waitFor("hub ● connected", startTimeout)

	// Register, approve.
	var added struct {
		Persona      struct{ ID string }
		Confirmation struct{ ID string }
	}
	c.cliJSON(&added, "persona", "add", "--scope", "work", "--project", "core", "--role", "lead", "--name", "Spica")
	c.cli("confirm", "approve", added.Confirmation.ID)
	ws := filepath.Join(home, "workspaces", mcpPersona)
	big := strings.Repeat("0123456789abcdef", 200) // 3,200 bytes
	mustWrite(t, filepath.Join(ws, "memory", "big.md"), big)
	mustWrite(t, filepath.Join(ws, ".env"), "TOKEN=do-not-show")
	var proj struct{ Launcher []string }
	c.cliJSON(&proj, "stamp", "project", mcpPersona, "--consumer", "launcher")

	// Over stdio, as an agent harness starts it.
	cl := startMCPClient(t, client, env, "stdio", bin, "mcp", "--home", home, "--persona", mcpPersona)
	listed := cl.list()
	if !sameNames(listed, proj.Launcher) {
		t.Fatalf("tools/list %v\n  is not the launcher allowlist %v", listed, proj.Launcher)
	}
	readWithContinuation(t, cl, big)
	deniedSecret(t, cl)

	// A publication waits, with progress, until the operator approves it
	// in the console.
	cl.send(map[string]any{"op": "call", "tool": "publish_deployment_v1",
		"args": map[string]any{"destination": "https://example.org/release", "description": "release 1"}})
	if p := cl.next(); p["progress"] == nil || !strings.Contains(fmt.Sprint(p["progress"]), mcpHuman) {
		t.Fatalf("before the approval: %v; want a progress notification naming %s", p, mcpHuman)
	}
	c.press("2", "[2 Queue")
	filterQueue(c, "publish_deployment_v1", "publish:external")
	c.press("a", "approved:")
	res := cl.result()
	if res.IsError || res.Structured["status"] != "approved" || res.Structured["destination"] != "https://example.org/release" {
		t.Fatalf("publication after the approval: %+v", res)
	}
	cl.close()

	// Over streamable HTTP, each request authenticated by the persona's
	// runtime token.
	port := freePort(t)
	srv := exec.Command(bin, "mcp", "--home", home, "--persona", mcpPersona, "--http", "127.0.0.1:"+port)
	srv.Env = append(os.Environ(), env...)
	var srvErr bytes.Buffer
	srv.Stderr = &srvErr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	waitListening(t, "127.0.0.1:"+port, &srvErr)
	token, err := os.ReadFile(filepath.Join(home, "personas", added.Persona.ID, "token"))
	if err != nil {
		t.Fatal(err)
	}
	url := "http://127.0.0.1:" + port + "/"
	hc := startMCPClient(t, client, env, "http", url, strings.TrimSpace(string(token)))
	if got := hc.list(); !sameNames(got, proj.Launcher) {
		t.Fatalf("tools/list over HTTP %v\n  is not the launcher allowlist %v", got, proj.Launcher)
	}
	readWithContinuation(t, hc, big)
	deniedSecret(t, hc)
	hc.close()

	bad := startMCPClient(t, client, env, "http", url, "vt_not-a-token")
	if e := bad.next(); e["code"] != float64(401) {
		t.Fatalf("a bad token: %v; want 401", e)
	}

	// Retired: its token is refused from that moment.
	var ret struct{ Confirmation struct{ ID string } }
	c.cliJSON(&ret, "persona", "retire", mcpPersona, "--reason", "e2e: done")
	c.cli("confirm", "approve", ret.Confirmation.ID)
	retired := startMCPClient(t, client, env, "http", url, strings.TrimSpace(string(token)))
	if e := retired.next(); e["code"] != float64(401) {
		t.Fatalf("the retired persona's token: %v; want 401", e)
	}
}

// npmCI installs the locked dependencies of e2e/<name> (npm ci) unless the
// installed tree already matches the lockfile, and returns that directory.
func npmCI(t *testing.T, name string) string {
	t.Helper()
	dir, err := filepath.Abs(name)
	if err != nil {
		t.Fatal(err)
	}
	lock, _ := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	installed, _ := os.ReadFile(filepath.Join(dir, "node_modules", ".virgo-lock"))
	if len(lock) == 0 || !bytes.Equal(lock, installed) {
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("npm ci in %s failed under CI=true: %v\n%s", dir, err, tail(out, 2000))
			}
			t.Skipf("npm ci in %s failed (no registry?): %v\n%s", dir, err, tail(out, 2000))
		}
		if err := os.WriteFile(filepath.Join(dir, "node_modules", ".virgo-lock"), lock, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// mcpClient is the TypeScript client, one JSON command a line in, one
// JSON answer a line out.
type mcpClient struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan map[string]any
	err   *bytes.Buffer
}

func startMCPClient(t *testing.T, script string, env []string, args ...string) *mcpClient {
	t.Helper()
	cmd := exec.Command("node", append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cl := &mcpClient{t: t, cmd: cmd, in: in, lines: make(chan map[string]any, 64), err: &bytes.Buffer{}}
	cmd.Stderr = cl.err
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(cl.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				cl.lines <- m
			}
		}
	}()
	t.Cleanup(cl.close)
	return cl
}

func (cl *mcpClient) send(v any) {
	cl.t.Helper()
	b, _ := json.Marshal(v)
	if _, err := cl.in.Write(append(b, '\n')); err != nil {
		cl.t.Fatalf("write to the client: %v\n%s", err, cl.err)
	}
}

// next is the client's next line.
func (cl *mcpClient) next() map[string]any {
	cl.t.Helper()
	select {
	case m, ok := <-cl.lines:
		if !ok {
			cl.t.Fatalf("the client ended\n%s", cl.err)
		}
		return m
	case <-time.After(60 * time.Second):
		cl.t.Fatalf("the client said nothing for 60 s\n%s", cl.err)
	}
	return nil
}

// list asks tools/list and returns the names (after the connected line).
func (cl *mcpClient) list() []string {
	cl.t.Helper()
	if m := cl.next(); m["connected"] != true {
		cl.t.Fatalf("connect: %v\n%s", m, cl.err)
	}
	cl.send(map[string]any{"op": "list"})
	var names []string
	tools, _ := cl.next()["tools"].([]any)
	for _, x := range tools {
		tool, _ := x.(map[string]any)
		if tool["description"] == "" || tool["inputSchema"] == nil {
			cl.t.Errorf("tool %v has no description or input schema", tool["name"])
		}
		// With an output schema the SDK validates every result of the
		// tool, failures included, against it.
		if tool["outputSchema"] == nil {
			cl.t.Errorf("tool %v has no output schema", tool["name"])
		}
		// Every hint is stated: a missing destructive or open-world hint
		// means true to a client.
		if a, _ := tool["annotations"].(map[string]any); a["readOnlyHint"] == nil || a["destructiveHint"] == nil || a["idempotentHint"] == nil || a["openWorldHint"] == nil {
			cl.t.Errorf("tool %v: annotations %v; want all four hints", tool["name"], tool["annotations"])
		}
		names = append(names, fmt.Sprint(tool["name"]))
	}
	return names
}

// toolResult is a tools/call result as the client saw it.
type toolResult struct {
	IsError    bool           `json:"isError"`
	Structured map[string]any `json:"structuredContent"`
	Content    []struct{ Text string }
}

// result skips progress and resource-update lines and returns the next
// call's result.
func (cl *mcpClient) result() toolResult {
	cl.t.Helper()
	for {
		m := cl.next()
		if _, ok := m["progress"]; ok {
			continue
		}
		if _, ok := m["updated"]; ok {
			continue
		}
		b, _ := json.Marshal(m["result"])
		var r toolResult
		if m["result"] == nil || json.Unmarshal(b, &r) != nil {
			cl.t.Fatalf("want a call's result, got %v", m)
		}
		return r
	}
}

func (cl *mcpClient) call(tool string, args map[string]any) toolResult {
	cl.t.Helper()
	cl.send(map[string]any{"op": "call", "tool": tool, "args": args})
	return cl.result()
}

func (cl *mcpClient) close() {
	if cl.in != nil {
		cl.in.Close()
		cl.in = nil
		done := make(chan struct{})
		go func() { cl.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cl.cmd.Process.Kill()
			<-done
		}
	}
}

// readWithContinuation reads memory/big.md in two pages, the second from
// the first's next_offset.
func readWithContinuation(t *testing.T, cl *mcpClient, want string) {
	t.Helper()
	first := cl.call("workspace_read", map[string]any{"path": "memory/big.md", "length": 2048})
	if first.IsError || first.Structured["eof"] != false || first.Structured["next_offset"] != float64(2048) {
		t.Fatalf("first page: %+v", first)
	}
	second := cl.call("workspace_read", map[string]any{"path": "memory/big.md", "offset": first.Structured["next_offset"]})
	if second.IsError || second.Structured["eof"] != true {
		t.Fatalf("second page: %+v", second)
	}
	if got := fmt.Sprint(first.Structured["content"]) + fmt.Sprint(second.Structured["content"]); got != want {
		t.Fatalf("the two pages hold %d bytes, not the file's %d", len(got), len(want))
	}
}

// deniedSecret reads .env: a tool error naming the secret boundary, and
// never the value.
func deniedSecret(t *testing.T, cl *mcpClient) {
	t.Helper()
	res := cl.call("workspace_read", map[string]any{"path": ".env"})
	b, _ := json.Marshal(res)
	if !res.IsError || res.Structured["boundary"] != "secret-credential-values" || strings.Contains(string(b), "do-not-show") {
		t.Fatalf("read .env: %s; want denied at the secret-credential-values boundary", b)
	}
}

func sameNames(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

func waitListening(t *testing.T, addr string, stderr *bytes.Buffer) {
	t.Helper()
	for range 300 {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("virgo-tui mcp --http did not listen on %s in 15 s\n%s", addr, stderr)
}
