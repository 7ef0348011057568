package confirm

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm/confirmtest"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// Spec: "The default is positive: ordinary, recoverable work inside the
// persona's own declared scope is allowed." and "Workspace writes are
// recoverable and confined by the materialization stamp. For a normal
// persona this includes QUEUE.md, DECISIONS.md, FINDINGS.md, and memory/**;
// class overlays may add project worktrees."
func TestDefaultAllowRecoverableWorkspaceWork(t *testing.T) {
	p := policyFor(t, "work/core/lead", Options{}, "worktree/**")
	allowed := []Operation{
		op(t, p, "workspace_write", "path:QUEUE.md", stamp.ShapeWriteOverwrite),
		op(t, p, "workspace_write", "path:DECISIONS.md", stamp.ShapeWriteCreate),
		op(t, p, "workspace_write", "path:FINDINGS.md", stamp.ShapeWriteOverwrite),
		op(t, p, "workspace_write", "path:memory/2026/08/notes.md", stamp.ShapeWriteCreate),
		op(t, p, "workspace_write", "path:./memory//today.md", stamp.ShapeWriteOverwrite),
		op(t, p, "workspace_write", "path:worktree/cmd/main.go", stamp.ShapeWriteOverwrite),    // class overlay
		op(t, p, "workspace_write", "path@repository:cmd/main.go", stamp.ShapeWriteOverwrite),  // bound repository
		op(t, p, "workspace_write", "path@work/core/lead:QUEUE.md", stamp.ShapeWriteOverwrite), // own root, named
		op(t, p, "workspace_read", "path:README.md", stamp.ShapeReadRange),
		op(t, p, "workspace_stat", "path:memory", stamp.ShapeReadMeta),
		op(t, p, "workspace_list", "path:memory", stamp.ShapeReadMeta),
		op(t, p, "send_broker_message", "address:work/core/deputy", stamp.ShapeMessageSend),
		op(t, p, "list_peers", "address:root/secretary", stamp.ShapeReadMeta),
		op(t, p, "set_summary", "address:work/core/lead", stamp.ShapeRecordWrite),
		op(t, p, "query_graph_context", "address:work/core/lead", stamp.ShapeReadMeta),
		op(t, p, "raise_decision", "decision:work/core/d-1", stamp.ShapeRecordWrite),
		op(t, p, "resolve_decision", "decision:work/core/d-1", stamp.ShapeRecordWrite),
		op(t, p, "assign_task", "task:work/core/t-1", stamp.ShapeRecordWrite),
		op(t, p, "create_run", "run:work/core/t-1/r-1", stamp.ShapeRecordWrite),
		op(t, p, "get_human_surface_status", "surface:virgo-channel/human:henry", stamp.ShapeReadMeta),
	}
	for _, o := range allowed {
		if d := p.Authorize(o); d.Verdict != Allow || d.Boundary != BoundaryNone {
			t.Errorf("%s: %s, want allow", o, d)
		}
	}
	// Outside the declared mutable paths the stamp grants nothing.
	for _, target := range []string{"path:README.md", "path:memory", "path:src/main.go"} {
		d := p.Authorize(op(t, p, "workspace_write", target, stamp.ShapeWriteCreate))
		if d.Verdict != Deny || d.Boundary != BoundaryStampedScope {
			t.Errorf("write %s: %s, want deny outside-stamped-scope", target, d)
		}
	}
}

