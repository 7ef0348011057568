package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
	"github.com/virgo-hub/virgo-tui/internal/tools"
	"github.com/virgo-hub/virgo-tui/internal/workspace"
)

// The team story, simulated: the runtimes work through the persona tool
// calls an agent makes over MCP (the hub's POST /v1/tools/{tool}, decided
// under each stamp), so a newcomer sees tasks, runs, decisions, messages and
// inbox items move, not only presence. A lead assigns its deputy a task; the
// deputy, told by a message, runs it, records its findings and reports;
// the lead, told in turn, resolves what its deputy raised and decides its
// deputy's confirmations; a secretary writes its human.

// WorkEvery is how many ticks a lead lets pass between two tasks it
// assigns, and a secretary between two notes to its human (its first on
// its first tick).
const WorkEvery = 15

// call is one tool call of the runtime's persona; its answer's result is
// decoded into out when out is not nil.
func (r *runtime) call(ctx context.Context, tool string, args map[string]any, corr string, out any) (hubapi.ToolCall, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return hubapi.ToolCall{}, err
	}
	tc, err := r.c.CallTool(ctx, "", tool, raw, corr)
	if err != nil {
		return tc, fmt.Errorf("%s: %w", tool, err)
	}
	if out != nil && tc.Status == tools.ToolDone {
		if err := strictjson.DecodeOpen(tc.Result, out); err != nil {
			return tc, fmt.Errorf("%s: %w", tool, err)
		}
	}
	return tc, nil
}

// work is the runtime's turn of work, by role.
func (r *runtime) work(ctx context.Context) error {
	switch r.p.Role {
	case "lead":
		return r.lead(ctx)
	case "deputy":
		return r.deputy(ctx)
	case "secretary":
		if r.n%WorkEvery == 1 {
			_, err := r.call(ctx, "send_human_message", map[string]any{"text": fmt.Sprintf("Daily brief %d: the projects report progress.", r.n)}, "", nil)
			return err
		}
	}
	return nil
}

// inbox reads the messages waiting for the seat and acks each one after
// handle has dealt with it.
func (r *runtime) inbox(ctx context.Context, handle func(coord.Message) error) error {
	var page coord.Page
	if _, err := r.call(ctx, "list_coordination_messages", nil, "", &page); err != nil {
		return err
	}
	for _, m := range page.Items {
		if err := handle(m); err != nil {
			return err
		}
		if _, err := r.call(ctx, "ack_coordination_message", map[string]any{"message": m.ID}, "", nil); err != nil {
			return err
		}
	}
	return nil
}

// lead assigns its deputy a task now and then, resolves the decisions its
// deputy raised (told by message), and decides the confirmations routed
// to it, approving most.
func (r *runtime) lead(ctx context.Context) error {
	if r.n%WorkEvery == 0 {
		deputy := registry.Address{Scope: r.p.Scope, Project: r.p.Project, Role: "deputy"}.String()
		tc, err := r.call(ctx, "assign_task", map[string]any{"assignee": deputy, "title": fmt.Sprintf("iteration %d", r.n),
			"brief": "run the suite, write what you find to FINDINGS.md, report with the run as evidence"},
			fmt.Sprintf("demo-task-%s-%d", r.p.ID[:8], r.n), nil)
		switch {
		case err != nil && !errors.Is(err, registry.ErrNoActiveHolder):
			return err
		case err == nil && tc.Status == tools.ToolDone:
			r.st.Assigned.Add(1)
		}
	}
	err := r.inbox(ctx, func(m coord.Message) error {
		if m.About == nil || m.About.Kind != "decision" || m.About.Event != "raised" {
			return nil
		}
		tc, err := r.call(ctx, "resolve_decision", map[string]any{"decision": m.About.ID, "choice": "extend", "reason": "finish the feature first"},
			"demo-resolve-"+m.About.ID, nil)
		if err == nil && tc.Status == tools.ToolDone {
			r.st.Resolved.Add(1)
		}
		return err
	})
	if err != nil {
		return err
	}
	return r.decideForDeputies(ctx)
}

// deputy runs each task it is told of: a run, its findings written and
// recorded as an artifact (the hub measures the file), the run finished,
// the task reported done with the run as evidence, and a decision raised
// for its lead.
func (r *runtime) deputy(ctx context.Context) error {
	return r.inbox(ctx, func(m coord.Message) error {
		if m.About == nil || m.About.Kind != "task" || m.About.Event != "assigned" {
			return nil
		}
		task := m.About.ID
		var run struct {
			ID string `json:"id"`
		}
		if _, err := r.call(ctx, "create_run", map[string]any{"task": task, "title": "test suite"}, "demo-run-"+task, &run); err != nil || run.ID == "" {
			return err
		}
		if _, err := r.call(ctx, "advance_run", map[string]any{"run": run.ID, "state": "running"}, "demo-running-"+task, nil); err != nil {
			return err
		}
		// The runtime writes its own workspace (workspace_write is carried
		// out by the MCP server, on the persona's files).
		dir := workspace.HomeDir(r.home, r.p.Address)
		findings := fmt.Sprintf("# Findings of %s\n\nAll %d tests pass.\n", task, 100+r.rng.IntN(400))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "FINDINGS.md"), []byte(findings), 0o600); err != nil {
			return err
		}
		if _, err := r.call(ctx, "record_artifact", map[string]any{"run": run.ID, "name": "findings", "path": "FINDINGS.md"}, "demo-artifact-"+task, nil); err != nil {
			return err
		}
		if _, err := r.call(ctx, "advance_run", map[string]any{"run": run.ID, "state": "succeeded"}, "demo-succeeded-"+task, nil); err != nil {
			return err
		}
		if _, err := r.call(ctx, "report_task", map[string]any{"task": task, "progress": "suite green; findings recorded",
			"evidence": []string{run.ID}, "state": "done"}, "demo-report-"+task, nil); err != nil {
			return err
		}
		r.st.Reported.Add(1)
		_, err := r.call(ctx, "raise_decision", map[string]any{"question": "Next iteration: extend the feature or refactor?",
			"options": []string{"extend", "refactor"}}, "demo-decision-"+task, nil)
		return err
	})
}

// decideForDeputies decides, as an agent, the deputy-scope confirmations
// routed to this lead: most approved, the rest denied with a reason.
func (r *runtime) decideForDeputies(ctx context.Context) error {
	// list_confirmations_v1's answer, as much as is read
	var routed struct {
		Items []struct {
			ID string `json:"id"`
		} `json:"items"`
	}
	if _, err := r.call(ctx, stamp.ListConfirmationsTool, nil, "", &routed); err != nil {
		return err
	}
	for _, c := range routed.Items {
		decision, reason := "approve", "go ahead"
		if r.rng.IntN(3) == 0 {
			decision, reason = "deny", "stay on your assigned task"
		}
		if _, err := r.call(ctx, stamp.DecideConfirmationTool, map[string]any{"confirmation": c.ID, "decision": decision, "reason": reason}, "", nil); err != nil {
			if lost(err) {
				continue
			}
			return err
		}
		r.st.Decided.Add(1)
	}
	return nil
}
