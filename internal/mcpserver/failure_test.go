package mcpserver

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// Every code a failed call can carry is one code: the hub's and the
// runtime's never share one.
func TestFailureCodesAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range runtimeCodes {
		if seen[m.code] || hubapi.NamesError(m.code) {
			t.Errorf("runtime code %q is already a code (the hub's or another runtime row's)", m.code)
		}
		seen[m.code] = true
	}
}

// failureOfResult decodes a failed call's answer as exactly a Failure.
func failureOfResult(t *testing.T, what string, res *mcp.CallToolResult) Failure {
	t.Helper()
	b, _ := json.Marshal(res.StructuredContent)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f Failure
	if err := dec.Decode(&f); err != nil || !res.IsError {
		t.Fatalf("%s: isError %v, structured %s (%v); want a Failure", what, res.IsError, b, err)
	}
	var fromText Failure
	if err := json.Unmarshal([]byte(text(res)), &fromText); err != nil || fromText != f {
		t.Errorf("%s: the text %q is not the failure's JSON %s", what, text(res), b)
	}
	return f
}

// "one structured error shape for every failure, boundary denials
// included (code, message, boundary where there is one, retryable)":
// each kind of failure — the arguments, a boundary, the hub's use case,
// the workspace, the runtime — answers a Failure with its own code, never
// `internal`.
func TestEveryFailureIsOneShape(t *testing.T) {
	f := newFixture(t)
	p := f.persona(t, "work/core/lead", "Spica")
	r := f.runtime(t, p, Options{})
	if err := os.WriteFile(filepath.Join(r.Workspace().Dir(), "FINDINGS.md"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, r, nil)
	for _, c := range []struct {
		tool     string
		args     map[string]any
		code     string
		boundary string
	}{
		{"workspace_read", map[string]any{"nope": 1}, "invalid_arguments", ""},
		{"workspace_read", map[string]any{"path": ".env"}, "denied", "secret-credential-values"},
		{"workspace_read", map[string]any{"path": "../x"}, "denied", "cross-workspace-project-persona"},
		{"workspace_read", map[string]any{"path": "nope.md"}, "no_workspace_file", ""},
		{"workspace_read", map[string]any{"path": "x", "workspace": "repository"}, "no_repository_bound", ""},
		{"workspace_list", map[string]any{"path": "FINDINGS.md"}, "not_directory", ""},
		{"workspace_write", map[string]any{"path": "FINDINGS.md", "content": "y"}, "file_exists", ""},
		{"get_task", map[string]any{"task": "t-nope"}, "no_task", ""},
		{"raise_decision", map[string]any{"question": "q", "options": []string{"a", "a"}}, "duplicate_options", ""},
	} {
		res := callTool(t, cs, c.tool, c.args)
		got := failureOfResult(t, c.tool, res)
		if got.Code != c.code || got.Boundary != c.boundary || got.Message == "" || got.Retryable {
			t.Errorf("%s %v: %+v; want code %q, boundary %q, a message, not retryable", c.tool, c.args, got, c.code, c.boundary)
		}
	}
}
