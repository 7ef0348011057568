package hub

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/tools"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// set_summary and set_activity over the socket: each reports the caller's
// own presence, which the hub's tracker then holds; a persona naming
// another persona's seat still sets only its own; an oversize text and a
// text with an escape sequence are refused by the tool's schema, leaving
// the presence as it was; an instance fenced out by a newer one is
// refused, as its beats are.
func TestPresenceToolsSetTheCallersOwnPresence(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	deputy := th.addPersona(t, "work/core/deputy", "Zaniah")
	leadRT, depRT := th.runtime(t, lead), th.runtime(t, deputy)
	ctx := context.Background()

	ack := callDone[usecase.PresenceAck](t, leadRT, "", "set_summary", `{"summary":"porting the parser"}`, "")
	if ack.Summary != "porting the parser" || ack.State != hubapi.StateActive || ack.Beats != 1 {
		t.Fatalf("set_summary: %+v", ack)
	}
	ack = callDone[usecase.PresenceAck](t, leadRT, "", "set_activity", `{"activity":"reading lexer.go"}`, "")
	if ack.Activity != "reading lexer.go" || ack.Summary != "porting the parser" || ack.Beats != 2 {
		t.Fatalf("set_activity: %+v", ack)
	}
	if p, _ := th.hub.Presence().Get(lead.ID); p.Summary != "porting the parser" || p.Activity != "reading lexer.go" {
		t.Fatalf("the tracker after the tool calls: %+v", p)
	}

	// Hostile: the deputy names the lead's seat; a persona caller's own
	// stamp applies, so the deputy sets its own summary, never the lead's.
	mine := callDone[usecase.PresenceAck](t, depRT, "work/core/lead", "set_summary", `{"summary":"I am the lead now"}`, "")
	if mine.Summary != "I am the lead now" {
		t.Fatalf("the deputy's set_summary: %+v", mine)
	}
	if p, _ := th.hub.Presence().Get(lead.ID); p.Summary != "porting the parser" {
		t.Fatalf("another persona's summary changed the lead's: %+v", p)
	}
	// A target the caller picks is not an argument of the tool.
	_, err := depRT.CallTool(ctx, "", "set_summary", json.RawMessage(`{"summary":"x","address":"work/core/lead"}`), "")
	wantCode(t, err, "invalid_arguments")

	_, err = leadRT.CallTool(ctx, "", "set_summary", json.RawMessage(`{"summary":"`+strings.Repeat("a", 1025)+`"}`), "")
	wantCode(t, err, "invalid_arguments")
	_, err = leadRT.CallTool(ctx, "", "set_activity", json.RawMessage(`{"activity":"\u001b[2J wiped"}`), "")
	wantCode(t, err, "invalid_arguments")
	if p, _ := th.hub.Presence().Get(lead.ID); p.Activity != "reading lexer.go" || p.Beats != 2 {
		t.Fatalf("a refused text changed the presence: %+v", p)
	}

	// A newer instance of the lead fences this one out.
	_, err = leadRT.ClaimFence(ctx)
	mustNil(t, err)
	newer := th.runtime(t, lead)
	_, err = newer.ClaimFence(ctx)
	mustNil(t, err)
	_, err = leadRT.CallTool(ctx, "", "set_activity", json.RawMessage(`{"activity":"still here"}`), "")
	wantCode(t, err, "fenced")
	callDone[usecase.PresenceAck](t, newer, "", "set_activity", `{"activity":"took over"}`, "")
}

