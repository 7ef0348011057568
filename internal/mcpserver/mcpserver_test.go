package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// classes are one persona of each of the four classes.
var classes = []struct{ addr, name string }{
	{"root/secretary", "Spica"},
	{"work/coordinator", "Porrima"},
	{"work/core/lead", "Vindemiatrix"},
	{"work/core/deputy", "Zaniah"},
}

// "the listed tools equal the stamp's MCP projection, the handler
// table and the launcher allowlist; an allowed call executes; a denied call
// names its boundary; a confirm call waits and completes after approval; a
// retry with the correlation id joins" — for each of the four classes.
func TestEachClassServesExactlyItsStampAndEveryCallIsDecided(t *testing.T) {
	f := newFixture(t)
	for _, c := range classes {
		t.Run(strings.ReplaceAll(c.addr, "/", "_"), func(t *testing.T) {
			p := f.persona(t, c.addr, c.name)
			r := f.runtime(t, p, Options{ConfirmWait: 300 * time.Millisecond})
			cs := connect(t, r, nil)
			ctx := context.Background()

			// Listed tools = MCP projection = handler table = launcher allowlist.
			v, err := f.op.Stamp(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			b, err := stamp.Marshal(v.Stamp)
			if err != nil {
				t.Fatal(err)
			}
			proj, err := stamp.Project(b)
			if err != nil {
				t.Fatal(err)
			}
			var listed []string
			for tool, err := range cs.Tools(ctx, nil) {
				if err != nil {
					t.Fatal(err)
				}
				listed = append(listed, tool.Name)
				if tool.Description == "" || tool.InputSchema == nil {
					t.Errorf("%s is listed without a description or an input schema", tool.Name)
				}
			}
			var handler []string
			for _, g := range proj.Handler {
				handler = append(handler, g.Tool)
			}
			for what, set := range map[string][]string{"MCP projection": proj.MCP, "handler table": handler, "launcher allowlist": proj.Launcher} {
				if !sameSet(listed, set) {
					t.Errorf("tools/list %v\n  differs from the %s %v", listed, what, set)
				}
			}
			if len(listed) != len(stamp.ToolsFor(p.Profile)) {
				t.Errorf("listed %d tools, the class has %d", len(listed), len(stamp.ToolsFor(p.Profile)))
			}

			// An allowed call executes.
			if err := os.WriteFile(filepath.Join(r.Workspace().Dir(), "QUEUE.md"), []byte("- ship it\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			res := callTool(t, cs, "workspace_read", map[string]any{"path": "QUEUE.md"})
			if res.IsError || structured[readResult](t, res).Content != "- ship it\n" {
				t.Fatalf("allowed read: %s", text(res))
			}

			// A denied call names its boundary.
			os.WriteFile(filepath.Join(r.Workspace().Dir(), ".env"), []byte("TOKEN=1"), 0o600)
			res = callTool(t, cs, "workspace_read", map[string]any{"path": ".env"})
			if a := structured[Failure](t, res); !res.IsError || a.Code != "denied" || a.Boundary != confirm.BoundarySecretValues.String() {
				t.Fatalf("secret read: %+v %s; want denied at the secret-values boundary", a, text(res))
			}
			if strings.Contains(text(res), "TOKEN=1") {
				t.Fatal("the denial shows the secret")
			}

			// A confirm call times out as status unknown; a retry with its
			// correlation id joins the same confirmation, and once approved
			// it is carried out.
			args := map[string]any{"destination": "https://example.org/release", "description": "release 1"}
			res = callTool(t, cs, stamp.PublishTool, args)
			first := structured[Answer](t, res)
			if res.IsError || first.Status != confirm.StatusUnknown || first.CorrelationID == "" || first.Confirmation == "" {
				t.Fatalf("publish before approval: %+v %s; want status unknown with a correlation id", first, text(res))
			}
			args["correlation_id"] = first.CorrelationID
			res = callTool(t, cs, stamp.PublishTool, args)
			if again := structured[Answer](t, res); again.Confirmation != first.Confirmation || again.Status != confirm.StatusUnknown {
				t.Fatalf("retry with the correlation id: %+v; want to join %s", again, first.Confirmation)
			}
			approved := f.approveWhenAsked(t, p.ID)
			if id := <-approved; id != first.Confirmation {
				t.Fatalf("approved %s, want the joined %s", id, first.Confirmation)
			}
			res = callTool(t, cs, stamp.PublishTool, args)
			if got := structured[published](t, res); res.IsError || got.Status != "approved" || got.Confirmation != first.Confirmation {
				t.Fatalf("publish after approval: %s", text(res))
			}
		})
	}
}

// A confirm call with a progress token waits, notifying progress, and
// completes once the bound human approves in the meantime.
func TestConfirmWaitsWithProgressAndCompletesAfterApproval(t *testing.T) {
	f := newFixture(t)
	p := f.persona(t, "work/core/lead", "Spica")
	r := f.runtime(t, p, Options{Progress: 50 * time.Millisecond})
	var mu sync.Mutex
	var notes []string
	cs := connect(t, r, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		notes = append(notes, req.Params.Message)
		mu.Unlock()
	}})
	approved := f.approveWhenAsked(t, p.ID)
	params := &mcp.CallToolParams{Name: stamp.PublishTool, Arguments: map[string]any{"destination": "https://example.org/site"}}
	params.SetProgressToken("p-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	id := <-approved
	if got := structured[published](t, res); res.IsError || got.Confirmation != id {
		t.Fatalf("publish: %s; want it carried out under %s", text(res), id)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notes) == 0 || !strings.Contains(notes[0], "human:henry") {
		t.Fatalf("progress notifications %q; want at least one naming the authority", notes)
	}
}

// A waiting call holds on the hub's wait for the decision rather than
// asking again: with a hold as long as 30 s, an approval still completes
// the call at once.
func TestConfirmWaitWakesOnTheDecision(t *testing.T) {
	f := newFixture(t)
	p := f.persona(t, "work/core/lead", "Spica")
	r := f.runtime(t, p, Options{Progress: 30 * time.Second})
	cs := connect(t, r, nil)
	approved := f.approveWhenAsked(t, p.ID)
	start := time.Now()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: stamp.PublishTool, Arguments: map[string]any{"destination": "https://example.org/wake"}})
	if err != nil {
		t.Fatal(err)
	}
	id := <-approved
	if got := structured[published](t, res); res.IsError || got.Confirmation != id {
		t.Fatalf("publish: %s; want it carried out under %s", text(res), id)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("the call completed %s after it began; the approval came within seconds", took)
	}
}