// Spec: "Reads support byte offset and length and return continuation
// metadata, so a large operational file never becomes unreadable."
func TestRangedReadsWithContinuation(t *testing.T) {
	p := policyFor(t, "work/core/deputy", Options{})
	if d := p.Authorize(op(t, p, "workspace_read", "path:QUEUE.md", stamp.ShapeReadRange)); d.Verdict != Allow {
		t.Fatalf("ranged read: %s", d)
	}
	size := int64(2*MaxReadLength + 12345)
	var off, total int64
	pages := 0
	for {
		r, err := ReadRange(size, off, 0)
		if err != nil {
			t.Fatal(err)
		}
		if r.Offset != off || r.NextOffset != off+r.Length {
			t.Fatalf("page %d: %+v", pages, r)
		}
		total += r.Length
		pages++
		if r.EOF {
			break
		}
		off = r.NextOffset
	}
	if total != size || pages != 3 {
		t.Fatalf("read %d bytes in %d pages, want %d in 3", total, pages, size)
	}
	cases := []struct {
		size, off, n int64
		want         Range
	}{
		{100, 0, 10, Range{0, 10, 10, false}},
		{100, 90, 50, Range{90, 10, 100, true}},
		{100, 100, 10, Range{100, 0, 100, true}},
		{0, 0, 0, Range{0, 0, 0, true}},
	}
	for _, c := range cases {
		got, err := ReadRange(c.size, c.off, c.n)
		if err != nil || got != c.want {
			t.Errorf("ReadRange(%d,%d,%d) = %+v, %v; want %+v", c.size, c.off, c.n, got, err, c.want)
		}
	}
	for _, bad := range [][3]int64{{100, -1, 1}, {100, 101, 1}, {100, 0, -5}} {
		if _, err := ReadRange(bad[0], bad[1], bad[2]); !errors.Is(err, ErrBadRange) {
			t.Errorf("ReadRange%v: %v, want ErrBadRange", bad, err)
		}
	}
}

