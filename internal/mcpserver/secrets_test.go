package mcpserver

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/tools"
)

// secretValue is what every planted secret holds: it must never appear in
// an answer.
const secretValue = "SECRET=xyz"

// secretFiles are the reproduction's files, with the boundary each is
// refused at: a secretary sent .env, memory/api-token, memory/lease,
// memory/run.fence and a link to .env to its human.
var secretFiles = []struct {
	path     string
	boundary confirm.BoundaryID
}{
	{".env", confirm.BoundarySecretValues},
	{"memory/api-token", confirm.BoundarySecretValues},
	{"memory/lease", confirm.BoundaryAuthorityMaterial},
	{"memory/run.fence", confirm.BoundaryAuthorityMaterial},
	{"notes/env.md", confirm.BoundarySecretValues}, // a link to ../.env
}

// plantSecrets writes the reproduction's files, and a plain notes.md, into
// the workspace at dir.
func plantSecrets(t testing.TB, dir string) {
	t.Helper()
	for _, d := range []string{"memory", "notes"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range secretFiles[:4] {
		if err := os.WriteFile(filepath.Join(dir, f.path), []byte(secretValue+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../.env", filepath.Join(dir, "notes", "env.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("# notes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Item 3's reproduction through the MCP server (the SDK client, a real hub
// on its socket): each of the five files sent with send_human_file is
// refused at its boundary, the refusal never shows the secret and the
// human's channel stays empty; a plain file still sends.
func TestSendHumanFileRefusesSecretAndAuthorityMaterial(t *testing.T) {
	f := newFixture(t)
	sec := f.persona(t, "root/secretary", "Porrima")
	r := f.runtime(t, sec, Options{})
	plantSecrets(t, r.Workspace().Dir())
	cs := connect(t, r, nil)
	ctx := context.Background()
	for _, sf := range secretFiles {
		res := callTool(t, cs, "send_human_file", map[string]any{"path": sf.path})
		a := structured[Failure](t, res)
		if !res.IsError || a.Code != "denied" || a.Boundary != sf.boundary.String() {
			t.Errorf("send_human_file %s: %+v %s; want denied at %s", sf.path, a, text(res), sf.boundary)
		}
		if strings.Contains(text(res), secretValue) {
			t.Errorf("the refusal of %s shows the secret: %s", sf.path, text(res))
		}
	}
	if page, err := f.op.Inbox(ctx, "", 0); err != nil || len(page.Items) != 0 {
		t.Fatalf("henry's channel after the refused sends: %+v, %v; want empty", page.Items, err)
	}
	res := callTool(t, cs, "send_human_file", map[string]any{"path": "notes.md"})
	if res.IsError {
		t.Fatalf("a plain file: %s", text(res))
	}
	page, err := f.op.Inbox(ctx, "", 0)
	if err != nil || len(page.Items) != 1 || page.Items[0].File == nil || page.Items[0].File.Path != "notes.md" {
		t.Fatalf("henry's channel after the plain send: %+v, %v", page.Items, err)
	}
}

// leaves reports whether a call of tool lets workspace bytes leave: it
// reads its path target, or it names a file it takes out (an export).
func leaves(tool tools.Tool) bool {
	reads := tool.Target.Kind == confirm.TargetPath && tool.ShapeArg == "" &&
		(tool.Shape == stamp.ShapeReadMeta || tool.Shape == stamp.ShapeReadRange)
	return reads || len(tool.Exports()) > 0
}

// fileArgument is the argument of tool naming the file that leaves.
func fileArgument(tool tools.Tool) string {
	if ex := tool.Exports(); len(ex) > 0 {
		return ex[0]
	}
	return tool.Target.Field
}

// Every exit of a workspace's bytes consults the one material table: for
// every tool of the tool table that reads a workspace file or takes one
// out, each of the reproduction's files is refused at its boundary, over
// the MCP server with a real hub, and a plain file passes. A new tool
// naming a file is listed by tools.Tool.Exports from its parameters, so it
// is in this test as soon as it is in the table; one whose other
// arguments this test cannot yet supply fails until they are added below.
func TestEveryWorkspaceExitConsultsTheMaterialTable(t *testing.T) {
	f := newFixture(t)
	// One persona of each class, each with the reproduction's files; the
	// lead assigns its deputy a task and starts a run of it, for
	// record_artifact.
	type persona struct {
		addr    string
		profile registry.Profile
		r       *Runtime
	}
	var personas []persona
	ids := map[string]string{}
	for _, c := range classes {
		p := f.persona(t, c.addr, c.name)
		r := f.runtime(t, p, Options{})
		plantSecrets(t, r.Workspace().Dir())
		personas = append(personas, persona{c.addr, p.Profile, r})
		ids[c.addr] = p.ID
	}
	lead := connect(t, personas[2].r, nil)
	if res := callTool(t, lead, "assign_task", map[string]any{"assignee": "work/core/deputy", "title": "build",
		"brief": "build it", "correlation_id": "exit-task"}); res.IsError {
		t.Fatalf("assign_task: %s", text(res))
	}
	task := tools.NewRecordID(confirm.TargetTask, ids["work/core/lead"], "exit-task")
	if res := callTool(t, lead, "create_run", map[string]any{"task": task, "correlation_id": "exit-run"}); res.IsError {
		t.Fatalf("create_run: %s", text(res))
	}
	run := tools.NewRecordID(confirm.TargetRun, ids["work/core/lead"], "exit-run")
	// What an exit tool needs besides its file (under the call's
	// correlation id), and a plain file it takes (a listing lists a
	// directory).
	others := map[string]func(corr string) map[string]any{
		"record_artifact": func(corr string) map[string]any {
			return map[string]any{"run": run, "name": "output " + corr}
		},
	}
	plain := map[string]string{"workspace_list": "notes"}

	var exits []string
	for _, tool := range tools.All() {
		if !leaves(tool) {
			continue
		}
		exits = append(exits, tool.Name)
		t.Run(tool.Name, func(t *testing.T) {
			i := slices.IndexFunc(personas, func(p persona) bool {
				return slices.ContainsFunc(stamp.ToolsFor(p.profile), func(x stamp.Tool) bool { return x.Name == tool.Name })
			})
			if i < 0 {
				t.Fatalf("no class's stamp carries %s", tool.Name)
			}
			who := personas[i]
			cs := connect(t, who.r, nil)
			arg := fileArgument(tool)
			args := func(path, corr string) map[string]any {
				a := map[string]any{arg: path, "correlation_id": corr}
				if more := others[tool.Name]; more != nil {
					maps.Copy(a, more(corr))
				}
				return a
			}
			for n, sf := range secretFiles {
				res := callTool(t, cs, tool.Name, args(sf.path, fmt.Sprintf("secret-%d", n)))
				a := structured[Failure](t, res)
				if !res.IsError || a.Code != "denied" || a.Boundary != sf.boundary.String() {
					t.Errorf("%s %s=%s as %s: %+v %s; want denied at %s", tool.Name, arg, sf.path, who.addr, a, text(res), sf.boundary)
				}
				if strings.Contains(text(res), secretValue) {
					t.Errorf("%s %s: the answer shows the secret", tool.Name, sf.path)
				}
			}
			ok := cmp.Or(plain[tool.Name], "notes.md")
			if res := callTool(t, cs, tool.Name, args(ok, "plain")); res.IsError {
				t.Errorf("%s of %s as %s: %s", tool.Name, ok, who.addr, text(res))
			}
		})
	}
	want := []string{"workspace_list", "workspace_stat", "workspace_hash", "workspace_read", "record_artifact", "send_human_file"}
	if !sameSet(exits, want) {
		t.Errorf("the tool table's exits are %v, this test was written for %v: check the new one is decided as an exit", exits, want)
	}
}
