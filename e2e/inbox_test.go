package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// inboxItem is the part of `inbox list -o json` the test reads.
type inboxItem struct {
	ID        string  `json:"id"`
	FromHuman bool    `json:"from_human"`
	Kind      string  `json:"kind"`
	ReplyTo   string  `json:"reply_to"`
	Text      string  `json:"text"`
	Title     string  `json:"title"`
	AckedAt   *string `json:"acked_at"`
	Reactions []struct {
		Reaction string `json:"reaction"`
		By       string `json:"by"`
	} `json:"reactions"`
	Answer *struct {
		Action string `json:"action"`
		By     string `json:"by"`
	} `json:"answer"`
}

// The human channel in a real terminal: the secretary sends the
// owner a message and a card from the command line (send_human_message,
// send_human_card through the hub's tool calls); the owner sees both live
// in the console's inbox, reacts to the card and answers it with one of
// its actions, replies to the message and acks it. Afterwards the records,
// the secretary's seat, the audit log and the console agree.
func TestInboxStory(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the inbox story builds the binary and drives the console in tmux")
	}
	c := startConsole(t, false, "")
	c.press("5", "[5 Inbox")
	sec := []string{"--as", "root/secretary"}
	msg := field(c, c.tool(0, append([]string{"human", "send", "Shall I publish v1.2.0 tonight?"}, sec...)...).Result, "id")
	card := field(c, c.tool(0, append([]string{"human", "card", "--title", "Publish v1.2.0", "--body", "smoke tests passed",
		"--action", "reject", "--action", "approve"}, sec...)...).Result, "id")
	c.waitFor("Publish v1.2.0", stepTimeout) // live, from the stream
	briefed(c)
	c.waitFor("6 unread", stepTimeout) // the demo's four letters and these two

	filterQueue(c, "smoke tests", "Publish v1.2.0: smoke tests passed") // the card alone: it is selected
	c.press("+", "react to root/secretary")
	c.typeIn("approve", "approve")
	c.press("Enter", "reacted approve on #")
	// The answer, by keys: c opens the dialog of the card's actions, j
	// chooses down to the last (approve; more j's stay there), y sends it.
	c.press("c", "Answer card #")
	c.press("j", "approve goes to root/secretary")
	c.press("y", "answered card #")
	c.waitFor("● answered", stepTimeout) // the answer, back on the stream
	clearFilter(c)

	filterQueue(c, "tonight", "Shall I publish v1.2.0 tonight?")
	c.press("r", "reply to root/secretary ›")
	c.typeIn("yes, after the smoke tests", "after the smoke tests")
	c.press("Enter", "replied to root/secretary on #")
	c.press("a", "marked #")
	clearFilter(c)
	c.waitFor("5 unread", stepTimeout)

	// The records agree: the card carries the owner's reaction, the
	// message is read and answered by the owner.
	var page struct {
		Items []inboxItem `json:"items"`
	}
	c.cliJSON(&page, "inbox", "list")
	byID := map[string]inboxItem{}
	var reply *inboxItem
	for i, it := range page.Items {
		byID[it.ID] = it
		if it.FromHuman && it.ReplyTo == msg {
			reply = &page.Items[i]
		}
	}
	if rs := byID[card].Reactions; len(rs) != 1 || rs[0].Reaction != "approve" || rs[0].By != operator {
		c.fatalf("card %s reactions %+v, want approve by %s", card, rs, operator)
	}
	if byID[msg].AckedAt == nil {
		c.fatalf("message %s is not acked: %+v", msg, byID[msg])
	}
	if reply == nil || reply.Text != "yes, after the smoke tests" {
		c.fatalf("no reply of the owner to %s in %+v", msg, page.Items)
	}
	if byID[card].AckedAt != nil {
		c.fatalf("card %s acked, though only reacted to and answered", card)
	}
	if a := byID[card].Answer; a == nil || a.Action != "approve" || a.By != operator {
		c.fatalf("card %s answer %+v, want approve by %s", card, a, operator)
	}
	// The secretary's seat got the answer as a message naming the card.
	var seat struct {
		Items []struct {
			Subject string `json:"subject"`
			About   *struct {
				Kind, ID, Event string
			} `json:"about"`
		} `json:"items"`
	}
	c.cliJSON(&seat, "msg", "list", "--seat", "root/secretary", "--all")
	told := 0
	for _, m := range seat.Items {
		if m.About != nil && m.About.Kind == "item" && m.About.ID == card && m.About.Event == "answer" && m.Subject == "answer: approve" {
			told++
		}
	}
	if told != 1 {
		c.fatalf("root/secretary got %d messages of the answer to %s, want one: %+v", told, card, seat.Items)
	}
	// The audit log holds the secretary's two sends and the owner's four
	// acts in the console, each naming its item.
	var log []struct {
		Event     string `json:"event"`
		Actor     string `json:"actor"`
		Operation string `json:"operation"`
	}
	c.cliJSON(&log, "audit")
	sends := map[string]int{}
	acts := map[string]string{}
	for _, e := range log {
		if e.Event == "tool-call" && strings.HasPrefix(e.Actor, "root/secretary") {
			sends[strings.Fields(e.Operation + " ? ?")[1]]++
		}
		if strings.HasPrefix(e.Event, "inbox-") && e.Actor == operator {
			acts[e.Event] += e.Operation + ";"
		}
	}
	if !strings.Contains(acts["inbox-react"], card) || !strings.Contains(acts["inbox-answer"], card+" approve") ||
		!strings.Contains(acts["inbox-reply"], msg) || !strings.Contains(acts["inbox-ack"], msg) {
		c.fatalf("audit: the owner's acts %v, want a reaction to and an answer of %s, a reply to and an ack of %s", acts, card, msg)
	}
	if sends["send_human_message"] != 2 || sends["send_human_card"] != 1 { // the demo's greeting, and these
		raw, _ := json.Marshal(log)
		c.fatalf("audit: the secretary's sends %v, want two messages and one card\n%s", sends, raw)
	}
	// The console agrees: the reply shows in the message's thread.
	c.waitFor("you → root/secretary", stepTimeout)

	// The channel carries the owner's confirmations: one is approved from
	// the inbox with a deliberate a, and the hub records the owner's
	// decision.
	var pending []struct {
		ID        string `json:"id"`
		Authority string `json:"authority"`
	}
	c.cliJSON(&pending, "confirm", "list")
	id := ""
	for _, p := range pending {
		if p.Authority == operator {
			id = p.ID
			break
		}
	}
	if id == "" {
		c.fatalf("no confirmation of the demo is routed to %s: %+v", operator, pending)
	}
	filterQueue(c, id, "decide ") // the one row left: the confirmation
	c.press("a", "approved: ")
	var decided struct {
		Decision struct {
			Decision string `json:"decision"`
			Decider  string `json:"decider"`
		} `json:"decision"`
	}
	c.cliJSON(&decided, "confirm", "show", id)
	if decided.Decision.Decision != "approved" || decided.Decision.Decider != operator {
		c.fatalf("%s approved in the inbox: the hub records %+v", id, decided.Decision)
	}
}

// briefed waits until the demo's home secretary has written its human: its
// runtime sends one daily brief on its first tick and goes away after its
// third, so from then on the demo's letters are four (three seeded, the
// brief) and the unread count moves only by what the test does.
func briefed(c *console) {
	c.t.Helper()
	deadline := time.Now().Add(stepTimeout)
	for {
		var page struct {
			Items []inboxItem `json:"items"`
		}
		c.cliJSON(&page, "inbox", "list")
		briefs := 0
		for _, it := range page.Items {
			if strings.HasPrefix(it.Text, "Daily brief ") {
				briefs++
			}
		}
		switch {
		case briefs > 1:
			c.fatalf("the demo's secretary wrote %d daily briefs, want one: %+v", briefs, page.Items)
		case briefs == 1:
			return
		case time.Now().After(deadline):
			c.fatalf("no daily brief of the demo's home secretary after %s: %+v", stepTimeout, page.Items)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