// Strict scope binding: every escape attempt is refused with a named error
// (normalization) or a named boundary (Authorize), never passed through.
func TestStrictScopeBinding(t *testing.T) {
	refusedByNormalization := []struct {
		target string
		want   error
	}{
		{"path:../etc/passwd", ErrDotDot},
		{"path:memory/../../secrets", ErrDotDot},
		{"path:memory/../QUEUE.md", ErrDotDot},
		{"path:...", ErrDotDot},
		{"path:/etc/passwd", ErrAbsolutePath},
		{"path://server/share", ErrAbsolutePath},
		{"path:~/.ssh/id_ed25519", ErrAbsolutePath},
		{"path:C:/Windows/system.ini", ErrAbsolutePath},
		// Judged on the normalized path: "./~" would come out as "~".
		{"path:./~", ErrAbsolutePath},
		{"path:.//~/.ssh/id_ed25519", ErrAbsolutePath},
		{"path:./c:x", ErrAbsolutePath},
		{"path:memory\\..\\..\\x", ErrBackslash},
		{"path:memory/a\x00.md", ErrControlChar},
		{"path:memory/a\n.md", ErrControlChar},
		{"path:%2e%2e/etc/passwd", ErrPercentEncoded},
		{"path:memory%2f..%2fx", ErrPercentEncoded},
		{"path:memory\uff0f..\uff0fx", ErrNonASCII}, // fullwidth solidus
		{"path:memory\u2215..\u2215x", ErrNonASCII}, // division slash
		{"path:\u2024\u2024/x", ErrNonASCII},        // one dot leader
		{"path:\uff0e\uff0e/x", ErrNonASCII},        // fullwidth full stop
		{"path:QUEUE.md\u200b", ErrNonASCII},        // zero-width space
		{"path:memory/cafe\u0301.md", ErrNonASCII},  // NFD combining accent
		{"path:memory/\xff\xfe", ErrNonASCII},       // invalid UTF-8
		{"path:", ErrEmptyTarget},
		{"path:.", ErrEmptyTarget},
		{"address:Work/Core/Lead", ErrUpperCase},
		{"address:work/core/le\u0430d", ErrNonASCII}, // Cyrillic a
		{"address:work/../lead", ErrTargetSyntax},
		{"run:work/core/t-1/../r-2", ErrTargetSyntax},
		{"task:work/Core/t-1", ErrUpperCase},
		{"external:https://user:pw@example.org/x", ErrTargetSyntax},
		{"external:https://example.org/a/%2e%2e/b", ErrPercentEncoded},
		{"external:http://example.org/", ErrTargetSyntax},
		{"external:https://ex\u0430mple.org/", ErrNonASCII},
	}
	// refused counts the attempts that ran and were refused as wanted, so
	// the floor below fails when attempts stop being refused, not only when
	// the tables shrink.
	refused := 0
	for _, c := range refusedByNormalization {
		_, err := ParseTarget(c.target)
		if !errors.Is(err, c.want) {
			t.Errorf("ParseTarget(%q) = %v, want %v", c.target, err, c.want)
			continue
		}
		if MalformedTarget(err) { // refused as a bad request, not decided
			refused++
			continue
		}
		if d := TargetRefusal(err); d.Verdict != Deny || d.Boundary != BoundaryCrossScope || !strings.Contains(d.String(), d.Boundary.String()) {
			t.Errorf("refusal of %q: %s", c.target, d)
			continue
		}
		refused++
	}

	lead := policyFor(t, "work/core/lead", Options{})
	refusedByAuthorize := []struct {
		tool, target string
		shape        stamp.Shape
		want         BoundaryID
	}{
		{"workspace_read", "path@work/other/lead:QUEUE.md", stamp.ShapeReadRange, BoundaryCrossScope},
		{"workspace_write", "path@ws-other:memory/x.md", stamp.ShapeWriteCreate, BoundaryCrossScope},
		{"get_task", "task:work/other/t-1", stamp.ShapeReadMeta, BoundaryCrossScope},
		{"get_run", "run:home/core/t-1/r-1", stamp.ShapeReadMeta, BoundaryCrossScope},
		{"query_graph_context", "address:work/other/lead", stamp.ShapeReadMeta, BoundaryCrossScope},
		{"set_summary", "address:work/core/deputy", stamp.ShapeRecordWrite, BoundaryCrossScope},
		{"workspace_write", "path:memory", stamp.ShapeWriteCreate, BoundaryStampedScope},
		{"workspace_write", "path:Memory/x.md", stamp.ShapeWriteCreate, BoundaryStampedScope}, // case variant: no match
		{"workspace_write", "path:queue.md", stamp.ShapeWriteCreate, BoundaryStampedScope},
		{"workspace_read", "address:work/core/lead", stamp.ShapeReadRange, BoundaryStampedScope}, // scope reaches paths only
		{"list_peers", "address:work/core/deputy", stamp.ShapeRecordWrite, BoundaryToolShape},    // a read tool never mutates
	}
	for _, c := range refusedByAuthorize {
		d := lead.Authorize(op(t, lead, c.tool, c.target, c.shape))
		if d.Verdict != Deny || d.Boundary != c.want {
			t.Errorf("%s %s %s: %s, want deny %s", c.tool, c.target, c.shape, d, c.want)
			continue
		}
		refused++
	}
	// An operation presented under another persona's or generation's stamp.
	other := op(t, lead, "workspace_read", "path:QUEUE.md", stamp.ShapeReadRange)
	other.Persona = "work/core/deputy"
	later := op(t, lead, "workspace_read", "path:QUEUE.md", stamp.ShapeReadRange)
	later.Generation = 2
	for name, o := range map[string]Operation{"other persona": other, "other generation": later} {
		if d := lead.Authorize(o); d.Verdict != Deny || d.Boundary != BoundaryCrossScope {
			t.Errorf("%s: %s", name, d)
			continue
		}
		refused++
	}
	if refused < 20 {
		t.Fatalf("only %d escape attempts were run and refused, want at least 20", refused)
	}
}

