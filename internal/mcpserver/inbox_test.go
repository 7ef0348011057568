package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Work arrives as a message, and a connected client is told: a client
// subscribed to the inbox resource gets notifications/resources/updated
// when the lead assigns its persona a task, and reading the resource shows
// the message naming the task.
func TestASubscribedClientIsToldWhenWorkArrives(t *testing.T) {
	f := newFixture(t)
	lead := f.persona(t, "work/core/lead", "Spica")
	deputy := f.persona(t, "work/core/deputy", "Zaniah")
	updated := make(chan string, 16)
	cs := connect(t, f.runtime(t, deputy, Options{}), &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { updated <- req.Params.URI },
	})
	if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: InboxURI}); err != nil {
		t.Fatal(err)
	}
	ls := connect(t, f.runtime(t, lead, Options{}), nil)
	task := structured[map[string]any](t, callTool(t, ls, "assign_task",
		map[string]any{"assignee": "work/core/deputy", "title": "port the parser", "brief": "b"}))
	select {
	case uri := <-updated:
		if uri != InboxURI {
			t.Fatalf("told of %s, want %s", uri, InboxURI)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no notification 10 s after the task was assigned")
	}
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: InboxURI})
	if err != nil {
		t.Fatal(err)
	}
	var page struct {
		Items []struct {
			About struct{ Kind, ID, Event string }
		}
	}
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &page); err != nil || len(page.Items) != 1 ||
		page.Items[0].About.ID != task["id"] || page.Items[0].About.Event != "assigned" {
		t.Fatalf("the inbox resource: %v %s", err, res.Contents[0].Text)
	}
	if !strings.Contains(res.Contents[0].MIMEType, "json") {
		t.Errorf("MIME type %q", res.Contents[0].MIMEType)
	}
}
