//lint:file-ignore SA1019 the wait's log message is MCP logging, deprecated by SEP-2577 but served through its window (see Server)

package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// The server's default wait ends before the TypeScript SDK's default
// request timeout (60 s), so a client with default options learns its
// correlation id instead of failing with -32001.
func TestDefaultWaitEndsBeforeTheClientsDefaultTimeout(t *testing.T) {
	const tsDefaultRequestTimeout = 60 * time.Second
	if DefaultConfirmWait >= tsDefaultRequestTimeout-5*time.Second {
		t.Fatalf("DefaultConfirmWait %s: a waiting call must answer well before a client's default %s timeout",
			DefaultConfirmWait, tsDefaultRequestTimeout)
	}
}

// A call that waits without a progress token (a client with default
// options) is told its correlation id and confirmation id in a log
// message from the start, answers status unknown with them when the wait
// ends, and a call again with that correlation_id joins the same
// confirmation: carried out once after the approval, never a second
// confirmation. tools/list says how.
func TestAWaitWithoutProgressTokenNamesItsIDsAndRejoins(t *testing.T) {
	f := newFixture(t)
	p := f.persona(t, "work/core/lead", "Spica")
	r := f.runtime(t, p, Options{ConfirmWait: 300 * time.Millisecond, Progress: 100 * time.Millisecond})
	logs := make(chan *mcp.LoggingMessageParams, 4)
	cs := connect(t, r, &mcp.ClientOptions{LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
		logs <- req.Params
	}})
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if init := cs.InitializeResult(); !strings.Contains(init.Instructions, "that correlation_id to join the same confirmation") {
		t.Errorf("the server's instructions do not say how to rejoin: %q", init.Instructions)
	}
	for _, tool := range lt.Tools {
		if tool.Name == stamp.PublishTool && !strings.Contains(tool.Description, "call the same tool again with the same arguments and that correlation_id") {
			t.Errorf("%s's description does not say how to rejoin: %q", tool.Name, tool.Description)
		}
	}

	args := map[string]any{"destination": "https://example.org/wait", "description": "v2"}
	// A client of the newest protocol names its log level on each request.
	params := &mcp.CallToolParams{Name: stamp.PublishTool, Arguments: args, Meta: mcp.Meta{mcp.MetaKeyLogLevel: "info"}}
	first, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	a := structured[Answer](t, first)
	if first.IsError || a.Status != confirm.StatusUnknown || a.CorrelationID == "" || a.Confirmation == "" {
		t.Fatalf("a wait that ends pending: %s; want status unknown with its ids", text(first))
	}
	select {
	case l := <-logs:
		b, _ := json.Marshal(l.Data)
		if !strings.Contains(string(b), a.CorrelationID) || !strings.Contains(string(b), a.Confirmation) {
			t.Fatalf("the wait's log message %s does not name %s and %s", b, a.CorrelationID, a.Confirmation)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no log message named the wait's ids")
	}

	approved := f.approveWhenAsked(t, p.ID)
	args["correlation_id"] = a.CorrelationID
	joined := callTool(t, cs, stamp.PublishTool, args)
	if id := <-approved; id != a.Confirmation {
		t.Fatalf("approved %s; the first call raised %s", id, a.Confirmation)
	}
	if got := structured[published](t, joined); joined.IsError || got.Confirmation != a.Confirmation {
		t.Fatalf("the call joined after the approval: %s; want carried out under %s", text(joined), a.Confirmation)
	}
	again := callTool(t, cs, stamp.PublishTool, args)
	if call := structured[hubapi.ToolCall](t, again); again.IsError || call.Status != "carried" {
		t.Fatalf("a third call under the same correlation_id: %s; want already carried out", text(again))
	}
	all, err := f.op.Confirmations(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range all {
		if c.PersonaID == p.ID && c.Kind == confirm.KindOperation {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d confirmations for one call joined twice; want 1", n)
	}
}