// The deny lists hold whatever the case: every secret and authority path
// pattern, spelled in upper and mixed case, is still refused on read (and a
// write to a secret path is still a credential change), while the mutable
// grant stays exact (path:Memory/x.md above is no match).
func TestDenyListsIgnoreCase(t *testing.T) {
	p := policyFor(t, "work/core/lead", Options{}, "**")
	cases := []struct {
		path string
		want BoundaryID
	}{
		{"memory/.ENV", BoundarySecretValues},
		{".Env", BoundarySecretValues},
		{".env.local", BoundarySecretValues},
		{"app/.ENV.Production", BoundarySecretValues},
		{"tls/server.PEM", BoundarySecretValues},
		{"tls/Server.Key", BoundarySecretValues},
		{"home/.SSH/id_ed25519", BoundarySecretValues},
		{"CREDENTIALS/db", BoundarySecretValues},
		{"x/Secrets/api", BoundarySecretValues},
		{"x.LEASE", BoundaryAuthorityMaterial},
		{"run/seat.Fence", BoundaryAuthorityMaterial},
		{"Capability-Stamp.JSON", BoundaryAuthorityMaterial},
		{"a/.VIRGO-AUTHORITY/key", BoundaryAuthorityMaterial},
	}
	for _, c := range cases {
		d := p.Authorize(op(t, p, "workspace_read", "path:"+c.path, stamp.ShapeReadRange))
		if d.Verdict != Deny || d.Boundary != c.want {
			t.Errorf("read %s: %s, want deny %s", c.path, d, c.want)
		}
		w := p.Authorize(op(t, p, "workspace_write", "path:"+c.path, stamp.ShapeWriteOverwrite))
		want := Decision{Verdict: Deny, Boundary: c.want}
		if c.want == BoundarySecretValues {
			want = Decision{Verdict: Confirm, Boundary: BoundaryCredentialOrPermission}
		}
		if w.Verdict != want.Verdict || w.Boundary != want.Boundary {
			t.Errorf("write %s: %s, want %s %s", c.path, w, want.Verdict, want.Boundary)
		}
	}
	if d := p.Authorize(op(t, p, "workspace_read", "path:memory/environment.md", stamp.ShapeReadRange)); d.Verdict != Allow {
		t.Errorf("an ordinary path is not a secret: %s", d)
	}
}

// Symbolic links are resolved against the workspace on disk; one leaving it
// is refused, one staying inside is followed to where the write lands.
func TestSymlinkEscapeRefused(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "memory"), 0o700))
	must(os.MkdirAll(filepath.Join(root, "notes"), 0o700))
	must(os.Symlink(outside, filepath.Join(root, "memory", "out")))
	must(os.Symlink("../../"+filepath.Base(outside), filepath.Join(root, "memory", "rel")))
	must(os.Symlink(filepath.Join(outside, "missing"), filepath.Join(root, "memory", "dangling")))
	must(os.Symlink(filepath.Join(root, "notes"), filepath.Join(root, "memory", "in")))
	must(os.Symlink("/etc/passwd", filepath.Join(root, "QUEUE.md")))
	for _, p := range []string{"memory/out/x.md", "memory/dangling", "QUEUE.md", "memory/rel/x"} {
		if got, err := NormalizePathOnDisk(root, p); !errors.Is(err, ErrSymlinkEscape) {
			t.Errorf("NormalizePathOnDisk(%q) = %q, %v; want ErrSymlinkEscape", p, got, err)
		}
	}
	got, err := NormalizePathOnDisk(root, "memory/in/today.md")
	if err != nil || got != "notes/today.md" {
		t.Fatalf("inside link: %q, %v; want notes/today.md", got, err)
	}
	got, err = NormalizePathOnDisk(root, "memory/new/deeper/x.md")
	if err != nil || got != "memory/new/deeper/x.md" {
		t.Fatalf("new path: %q, %v", got, err)
	}
	// Resolved to notes/, the write is no longer inside memory/**: denied.
	p := policyFor(t, "work/core/lead", Options{})
	o := op(t, p, "workspace_write", "path:"+got, stamp.ShapeWriteCreate)
	o.Target.Value = "notes/today.md"
	if d := p.Authorize(o); d.Verdict != Deny {
		t.Fatalf("write through inside link to notes/: %s", d)
	}
}

