package usecase

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/tools"

	"github.com/virgo-hub/virgo-tui/internal/channel"
	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/coord"
)

// The coordination and human-surface tools through CallTool, decided
// under each caller's stamp: the lead messages its deputy, who lists and
// acks; the secretary writes its human and reacts, once per correlation
// id; a fenced-out instance's calls are refused; a deputy has no human
// surface (the matrix).
func TestCoordinationAndHumanToolsThroughCallTool(t *testing.T) {
	in := newInstallation(t)
	_, lead := active(t, in, "work/core/lead", "Spica")
	deputy, dep := active(t, in, "work/core/deputy", "Zaniah")
	_, sec := active(t, in, "root/secretary", "Porrima")
	done := func(call tools.ToolCall, err error) json.RawMessage {
		t.Helper()
		mustNil(t, err)
		if call.Status != tools.ToolDone {
			t.Fatalf("%s: %s (%+v)", call.Tool, call.Status, call.Decision)
		}
		return call.Result
	}
	var m coord.Message
	mustNil(t, json.Unmarshal(done(callTool(t, in, lead, "send_broker_message", `{"to":"work/core/deputy","subject":"review","body":"core#12"}`, "")), &m))
	if m.ID != "m-1.work.core.deputy" || m.From.Address != "work/core/lead" {
		t.Fatalf("sent %+v", m)
	}
	var page coord.Page
	mustNil(t, json.Unmarshal(done(callTool(t, in, dep, "list_coordination_messages", `{}`, "")), &page))
	if len(page.Items) != 1 || page.Items[0].Body != "core#12" {
		t.Fatalf("listed %+v", page)
	}
	done(callTool(t, in, dep, "ack_coordination_message", `{"message":"m-1.work.core.deputy"}`, ""))

	var it channel.Item
	mustNil(t, json.Unmarshal(done(callTool(t, in, sec, "send_human_message", `{"text":"ready for review"}`, "")), &it))
	if it.Human != "human:henry" || it.Kind != channel.KindMessage {
		t.Fatalf("sent to the human %+v", it)
	}
	done(callTool(t, in, sec, "send_human_card", `{"title":"Deploy?","body":"v1.4","actions":["yes","no"]}`, ""))
	done(callTool(t, in, sec, "send_human_todo", `{"title":"Release","items":["sign","tag"]}`, ""))
	done(callTool(t, in, sec, "start_typing", `{}`, ""))
	done(callTool(t, in, sec, "stop_typing", `{}`, ""))
	var ids struct{ Reactions []string }
	mustNil(t, json.Unmarshal(done(callTool(t, in, sec, "list_reaction_ids", `{}`, "")), &ids))
	if len(ids.Reactions) == 0 {
		t.Fatal("no reaction catalogue")
	}
	var status SurfaceStatus
	mustNil(t, json.Unmarshal(done(callTool(t, in, sec, "get_human_surface_status", `{}`, "")), &status))
	if status.Unread != 3 || status.Human != "human:henry" {
		t.Fatalf("status %+v", status)
	}
	reply, err := in.cases.ReplyAsHuman(t.Context(), Key{}, henry, it.ID, "go ahead")
	mustNil(t, err)
	done(callTool(t, in, sec, "ack_human_message", `{"message":"`+reply.ID+`"}`, ""))
	done(callTool(t, in, sec, "reply_human_message", `{"message":"`+reply.ID+`","text":"on it"}`, ""))
	var o confirm.Outcome
	react := `{"message":"` + reply.ID + `","reaction":"thumbs_up"}`
	mustNil(t, json.Unmarshal(done(callTool(t, in, sec, "apply_human_reaction", react, "re-1")), &o))
	var again confirm.Outcome
	mustNil(t, json.Unmarshal(done(callTool(t, in, sec, "apply_human_reaction", react, "re-1")), &again))
	if !o.Known || !o.Applied || again != o {
		t.Fatalf("reaction %+v, retry %+v", o, again)
	}
	mustNil(t, json.Unmarshal(done(callTool(t, in, sec, "apply_human_reaction", `{"message":"h-99","reaction":"ack"}`, "re-2")), &o))
	if !o.Known || o.Applied || !strings.Contains(o.Reason, "no such item") {
		t.Fatalf("a reaction to nothing: %+v", o)
	}

	// A deputy has no human surface.
	call, err := callTool(t, in, dep, "send_human_message", `{"text":"hi"}`, "")
	mustNil(t, err)
	if call.Status != tools.ToolDenied {
		t.Fatalf("a deputy's send_human_message: %s, want denied", call.Status)
	}
	// A fenced-out instance's call is refused.
	older, err := in.cases.ClaimFence(t.Context(), deputy)
	mustNil(t, err)
	_, err = in.cases.ClaimFence(t.Context(), deputy)
	mustNil(t, err)
	stale := dep
	stale.Fence = older
	if _, err := callTool(t, in, stale, "send_broker_message", `{"to":"work/core/lead","body":"late"}`, ""); !errors.Is(err, coord.ErrFenced) {
		t.Fatalf("a fenced instance's send: %v, want ErrFenced", err)
	}
}
