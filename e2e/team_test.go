package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The team the story registers: four personas connected at once, each
// through its own `virgo-tui mcp` and the TypeScript SDK's client.
var teamSeats = []struct{ addr, name string }{
	{"root/secretary", "Porrima"},
	{"work/coordinator", "Vindemiatrix"},
	{"work/core/lead", "Spica"},
	{"work/core/deputy", "Zaniah"},
}

// TestTeamStoryOverMCP is the spec's team story ("a lead assigns a bounded
// task to a deputy; the deputy reports progress and evidence to the lead;
// the lead consolidates; a secretary routes the result or approval request
// to the owner", virgo-persona-paths.txt) with four real MCP clients (the
// TypeScript SDK) connected at once. Each step's work arrives as a
// coordination message naming its record; the lead reads the deputy's
// evidence from the deputy's workspace; the lead decides its deputy's
// deputy-scope confirmation as an agent, and the waiting call completes;
// the deputy is retired mid-task and the seat's next generation finishes
// the task it inherits; the human's reaction comes back to the secretary.
func TestTeamStoryOverMCP(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the team story installs the TypeScript SDK with npm ci and runs four MCP clients against the console")
	}
	requireTools(t, "the team story runs the TypeScript SDK's client (node, npm) against the console in tmux", "tmux", "node", "npm")
	client := filepath.Join(npmCI(t, "mcpclient"), "client.mjs")
	bin := buildBinary(t)
	dir, err := os.MkdirTemp("", "vtteam")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home := filepath.Join(dir, "virgo-team")
	env := []string{"TERM=xterm-256color", "NO_COLOR=1", "VIRGO_PRINCIPAL=" + operator, "USER=ada"}
	tm := startTerm(t, dir, env, bin, "--home", home)
	tm.logs = append(tm.logs, filepath.Join(home, "console.log"))
	c := &console{term: tm, bin: bin, home: home}
	c.waitFor("hub ● connected", startTimeout)

	register := func(addr, name string) {
		t.Helper()
		a, err := splitAddress(addr)
		if err != nil {
			t.Fatal(err)
		}
		var added struct{ Confirmation struct{ ID string } }
		c.cliJSON(&added, append([]string{"persona", "add", "--name", name}, a...)...)
		c.cli("confirm", "approve", added.Confirmation.ID)
	}
	connect := func(addr string) *mcpClient {
		t.Helper()
		cl := startMCPClient(t, client, env, "stdio", bin, "mcp", "--home", home, "--persona", addr)
		cl.list()
		return cl
	}
	team := map[string]*mcpClient{}
	for _, s := range teamSeats {
		register(s.addr, s.name)
	}
	for _, s := range teamSeats {
		team[s.addr] = connect(s.addr)
	}
	sec, coord, lead, dep := team["root/secretary"], team["work/coordinator"], team["work/core/lead"], team["work/core/deputy"]

	// Everyone is there at once: the coordinator sees its three peers.
	peers := mustDone(t, coord.call("list_peers", nil), "list_peers")
	if n := len(items(peers)); n != 3 {
		t.Fatalf("the coordinator sees %d peers, want the other 3 of the team: %v", n, peers)
	}

	// The deputy's client subscribes to its inbox; the lead assigns, and
	// the deputy is told (notifications/resources/updated) and reads the
	// message naming the task.
	dep.send(map[string]any{"op": "subscribe", "uri": "virgo://inbox"})
	if m := dep.next(); m["subscribed"] != "virgo://inbox" {
		t.Fatalf("subscribe to the inbox: %v", m)
	}
	task := mustDone(t, lead.call("assign_task", map[string]any{"assignee": "work/core/deputy", "title": "port the parser",
		"brief": "make it total; write what you find to FINDINGS.md", "correlation_id": "story-assign"}), "assign_task")
	taskID := fmt.Sprint(task["id"])
	if m := dep.next(); m["updated"] != "virgo://inbox" {
		t.Fatalf("after the assignment the deputy's client heard %v, want the inbox updated", m)
	}
	waitAbout(t, dep, "task", taskID, "assigned")

	// The deputy runs it, writes its findings and records them as
	// evidence (the hub measures the file), and reports.
	run := mustDone(t, dep.call("create_run", map[string]any{"task": taskID, "title": "first pass", "correlation_id": "story-run"}), "create_run")
	runID := fmt.Sprint(run["id"])
	findings := "# Findings\n\nThe parser is total over the corpus.\n"
	mustDone(t, dep.call("workspace_write", map[string]any{"path": "FINDINGS.md", "content": findings}), "workspace_write")
	art := mustDone(t, dep.call("record_artifact", map[string]any{"run": runID, "name": "findings", "path": "FINDINGS.md"}), "record_artifact")
	if art["size"] != float64(len(findings)) || !strings.HasPrefix(fmt.Sprint(art["sha256"]), "sha256:") {
		t.Fatalf("the artifact as recorded: %v", art)
	}
	mustDone(t, dep.call("report_task", map[string]any{"task": taskID, "progress": "parser ported; findings recorded",
		"evidence": []string{runID, "findings"}, "state": "in-progress"}), "report_task")

	// The lead is told and reads the evidence from the deputy's workspace.
	waitAbout(t, lead, "task", taskID, "reported")
	page := mustDone(t, lead.call("read_artifact_v1", map[string]any{"run": runID, "name": "findings"}), "read_artifact_v1")
	if page["text"] != findings || page["eof"] != true {
		t.Fatalf("the lead read the evidence as %v", page)
	}

	// A run of a task that is not the deputy's waits on its lead, who is
	// told, lists it with the operation in full and approves it as an
	// agent; the deputy's waiting call then carries it out.
	other := mustDone(t, lead.call("assign_task", map[string]any{"assignee": "work/core/deputy", "title": "review the grammar",
		"brief": "b", "correlation_id": "story-other"}), "assign_task")
	otherID := fmt.Sprint(other["id"])
	mustDone(t, lead.call("reassign_task_v1", map[string]any{"task": otherID, "assignee": "work/core/lead",
		"reason": "I review it myself"}), "reassign_task_v1")
	dep.send(map[string]any{"op": "call", "tool": "create_run", "args": map[string]any{"task": otherID, "title": "help review",
		"correlation_id": "story-help"}})
	confID := waitAbout(t, lead, "confirmation", "", "requested")
	routed := mustDone(t, lead.call("list_confirmations_v1", nil), "list_confirmations_v1")
	if list := items(routed); len(list) != 1 || fmt.Sprint(list[0]["id"]) != confID ||
		fmt.Sprint(list[0]["operation"].(map[string]any)["tool"]) != "create_run" {
		t.Fatalf("the lead's routed confirmations: %v", routed)
	}
	mustDone(t, lead.call("decide_confirmation_v1", map[string]any{"confirmation": confID, "decision": "approve",
		"reason": "yes, help me review"}), "decide_confirmation_v1")
	helped := dep.result()
	if helped.IsError || helped.Structured["task"] != otherID {
		t.Fatalf("the deputy's call after its lead approved: %+v", helped)
	}

	// The deputy is retired mid-task; the seat's next generation inherits
	// the task and finishes it, and the lead is told.
	var ret struct{ Confirmation struct{ ID string } }
	c.cliJSON(&ret, "persona", "retire", "work/core/deputy", "--reason", "story: replaced mid-task")
	c.cli("confirm", "approve", ret.Confirmation.ID)
	dep.close()
	register("work/core/deputy", "Heze")
	next := connect("work/core/deputy")
	mine := mustDone(t, next.call("list_tasks", map[string]any{"state": "in-progress"}), "list_tasks")
	if list := items(mine); len(list) != 1 || fmt.Sprint(list[0]["id"]) != taskID {
		t.Fatalf("the seat's next generation lists %v, want the task it inherits", mine)
	}
	done := mustDone(t, next.call("report_task", map[string]any{"task": taskID, "progress": "finished after the handover",
		"state": "done"}), "report_task")
	if assignee := done["assignee"].(map[string]any); assignee["name"] != "Heze" {
		t.Fatalf("the finished task's assignee: %v", assignee)
	}
	waitAbout(t, lead, "task", taskID, "reported")

	// The secretary routes the result to the human, whose reaction and
	// card answer come back to it as messages.
	item := mustDone(t, sec.call("send_human_message", map[string]any{"text": "core: the parser is ported."}), "send_human_message")
	itemID := fmt.Sprint(item["id"])
	c.cli("inbox", "react", itemID, "approve")
	waitAbout(t, sec, "item", itemID, "reaction")
	card := mustDone(t, sec.call("send_human_card", map[string]any{"title": "Ship the parser?", "actions": []string{"ship", "hold"}}), "send_human_card")
	cardID := fmt.Sprint(card["id"])
	c.cli("inbox", "answer", cardID, "ship")
	waitAbout(t, sec, "item", cardID, "answer")
}