// Spec: "Only these global boundaries exist in v1: confirm credential or
// permission changes; confirm destructive or materially irreversible
// operations; confirm consequential external publication or deployment
// outside standing delegation; deny reading or exporting secret credential
// values; deny exporting lease/fence/authority material; and deny
// cross-workspace, cross-project, or cross-persona access outside an
// explicit binding."
func TestLoudRefusalForEachGlobalBoundary(t *testing.T) {
	p := policyFor(t, "root/secretary", Options{})
	cases := []struct {
		spec   string
		o      Operation
		want   BoundaryID
		effect Verdict
		route  Route
	}{
		{"confirm credential or permission changes",
			op(t, p, "workspace_write", "path:credentials/api-token", stamp.ShapeWriteOverwrite), BoundaryCredentialOrPermission, Confirm, RouteHuman},
		{"confirm destructive or materially irreversible operations",
			op(t, p, "workspace_write", "path:memory/old.md", stamp.ShapeDelete), BoundaryDestructive, Confirm, RouteHuman},
		{"confirm consequential external publication or deployment outside standing delegation",
			op(t, p, "publish_deployment_v1", "external:https://example.org/release", stamp.ShapeDeploy), BoundaryPublication, Confirm, RouteHuman},
		{"deny reading or exporting secret credential values",
			op(t, p, "workspace_read", "path:.env", stamp.ShapeReadRange), BoundarySecretValues, Deny, RouteNone},
		{"deny exporting lease/fence/authority material",
			op(t, p, "workspace_read", "path:run/seat.fence", stamp.ShapeReadRange), BoundaryAuthorityMaterial, Deny, RouteNone},
		{"deny cross-workspace, cross-project, or cross-persona access outside an explicit binding",
			op(t, p, "send_human_message", "surface:virgo-channel/human:nobody", stamp.ShapeMessageSend), BoundaryCrossScope, Deny, RouteNone},
	}
	if len(cases) != len(GlobalBoundaries) {
		t.Fatalf("%d cases for %d global boundaries", len(cases), len(GlobalBoundaries))
	}
	for i, c := range cases {
		t.Run(c.want.String(), func(t *testing.T) {
			if GlobalBoundaries[i] != c.want || !c.want.Info().Global {
				t.Fatalf("global boundary %d is %s", i, GlobalBoundaries[i])
			}
			d := p.Authorize(c.o)
			if d.Verdict != c.effect || d.Boundary != c.want || d.Route() != c.route {
				t.Fatalf("%s: %s", c.spec, d)
			}
			msg := d.String()
			if !strings.Contains(msg, c.want.String()) || !strings.Contains(msg, c.want.Info().Text) {
				t.Fatalf("refusal %q does not name its boundary %s", msg, c.want)
			}
		})
	}
	// The deny shapes alone hit their boundaries, whatever the tool; the
	// confirm shapes, on a tool whose kind carries them.
	for _, c := range []struct {
		tool, target string
		shape        stamp.Shape
		want         BoundaryID
	}{
		{"workspace_read", "path:memory/x.md", stamp.ShapeCredentialRead, BoundarySecretValues},
		{"get_task", "task:work/core/t-1", stamp.ShapeCredentialExport, BoundarySecretValues},
		{"send_broker_message", "address:work/core/deputy", stamp.ShapeExportAuthority, BoundaryAuthorityMaterial},
		{"workspace_write", "path:memory/x.md", stamp.ShapeCredentialChange, BoundaryCredentialOrPermission},
		{"workspace_write", "path:README.md", stamp.ShapePermissionChange, BoundaryCredentialOrPermission},
		{"publish_deployment_v1", "external:https://example.org/x", stamp.ShapePublishExternal, BoundaryPublication},
	} {
		d := p.Authorize(op(t, p, c.tool, c.target, c.shape))
		if d.Boundary != c.want {
			t.Errorf("%s %s: %s, want %s", c.tool, c.shape, d, c.want)
		}
	}
}

// Spec: "An exposed tool has access: allow or access: confirm; denied
// capabilities are not exposed."
func TestToolNotOnStampIsNotExposed(t *testing.T) {
	deputy := policyFor(t, "work/core/deputy", Options{})
	for _, tool := range []string{"assign_task", "resolve_decision", "send_human_message", "shell_exec"} {
		d := deputy.Authorize(op(t, deputy, tool, "task:work/core/t-1", stamp.ShapeRecordWrite))
		if d.Verdict != Deny || d.Boundary != BoundaryNotExposed || !strings.Contains(d.String(), "not exposed") {
			t.Errorf("%s: %s", tool, d)
		}
	}
	o := op(t, deputy, "workspace_read", "path:QUEUE.md", stamp.ShapeReadRange)
	o.HandlerAction = "workspace.write"
	if d := deputy.Authorize(o); d.Boundary != BoundaryNotExposed {
		t.Errorf("mismatched handler action: %s", d)
	}
}

