package hub

import (
	"context"
	"strings"
	"testing"
)

// Spec: "Human-surface reactions return a definitive terminal result:
// applied: true or applied: false with a reason. unknown is not a terminal
// success and remains retryable under the same correlation id." A
// correlation id names one reaction: henry reacts thumbs_up under r-1, then
// thumbs_down under r-1 — the second is refused with correlation_reuse
// (it was never applied), not answered "applied: true"; an unchanged retry
// answers the recorded outcome of what was applied, once.
func TestAReactionRetriedWithOtherArgumentsIsRefused(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx := context.Background()
	sec := th.addPersona(t, "root/secretary", "Porrima")
	me := th.runtime(t, sec)
	msg := toolItem(t, me, "send_human_message", `{"text":"ship it?"}`)
	other := toolItem(t, me, "send_human_message", `{"text":"and this?"}`)
	henry := th.operator(t, "henry")

	up, err := henry.ReactInbox(ctx, msg.ID, "thumbs_up", "r-1")
	mustNil(t, err)
	if !up.Known || !up.Applied || up.Item != msg.ID || up.Reaction != "thumbs_up" {
		t.Fatalf("thumbs_up: %+v, want applied, naming the item and the reaction", up)
	}
	for _, c := range []struct{ item, reaction string }{{msg.ID, "thumbs_down"}, {other.ID, "thumbs_up"}, {"h-404", "thumbs_up"}} {
		o, err := henry.ReactInbox(ctx, c.item, c.reaction, "r-1")
		if ae := wantCode(t, err, "correlation_reuse"); !strings.Contains(ae.Msg, "thumbs_up") || !strings.Contains(ae.Msg, msg.ID) {
			t.Fatalf("%s %s under r-1: %q does not name what r-1 applied", c.item, c.reaction, ae.Msg)
		}
		if o.Applied {
			t.Fatalf("%s %s under r-1 answered applied: %+v", c.item, c.reaction, o)
		}
	}
	again, err := henry.ReactInbox(ctx, msg.ID, "thumbs_up", "r-1")
	mustNil(t, err)
	if again != up {
		t.Fatalf("the unchanged retry: %+v, want the recorded %+v", again, up)
	}
	page, err := henry.Inbox(ctx, "", 10)
	mustNil(t, err)
	for _, it := range page.Items {
		switch {
		case it.ID == msg.ID && (len(it.Reactions) != 1 || it.Reactions[0].Reaction != "thumbs_up"):
			t.Fatalf("%s holds %+v, want thumbs_up alone", it.ID, it.Reactions)
		case it.ID == other.ID && len(it.Reactions) != 0:
			t.Fatalf("%s holds %+v, want none", it.ID, it.Reactions)
		}
	}
	// A reaction not applied carries its reason, and is bound as tightly.
	no, err := henry.ReactInbox(ctx, msg.ID, "party", "r-2")
	mustNil(t, err)
	if !no.Known || no.Applied || !strings.Contains(no.Reason, "unknown reaction") {
		t.Fatalf("an unknown reaction: %+v, want applied: false with the reason", no)
	}
	_, err = henry.ReactInbox(ctx, msg.ID, "thumbs_down", "r-2")
	wantCode(t, err, "correlation_reuse")
}
