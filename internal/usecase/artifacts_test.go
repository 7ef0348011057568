package usecase

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/runs"
	"github.com/virgo-hub/virgo-tui/internal/tools"
	"github.com/virgo-hub/virgo-tui/internal/workspace"
)

// writeWorkspace writes a file into the workspace of the seat at address,
// as the hub keeps it.
func writeWorkspace(t *testing.T, in *installation, address, rel, content string) {
	t.Helper()
	p := filepath.Join(workspace.HomeDir(in.home.Dir, address), rel)
	mustNil(t, os.MkdirAll(filepath.Dir(p), 0o700))
	mustNil(t, os.WriteFile(p, []byte(content), 0o600))
}

// "the deputy reports progress and evidence to the lead"
// (virgo-persona-paths.txt): an artifact is recorded from a file the hub
// hashes itself — the caller names the file, never its size or digest, and
// a file that is not there is refused — and the lead reads its bytes,
// ranged, from the deputy's workspace under the same secret table.
func TestEvidenceTheLeadCanRead(t *testing.T) {
	in := newInstallation(t)
	_, lead := active(t, in, "work/core/lead", "Spica")
	_, dep := active(t, in, "work/core/deputy", "Zaniah")
	done := func(call tools.ToolCall, err error) tools.ToolCall {
		t.Helper()
		mustNil(t, err)
		if call.Status != tools.ToolDone {
			t.Fatalf("%s: %s (%+v)", call.Tool, call.Status, call.Decision)
		}
		return call
	}
	task := taskOf(t, done(callTool(t, in, lead, "assign_task", `{"assignee":"work/core/deputy","title":"find","brief":"b"}`, "a-1")))
	run := runOf(t, done(callTool(t, in, dep, "create_run", `{"task":"`+task.ID+`"}`, "r-1")))
	findings := "# Findings\n\nThe parser is total.\n"
	writeWorkspace(t, in, "work/core/deputy", "FINDINGS.md", findings)

	if _, err := callTool(t, in, dep, "record_artifact", `{"run":"`+run+`","name":"findings","path":"NOPE.md"}`, ""); !errors.Is(err, workspace.ErrNotFound) {
		t.Fatalf("an artifact of a file that is not there: %v, want %v", err, workspace.ErrNotFound)
	}
	forged := `{"run":"` + run + `","name":"findings","path":"FINDINGS.md","size":3,"sha256":"` + hex.EncodeToString(make([]byte, 32)) + `"}`
	if _, err := callTool(t, in, dep, "record_artifact", forged, ""); !errors.Is(err, tools.ErrInvalidArguments) {
		t.Fatalf("an artifact with the caller's size and digest: %v, want %v", err, tools.ErrInvalidArguments)
	}
	var a runs.Artifact
	mustNil(t, json.Unmarshal(done(callTool(t, in, dep, "record_artifact", `{"run":"`+run+`","name":"findings","path":"FINDINGS.md"}`, "art-1")).Result, &a))
	sum := sha256.Sum256([]byte(findings))
	if a.Size != int64(len(findings)) || a.SHA256 != "sha256:"+hex.EncodeToString(sum[:]) || a.Workspace != "work/core/deputy" {
		t.Fatalf("recorded %+v", a)
	}
	writeWorkspace(t, in, "work/core/deputy", "memory/.env", "TOKEN=1")
	denied, err := callTool(t, in, dep, "record_artifact", `{"run":"`+run+`","name":"env","path":"memory/.env"}`, "")
	mustNil(t, err)
	if denied.Status != tools.ToolDenied || denied.Decision.Boundary != confirm.BoundarySecretValues {
		t.Fatalf("secret material as an artifact: %+v", denied)
	}

	var page ArtifactPage
	mustNil(t, json.Unmarshal(done(callTool(t, in, lead, "read_artifact_v1", `{"run":"`+run+`","name":"findings"}`, "")).Result, &page))
	if page.Text != findings || !page.EOF || page.Artifact.SHA256 != a.SHA256 {
		t.Fatalf("the lead read %+v", page)
	}
	mustNil(t, json.Unmarshal(done(callTool(t, in, lead, "read_artifact_v1", `{"run":"`+run+`","name":"findings","offset":2,"length":8}`, "")).Result, &page))
	if page.Text != findings[2:10] || page.EOF || page.NextOffset != 10 {
		t.Fatalf("a ranged read %+v", page)
	}
	if _, err := callTool(t, in, lead, "read_artifact_v1", `{"run":"`+run+`","name":"other"}`, ""); !errors.Is(err, runs.ErrNoArtifact) {
		t.Fatalf("an artifact the run does not record: %v", err)
	}
	writeWorkspace(t, in, "work/core/deputy", "FINDINGS.md", "# Findings\n\nThe parser is partial.\n")
	if _, err := callTool(t, in, lead, "read_artifact_v1", `{"run":"`+run+`","name":"findings"}`, ""); !errors.Is(err, ErrArtifactChanged) {
		t.Fatalf("an artifact whose file changed: %v, want %v", err, ErrArtifactChanged)
	}
	_, web := active(t, in, "work/web/lead", "Vindemiatrix")
	other, err := callTool(t, in, web, "read_artifact_v1", `{"run":"`+run+`","name":"findings"}`, "")
	mustNil(t, err)
	if other.Status != tools.ToolDenied {
		t.Fatalf("another project's lead reading the artifact: %+v", other)
	}
}