// A link in the workspace is decided as the file it reaches.
func TestLinkedSecretIsDeniedAsTheSecret(t *testing.T) {
	f := newFixture(t)
	p := f.persona(t, "work/core/lead", "Spica")
	r := f.runtime(t, p, Options{})
	dir := r.Workspace().Dir()
	os.WriteFile(filepath.Join(dir, ".env"), []byte("TOKEN=1"), 0o600)
	os.MkdirAll(filepath.Join(dir, "memory"), 0o700)
	if err := os.Symlink("../.env", filepath.Join(dir, "memory", "notes.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(dir, "memory", "etc")); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, r, nil)
	res := callTool(t, cs, "workspace_read", map[string]any{"path": "memory/notes.md"})
	if a := structured[Failure](t, res); !res.IsError || a.Boundary != confirm.BoundarySecretValues.String() {
		t.Fatalf("read through a link to .env: %+v %s", a, text(res))
	}
	res = callTool(t, cs, "workspace_read", map[string]any{"path": "memory/etc/passwd"})
	if !res.IsError || !strings.Contains(text(res), confirm.ErrSymlinkEscape.Error()) {
		t.Fatalf("read through a link out: %s", text(res))
	}
}

// A persona's token is refused for another persona, and an operator's
// token never boots a runtime.
func TestBootRefusesAnotherIdentity(t *testing.T) {
	f := newFixture(t)
	p := f.persona(t, "work/core/lead", "Spica")
	if _, err := Boot(context.Background(), f.op, "", Options{Home: f.home.Dir}); !errors.Is(err, ErrNotPersona) {
		t.Fatalf("boot with henry's token: %v, want ErrNotPersona", err)
	}
	r := f.runtime(t, p, Options{})
	if _, err := Boot(context.Background(), r.c, "work/core/deputy", Options{Home: f.home.Dir}); !errors.Is(err, ErrWrongPersona) {
		t.Fatalf("boot as another persona: %v, want ErrWrongPersona", err)
	}
}

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// A tool the hub carries out goes through the hub's tool call and answers
// the hub executor's result.
func TestHubToolsAreCarriedOutByTheHub(t *testing.T) {
	f := newFixture(t)
	lead := f.persona(t, "work/core/lead", "Spica")
	f.persona(t, "work/core/deputy", "Zaniah")
	cs := connect(t, f.runtime(t, lead, Options{}), nil)
	res := callTool(t, cs, "assign_task", map[string]any{"assignee": "work/core/deputy", "title": "write the notes",
		"brief": "the release notes of core", "correlation_id": "assign-1"})
	if res.IsError {
		t.Fatalf("assign_task: %s", text(res))
	}
	res = callTool(t, cs, "list_tasks", map[string]any{"which": "assigned-by-me"})
	if res.IsError || !strings.Contains(text(res), "write the notes") {
		t.Fatalf("list_tasks after assigning: %s", text(res))
	}
	// The presence tools are the hub's too: the session's summary is the
	// hub.s, and the coordinator sees it in the directory.
	if res := callTool(t, cs, "set_summary", map[string]any{"summary": "writing the notes"}); res.IsError {
		t.Fatalf("set_summary: %s", text(res))
	}
	coord := connect(t, f.runtime(t, f.persona(t, "work/coordinator", "Vindemiatrix"), Options{}), nil)
	if res := callTool(t, coord, "list_peers", map[string]any{}); res.IsError || !strings.Contains(text(res), "writing the notes") {
		t.Fatalf("list_peers: %s", text(res))
	}
}

// A file of NUL bytes is valid UTF-8, but JSON escapes each NUL as six
// bytes and the answer carried its JSON twice: 1 MiB of NULs became a
// 13.6 MB message the TypeScript client dropped. Bytes that are not plain
// text travel once, as an MCP blob: the message stays under 1.5 MiB and
// its blob is the file's bytes. Plain text still reads as text.
func TestBinaryReadIsOneBlob(t *testing.T) {
	f := newFixture(t)
	r := f.runtime(t, f.persona(t, "work/core/lead", "Spica"), Options{})
	dir := r.Workspace().Dir()
	cs := connect(t, r, nil)
	files := map[string][]byte{
		"nul.bin":    make([]byte, 1<<20),
		"latin1.txt": []byte("caf\xe9\n"),
		"bell.txt":   []byte("ring \a\n"),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
		res := callTool(t, cs, "workspace_read", map[string]any{"path": name, "length": 1 << 20})
		if res.IsError {
			t.Fatalf("%s: %s", name, text(res))
		}
		wire, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if len(wire) > len(data)*3/2+1024 {
			t.Errorf("%s: %d bytes read became a %d-byte answer", name, len(data), len(wire))
		}
		var blob []byte
		for _, c := range res.Content {
			if e, ok := c.(*mcp.EmbeddedResource); ok && e.Resource != nil {
				blob = e.Resource.Blob
			}
		}
		if !bytes.Equal(blob, data) {
			t.Errorf("%s: the answer's blob holds %d bytes, not the file's %d", name, len(blob), len(data))
		}
		if m := structured[map[string]any](t, res); m["encoding"] != "blob" || m["eof"] != true {
			t.Errorf("%s: structured answer: encoding %v, eof %v", name, m["encoding"], m["eof"])
		}
	}
	os.WriteFile(filepath.Join(dir, "plain.md"), []byte("tab\there\r\n"), 0o600)
	if res := callTool(t, cs, "workspace_read", map[string]any{"path": "plain.md"}); structured[readResult](t, res).Content != "tab\there\r\n" {
		t.Fatalf("plain text: %s", text(res))
	}
}