// Scope "own" is the persona's own records, not the subtree: it reaches no
// run at all, and a deputy's task outside its assigned tasks goes to the
// owning lead like its runs do ("a coder-deputy acting on runs or artifacts
// outside its assigned task, within its project").
func TestOwnScopeKeepsADeputyToItsAssignedTasks(t *testing.T) {
	base := policyFor(t, "work/core/deputy", Options{})
	p := base.With(Options{Assignments: assigned{"t-1": true}})
	if d := base.Authorize(op(t, p, "report_task", "task:work/core/t-1", stamp.ShapeRecordWrite)); d.Verdict == Allow {
		t.Errorf("report_task on a task the policy was not given as assigned: %s", d)
	}
	if d := p.Authorize(op(t, p, "report_task", "task:work/core/t-1", stamp.ShapeRecordWrite)); d.Verdict != Allow {
		t.Errorf("report_task on the assigned task: %s", d)
	}
	for _, tool := range []string{"report_task", "get_task"} {
		shape := stamp.ShapeRecordWrite
		if tool == "get_task" {
			shape = stamp.ShapeReadMeta
		}
		d := p.Authorize(op(t, p, tool, "task:work/core/t-2", shape))
		if d.Verdict != Confirm || d.Boundary != BoundaryDeputyScope || d.Route() != RouteOwningLead {
			t.Errorf("%s on an unassigned task: %s, want confirm deputy-scope routed to the owning lead", tool, d)
		}
	}
	for _, tool := range []string{"report_task", "raise_decision", "set_summary"} {
		for _, target := range []string{"run:work/core/t-2/r-1", "run:work/core/t-1/r-1"} {
			d := p.Authorize(op(t, p, tool, target, stamp.ShapeRecordWrite))
			if d.Verdict != Deny || d.Boundary != BoundaryStampedScope {
				t.Errorf("%s on %s: %s, want deny outside-stamped-scope", tool, target, d)
			}
		}
	}
	// A lead has no owning lead: its own scope's tasks need no assignment.
	lead := policyFor(t, "work/core/lead", Options{})
	if d := lead.Authorize(op(t, lead, "report_task", "task:work/core/t-2", stamp.ShapeRecordWrite)); d.Verdict != Allow {
		t.Errorf("lead report_task: %s", d)
	}
}

// Deputy scope: runs and artifacts outside the assigned task are routed to
// the owning lead, not the human; inside it they are allowed.
func TestDeputyScopeRoutesToOwningLead(t *testing.T) {
	p := policyFor(t, "work/core/deputy", Options{Assignments: assigned{"t-1": true}})
	if d := p.Authorize(op(t, p, "append_run_event", "run:work/core/t-1/r-1", stamp.ShapeRecordWrite)); d.Verdict != Allow {
		t.Fatalf("assigned task: %s", d)
	}
	d := p.Authorize(op(t, p, "append_run_event", "run:work/core/t-2/r-9", stamp.ShapeRecordWrite))
	if d.Verdict != Confirm || d.Boundary != BoundaryDeputyScope || d.Route() != RouteOwningLead {
		t.Fatalf("other task: %s", d)
	}
	if d := p.Authorize(op(t, p, "get_run", "run:work/other/t-1/r-1", stamp.ShapeReadMeta)); d.Boundary != BoundaryCrossScope {
		t.Fatalf("other project: %s", d)
	}
	// No repository is bound on the deputy's stamp.
	if d := p.Authorize(op(t, p, "workspace_read", "path@repository:go.mod", stamp.ShapeReadRange)); d.Boundary != BoundaryCrossScope {
		t.Fatalf("unbound repository: %s", d)
	}
}