// splitAddress is the persona add flags of an address.
func splitAddress(addr string) ([]string, error) {
	parts := strings.Split(addr, "/")
	switch len(parts) {
	case 2:
		return []string{"--scope", parts[0], "--role", parts[1]}, nil
	case 3:
		return []string{"--scope", parts[0], "--project", parts[1], "--role", parts[2]}, nil
	}
	return nil, fmt.Errorf("address %q: want two or three segments", addr)
}

// mustDone is a hub tool's answer: not an error, its structured content.
func mustDone(t *testing.T, r toolResult, what string) map[string]any {
	t.Helper()
	if r.IsError {
		t.Fatalf("%s: %+v", what, r)
	}
	return r.Structured
}

// items is a page's items.
func items(page map[string]any) []map[string]any {
	var out []map[string]any
	list, _ := page["items"].([]any)
	for _, x := range list {
		m, _ := x.(map[string]any)
		out = append(out, m)
	}
	return out
}

// waitAbout reads cl's inbox until a message about the record (kind, id —
// any id when empty — and event) is there, acks it, and returns the
// record's id. A message arrives in its record's transaction, so after
// the call that wrote the record has answered one read finds it; only a
// record another client is writing concurrently (a confirmation queued by
// a call still in flight) takes more reads, until stepTimeout.
func waitAbout(t *testing.T, cl *mcpClient, kind, id, event string) string {
	t.Helper()
	deadline := time.Now().Add(stepTimeout)
	for {
		inbox := mustDone(t, cl.call("list_coordination_messages", nil), "list_coordination_messages")
		for _, m := range items(inbox) {
			about, _ := m["about"].(map[string]any)
			if about == nil || about["kind"] != kind || about["event"] != event || id != "" && about["id"] != id {
				continue
			}
			mustDone(t, cl.call("ack_coordination_message", map[string]any{"message": m["id"]}), "ack_coordination_message")
			return fmt.Sprint(about["id"])
		}
		if time.Now().After(deadline) {
			b, _ := json.Marshal(inbox)
			t.Fatalf("no message about %s %s %s in %s", kind, id, event, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
