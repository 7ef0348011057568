package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/tools"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/runs"
	"github.com/virgo-hub/virgo-tui/internal/tasks"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
	"github.com/virgo-hub/virgo-tui/internal/workspace"
)

// A path a persona names that the hub refuses is answered so the persona
// can read why: an escape or look-alike (climbing, absolute, backslash,
// percent-encoded, non-ASCII) is decided — denied at the cross-scope
// boundary, the reason naming the character — and a file that is not
// there or not a file is a 4xx naming it. Non-ASCII artifact paths (17
// inputs) and refused send_human_file paths were answered with a target of
// kind "invalid" no client could read, or 500 "internal", which tells an
// operator to look for a fault in the hub.
func TestRefusedPathsAnswerNamedCodes(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx := context.Background()
	lead := th.addPersona(t, "work/core/lead", "Spica")
	deputy := th.addPersona(t, "work/core/deputy", "Zaniah")
	leadRT, depRT := th.runtime(t, lead), th.runtime(t, deputy)
	task := callDone[tasks.Task](t, leadRT, "", "assign_task", `{"assignee":"work/core/deputy","title":"port","brief":"b"}`, "a-1")
	run := callDone[runs.Run](t, depRT, "", "create_run", `{"task":"`+task.ID+`","title":"first pass"}`, "run-1")

	denied := func(what string, call tools.ToolCall, err error, reason string) {
		t.Helper()
		switch {
		case err != nil:
			t.Errorf("%s: %v, want it denied", what, err)
		case call.Status != tools.ToolDenied || call.Decision.Boundary != confirm.BoundaryCrossScope ||
			!strings.Contains(call.Decision.Reason, reason) || len(call.Result) != 0:
			t.Errorf("%s: %+v, want denied at %s saying %q", what, call, confirm.BoundaryCrossScope, reason)
		}
	}
	for i, p := range []string{"résumé.txt", "out/parsér.bin", "ﬁle.txt", "а.txt", "／etc/passwd", "a\u00a0b", "ünï.md",
		"日本.md", "😀.png", "e\u0301.txt", "\u2215etc", "\uff0e\uff0e/x", "one\u2024two", "naïve.txt", "Ελλάδα.md",
		"Ω.txt", "straße.md"} {
		args, _ := json.Marshal(map[string]any{"run": run.ID, "name": fmt.Sprintf("a%d", i), "path": p})
		call, err := depRT.CallTool(ctx, "", "record_artifact", args, "")
		denied("record_artifact path "+p, call, err, "non-ASCII")
	}
	// Invisible and bidi characters are refused before any decision, as
	// in every text argument.
	for _, p := range []string{"zero\u200bwidth", "soft\u00adhyphen", "rtl\u202etxt.exe"} {
		args, _ := json.Marshal(map[string]any{"run": run.ID, "name": "x", "path": p})
		_, err := depRT.CallTool(ctx, "", "record_artifact", args, "")
		wantCode(t, err, "invalid_arguments")
	}
	if arts := callDone[usecase.RunView](t, depRT, "", "get_run", `{"run":"`+run.ID+`"}`, "").ArtifactSet; len(arts) != 0 {
		t.Fatalf("refused artifacts were recorded: %+v", arts)
	}

	sec := th.addPersona(t, "root/secretary", "Porrima")
	me := th.runtime(t, sec)
	dir := workspace.HomeDir(th.home.Dir, sec.Address)
	mustNil(t, os.MkdirAll(filepath.Join(dir, "memory"), 0o700))
	for _, c := range []struct{ path, reason string }{
		{"../outside.md", "'..'"},
		{"/etc/passwd", "absolute"},
		{"notes\\a.md", "backslash"},
		{"%2e%2e/x", "percent-encoded"},
		{"résumé.md", "non-ASCII"},
	} {
		args, _ := json.Marshal(map[string]string{"path": c.path})
		call, err := me.CallTool(ctx, "", "send_human_file", args, "")
		denied("send_human_file "+c.path, call, err, c.reason)
	}
	for _, c := range []struct{ path, code string }{
		{"missing.md", "no_workspace_file"},
		{"memory", "not_regular_file"},
		{"", "no_workspace"}, // the workspace directory removed below
	} {
		if c.path == "" {
			mustNil(t, os.RemoveAll(dir))
			c.path = "notes.md"
		}
		args, _ := json.Marshal(map[string]string{"path": c.path})
		_, err := me.CallTool(ctx, "", "send_human_file", args, "")
		var ae *hubapi.APIError
		switch {
		case !errors.As(err, &ae):
			t.Errorf("send_human_file %s: %v, want a refusal %q", c.path, err, c.code)
		case ae.Status < 400 || ae.Status >= 500 || ae.Code != c.code:
			t.Errorf("send_human_file %s: %d %q (%s), want 4xx %q", c.path, ae.Status, ae.Code, ae.Msg, c.code)
		}
	}
}