func TestNewPolicyRefusesUnenforceableStamps(t *testing.T) {
	st, hash := confirmtest.BuildStamp(t, "work/core/lead", 1)
	dup := *st
	dup.Tools = append(append([]stamp.Tool{}, st.Tools...), st.Tools[0])
	if _, err := NewPolicy(&dup, hash, Options{}); err == nil {
		t.Error("duplicate tool accepted")
	}
	bad := *st
	bad.Tools = append([]stamp.Tool{}, st.Tools...)
	bad.Tools[0].Scope = "everywhere"
	if _, err := NewPolicy(&bad, hash, Options{}); err == nil {
		t.Error("unknown scope accepted")
	}
	glob := *st
	glob.Workspace.MutablePaths = []string{"../x/**"}
	if _, err := NewPolicy(&glob, hash, Options{}); err == nil {
		t.Error("climbing mutable path accepted")
	}
}

func TestGlobSemantics(t *testing.T) {
	cases := []struct {
		pattern, path string
		want          bool
	}{
		{"memory/**", "memory/a.md", true},
		{"memory/**", "memory/a/b/c.md", true},
		{"memory/**", "memory", false},
		{"memory/**", "memoryx/a", false},
		{"**/.env", ".env", true},
		{"**/.env", "a/b/.env", true},
		{"**/.env", "a/.env/b", false},
		{"**/.ssh/**", "home/.ssh/id", true},
		{"**/.ssh/**", ".ssh/id", true},
		{"**/.ssh/**", "home/.ssh", false},
		{"**/*.pem", "x/y.pem", true},
		{"a/**/z", "a/z", true},
		{"a/**/z", "a/b/c/z", true},
		{"a/**/z", "a/b/c/y", false},
		{"QUEUE.md", "QUEUE.md", true},
		{"QUEUE.md", "queue.md", false},
		{"docs/*.md", "docs/a.md", true},
		{"docs/*.md", "docs/a/b.md", false},
		{"docs/draft*", "docs/draft-2.md", true},
		{"docs/dr?ft.md", "docs/draft.md", true},
		{"docs/[a-c].md", "docs/d.md", false},
		{"*", "QUEUE.md", true},
		{"*", "memory/x", false},
	}
	for _, c := range cases {
		g, err := compileGlob(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		set, err := compileGlobs([]string{c.pattern})
		if err != nil {
			t.Fatal(err)
		}
		if got, inSet := g.match(c.path), set.match(c.path); got != c.want || inSet != c.want {
			t.Errorf("%s ~ %s = %v (in a set %v), want %v", c.pattern, c.path, got, inSet, c.want)
		}
	}
}

// consulted is Assignments that records whether Authorize asked it.
type consulted struct{ asked *bool }

func (c consulted) IsAssigned(string, string) bool { *c.asked = true; return false }

// A policy reads assigned tasks only when a tool of its stamp must be
// assigned its task (ReadsAssignments): a deputy's does, a lead's does not,
// and a lead's own task is decided without asking for assignments — so the
// use cases skip reading them for it.
func TestOnlyAPolicyThatReadsAssignmentsIsAskedForThem(t *testing.T) {
	if !policyFor(t, "work/core/deputy", Options{}).ReadsAssignments() {
		t.Error("a deputy's policy does not read its assigned tasks")
	}
	var asked bool
	lead := policyFor(t, "work/core/lead", Options{}).With(Options{Assignments: consulted{&asked}})
	if lead.ReadsAssignments() {
		t.Error("a lead's policy reads assigned tasks")
	}
	for _, tool := range []string{"report_task", "get_task"} {
		shape := stamp.ShapeRecordWrite
		if tool == "get_task" {
			shape = stamp.ShapeReadMeta
		}
		lead.Authorize(op(t, lead, tool, "task:work/core/t-1", shape))
	}
	if asked {
		t.Error("a lead's policy asked for assigned tasks, which ReadsAssignments says it never reads")
	}
	var deputyAsked bool
	deputy := policyFor(t, "work/core/deputy", Options{}).With(Options{Assignments: consulted{&deputyAsked}})
	deputy.Authorize(op(t, deputy, "report_task", "task:work/core/t-1", stamp.ShapeRecordWrite))
	if !deputyAsked {
		t.Error("a deputy's report_task on a task did not ask for its assigned tasks (the test's probe is wrong)")
	}
}