// list_peers and lookup_sender over the socket: the redacted directory of
// the installation's seat holders, a page at a time, without the caller,
// a retired generation, or any runtime's activity; a lookup of a seat
// whose holder retired is denied on the no-active-holder boundary.
func TestPresenceToolsReadTheRedactedDirectory(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	deputy := th.addPersona(t, "work/core/deputy", "Zaniah")
	th.addPersona(t, "work/coordinator", "Vindemiatrix")
	th.addPersona(t, "work/docs/lead", "Auva")
	th.retire(t, "work/docs/lead", "the docs project closed")
	leadRT, depRT := th.runtime(t, lead), th.runtime(t, deputy)
	ctx := context.Background()
	callDone[usecase.PresenceAck](t, leadRT, "", "set_activity", `{"activity":"secret plans"}`, "")
	callDone[usecase.PresenceAck](t, leadRT, "", "set_summary", `{"summary":"parser owner"}`, "")

	var seen []usecase.Peer
	after := ""
	for range 5 {
		page := callDone[paging.Page[usecase.Peer]](t, depRT, "", "list_peers", `{"limit":1,"after":"`+after+`"}`, "")
		seen = append(seen, page.Items...)
		if after = page.Next; after == "" {
			break
		}
	}
	if len(seen) != 2 || seen[0].Address != "work/coordinator" || seen[1].Address != "work/core/lead" {
		t.Fatalf("list_peers as the deputy, a page of one at a time: %+v", seen)
	}
	if l := seen[1]; l.Name != "Spica" || l.PeerID != lead.ID || l.Summary != "parser owner" || l.State != hubapi.StateActive {
		t.Fatalf("the lead in the directory: %+v", l)
	}
	raw, err := depRT.CallTool(ctx, "", "list_peers", nil, "")
	mustNil(t, err)
	if strings.Contains(string(raw.Result), "secret plans") || strings.Contains(string(raw.Result), "Auva") {
		t.Fatalf("the directory shows an activity or a retired generation: %s", raw.Result)
	}
	_, err = depRT.CallTool(ctx, "", "list_peers", json.RawMessage(`{"after":"a"}`), "")
	wantCode(t, err, "bad_page_token")

	who := callDone[usecase.Peer](t, depRT, "", "lookup_sender", `{"address":"work/core/lead"}`, "")
	if who.Name != "Spica" || who.PeerID != lead.ID || who.Generation != lead.Generation || who.Summary != "parser owner" {
		t.Fatalf("lookup_sender work/core/lead: %+v", who)
	}
	gone, err := depRT.CallTool(ctx, "", "lookup_sender", json.RawMessage(`{"address":"work/docs/lead"}`), "")
	mustNil(t, err)
	if gone.Status != tools.ToolDenied || gone.Decision.Boundary != confirm.BoundaryNoActiveHolder {
		t.Fatalf("lookup_sender of a seat whose holder retired: %+v", gone)
	}
	_, err = depRT.CallTool(ctx, "", "lookup_sender", json.RawMessage(`{"address":"work/../lead"}`), "")
	if err == nil {
		t.Fatal("lookup_sender took a malformed address")
	}
}

// reconcile_wake over the socket: a woken runtime is present again and
// is told what waited for it (its inbox and its pending confirmations);
// a fenced-out instance is refused.
func TestReconcileWake(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	deputy := th.addPersona(t, "work/core/deputy", "Zaniah")
	leadRT, depRT := th.runtime(t, lead), th.runtime(t, deputy)
	ctx := context.Background()
	callDone[json.RawMessage](t, depRT, "", "send_broker_message", `{"to":"work/core/lead","subject":"review","body":"the lexer is ready"}`, "m-1")
	_, err := leadRT.CallTool(ctx, "", "publish_deployment_v1", json.RawMessage(`{"destination":"https://example.org/r"}`), "pub-1")
	mustNil(t, err)
	mustNil(t, th.hub.Settle(ctx))

	w := callDone[usecase.Wake](t, leadRT, "", "reconcile_wake", `{}`, "")
	if w.Presence.State != hubapi.StateActive || w.Presence.Beats != 1 || w.Waiting != 1 ||
		len(w.Inbox.Items) != 1 || w.Inbox.Items[0].Body != "the lexer is ready" {
		t.Fatalf("reconcile_wake: %+v", w)
	}

	_, err = leadRT.ClaimFence(ctx)
	mustNil(t, err)
	_, err = th.runtime(t, lead).ClaimFence(ctx)
	mustNil(t, err)
	_, err = leadRT.CallTool(ctx, "", "reconcile_wake", nil, "")
	wantCode(t, err, "fenced")
}
