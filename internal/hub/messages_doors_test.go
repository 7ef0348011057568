package hub

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/tools"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/coord"
)

// One tool, one authorization path: send_broker_message,
// list_coordination_messages and ack_coordination_message through
// POST/GET /v1/messages are the same tool calls as through
// POST /v1/tools/{tool} (usecase.CallTool). Over the socket the same call
// gets the same verdict at either door — allowed, denied on the same
// boundary, refused as fenced — and each write through either door
// writes its one tool-call audit entry.
func TestBothFrontDoorsOfTheCoordinationToolsDecideAlike(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx := context.Background()
	lead := th.addPersona(t, "work/core/lead", "Spica")
	deputy := th.addPersona(t, "work/core/deputy", "Zaniah")
	leadRT, depRT := th.runtime(t, lead), th.runtime(t, deputy)
	henry := th.operator(t, "henry")
	before, err := henry.Audit(ctx, 0)
	mustNil(t, err)

	// Allowed at both doors: a message each, then an ack each.
	_, err = leadRT.SendMessage(ctx, coord.Draft{To: deputy.Address, Subject: "a", Body: "by the messages route"})
	mustNil(t, err)
	call, err := leadRT.CallTool(ctx, "", "send_broker_message", json.RawMessage(`{"to":"work/core/deputy","body":"by the tools route"}`), "")
	mustNil(t, err)
	if call.Status != tools.ToolDone {
		t.Fatalf("through /v1/tools: %+v", call)
	}
	page, err := depRT.Messages(ctx, "", "", 0)
	mustNil(t, err)
	listed, err := depRT.CallTool(ctx, "", "list_coordination_messages", json.RawMessage(`{}`), "")
	mustNil(t, err)
	var viaTools coord.Page
	mustNil(t, json.Unmarshal(listed.Result, &viaTools))
	if len(page.Items) != 2 || len(viaTools.Items) != 2 || page.Items[1].ID != viaTools.Items[1].ID {
		t.Fatalf("the inbox through /v1/messages %+v, through /v1/tools %+v", page.Items, viaTools.Items)
	}
	_, err = depRT.AckMessage(ctx, page.Items[0].ID)
	mustNil(t, err)
	acked, err := depRT.CallTool(ctx, "", "ack_coordination_message", json.RawMessage(`{"message":"`+page.Items[1].ID+`"}`), "")
	mustNil(t, err)
	if acked.Status != tools.ToolDone {
		t.Fatalf("ack through /v1/tools: %+v", acked)
	}

	// Denied at both doors on the same boundary: a seat with no holder.
	_, err = leadRT.SendMessage(ctx, coord.Draft{To: "work/web/lead", Body: "anyone?"})
	refused := wantCode(t, err, "forbidden")
	denied, err := leadRT.CallTool(ctx, "", "send_broker_message", json.RawMessage(`{"to":"work/web/lead","body":"anyone?"}`), "")
	mustNil(t, err)
	if denied.Status != tools.ToolDenied || denied.Decision.Boundary != confirm.BoundaryNoActiveHolder ||
		!strings.Contains(refused.Msg, denied.Decision.String()) {
		t.Fatalf("through /v1/tools %+v; through /v1/messages %q", denied, refused.Msg)
	}

	// A fenced-out instance is refused at both doors.
	older, newer := th.runtime(t, deputy), th.runtime(t, deputy)
	_, err = older.ClaimFence(ctx)
	mustNil(t, err)
	_, err = newer.ClaimFence(ctx)
	mustNil(t, err)
	_, err = older.SendMessage(ctx, coord.Draft{To: lead.Address, Body: "late"})
	wantCode(t, err, "fenced")
	_, err = older.CallTool(ctx, "", "send_broker_message", json.RawMessage(`{"to":"work/core/lead","body":"late"}`), "")
	wantCode(t, err, "fenced")

	// Each write, by either door, has its one tool-call entry; reads and
	// refusals have none.
	all, err := henry.Audit(ctx, 0)
	mustNil(t, err)
	perOp := map[string]int{}
	for _, e := range all[len(before):] {
		if e.Event != "tool-call" {
			t.Errorf("unexpected audit entry %+v", e)
			continue
		}
		perOp[e.Operation]++
	}
	sends, acks := 0, 0
	for op, n := range perOp {
		switch {
		case strings.Contains(op, "send_broker_message") && strings.Contains(op, deputy.Address):
			sends += n
		case strings.Contains(op, "ack_coordination_message"):
			acks += n
		default:
			t.Errorf("audited %q ×%d", op, n)
		}
	}
	if sends != 2 || acks != 2 {
		t.Fatalf("tool-call entries: %d sends, %d acks, want 2 and 2 (%v)", sends, acks, perOp)
	}
}
