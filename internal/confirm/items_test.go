package confirm

import (
	"os"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// The tool's kind decides the shapes it may carry. The
// reproductions: a read-only tool authorized a mutating shape.
func TestToolKindDecidesTheShapesItMayCarry(t *testing.T) {
	secretary := policyFor(t, "root/secretary", Options{})
	lead := policyFor(t, "work/core/lead", Options{})
	for _, c := range []struct {
		p            *Policy
		tool, target string
		shape        stamp.Shape
	}{
		{secretary, "get_run", "run:work/core/t-1/r-1", stamp.ShapeRecordWrite},
		{lead, "workspace_read", "path:memory/notes.md", stamp.ShapeWriteOverwrite},
		{lead, "workspace_stat", "path:memory/notes.md", stamp.ShapeWriteOverwrite},
		{lead, "list_decisions", "decision:work/core/d-1", stamp.ShapeRecordWrite},
		{secretary, "list_reaction_ids", "surface:virgo-channel/human:henry", stamp.ShapeRecordWrite},
		{lead, "workspace_write", "path:memory/notes.md", stamp.ShapePublishExternal}, // a write tool does not publish
		{lead, "report_task", "task:work/core/t-1", stamp.ShapeDelete},                // a record tool does not delete
		{lead, "send_broker_message", "address:work/core/deputy", stamp.ShapeRecordWrite},
	} {
		d := c.p.Authorize(op(t, c.p, c.tool, c.target, c.shape))
		if d.Verdict != Deny || d.Boundary != BoundaryToolShape || !strings.Contains(d.Reason, string(c.shape)) {
			t.Errorf("%s %s %s on %s: %s, want deny %s", c.p.Address(), c.tool, c.shape, c.target, d, BoundaryToolShape)
		}
	}
	// An R cell never authorizes a mutation: no read tool carries a
	// mutating shape, and an R cell exposes only read tools.
	for _, inv := range stamp.Inventory() {
		if len(inv.Shapes) == 0 || len(inv.Reaches) == 0 {
			t.Errorf("%s declares no shapes or no target kinds", inv.Name)
		}
		if !inv.Kind.Mutates() {
			for _, s := range inv.Shapes {
				if shapeTable[s].kind != kindRead {
					t.Errorf("read tool %s carries %s", inv.Name, s)
				}
			}
		}
	}
	// "R/W (assigned task)" mutates only within assigned tasks.
	deputy := policyFor(t, "work/core/deputy", Options{Assignments: TaskSet{"t-1": true}})
	if d := deputy.Authorize(op(t, deputy, "append_run_event", "run:work/core/t-1/r-1", stamp.ShapeRecordWrite)); d.Verdict != Allow {
		t.Errorf("deputy in its assigned task: %s", d)
	}
	if d := deputy.Authorize(op(t, deputy, "append_run_event", "run:work/core/t-2/r-1", stamp.ShapeRecordWrite)); d.Verdict != Confirm || d.Boundary != BoundaryDeputyScope {
		t.Errorf("deputy outside its assigned task: %s", d)
	}
}

// Every shape of the vocabulary has a row in the shape table (its bit is
// what a tool's shape set holds).
func TestShapeTableCoversTheVocabulary(t *testing.T) {
	seen := shapeSet(0)
	for _, s := range stamp.Shapes() {
		info, ok := shapeTable[s]
		if !ok || info.bit == 0 || seen&info.bit != 0 {
			t.Errorf("shape %s: row %+v", s, info)
		}
		seen |= info.bit
	}
	if len(shapeTable) != len(stamp.Shapes()) {
		t.Errorf("shape table has %d rows, the vocabulary %d shapes", len(shapeTable), len(stamp.Shapes()))
	}
}

// The boundary order follows the spec. Credential or
// permission changes are the bound human's to confirm for any target, also
// under a secret directory; only reading or exporting a secret value is
// denied; a destructive operation on a secret path is confirmed as
// destructive.
func TestBoundaryOrderFollowsTheSpec(t *testing.T) {
	p := policyFor(t, "work/core/lead", Options{})
	for _, c := range []struct {
		target  string
		shape   stamp.Shape
		verdict Verdict
		want    BoundaryID
	}{
		{"path:secrets/db-password", stamp.ShapeCredentialChange, Confirm, BoundaryCredentialOrPermission},
		{"path:.ssh/authorized_keys", stamp.ShapePermissionChange, Confirm, BoundaryCredentialOrPermission},
		{"path:README.md", stamp.ShapePermissionChange, Confirm, BoundaryCredentialOrPermission}, // not a mutable path
		{"path:memory/.env", stamp.ShapeWriteOverwrite, Confirm, BoundaryCredentialOrPermission},
		{"path:.env", stamp.ShapeWriteCreate, Confirm, BoundaryCredentialOrPermission}, // any target
		{"path:.env", stamp.ShapeDelete, Confirm, BoundaryDestructive},
		{"path:secrets/db-password", stamp.ShapeDelete, Confirm, BoundaryDestructive},
		{"path:.env", stamp.ShapeReadRange, Deny, BoundarySecretValues},
		{"path:.env", stamp.ShapeReadMeta, Deny, BoundarySecretValues},
		{"path:memory/notes.md", stamp.ShapeCredentialRead, Deny, BoundarySecretValues},
		{"path:memory/notes.md", stamp.ShapeCredentialExport, Deny, BoundarySecretValues},
		{"path:lease", stamp.ShapeDelete, Deny, BoundaryAuthorityMaterial},
		{"path:README.md", stamp.ShapeDelete, Deny, BoundaryStampedScope}, // not its to remove
	} {
		tool := "workspace_write"
		if shapeTable[c.shape].kind == kindRead {
			tool = "workspace_read"
		}
		d := p.Authorize(op(t, p, tool, c.target, c.shape))
		if d.Verdict != c.verdict || d.Boundary != c.want {
			t.Errorf("%s %s: %s, want %s %s", c.shape, c.target, d, c.verdict, c.want)
		}
		if c.verdict == Confirm && d.Route() != RouteHuman {
			t.Errorf("%s %s routed to %s, want the bound human", c.shape, c.target, d.Route())
		}
	}
}

// examplePath is a path the pattern matches, spelled in mixed case.
func examplePath(pattern string) string {
	p := strings.ReplaceAll(pattern, "**/", "Deep/Dir/")
	p = strings.TrimSuffix(p, "/**") + map[bool]string{true: "/Inner/File", false: ""}[strings.HasSuffix(p, "/**")]
	p = strings.ReplaceAll(p, "*", "x")
	return strings.ToUpper(p[:1]) + p[1:]
}

// Secret and authority material as one table, matched
// case-insensitively; one test per entry. Reading any entry is denied at
// its boundary; writing a secret is a credential change; touching
// authority material is refused.
func TestSecretMaterialTable(t *testing.T) {
	p := policyFor(t, "work/core/lead", Options{}, "**")
	for _, m := range SecretMaterial {
		t.Run(m.Pattern, func(t *testing.T) {
			path := examplePath(m.Pattern)
			for _, spelled := range []string{path, strings.ToUpper(path), strings.ToLower(path)} {
				got, ok := MaterialAt(spelled)
				if !ok || got.Authority != m.Authority {
					t.Fatalf("%s: %+v, %v; want the row %+v", spelled, got, ok, m)
				}
				read := p.Authorize(op(t, p, "workspace_read", "path:"+spelled, stamp.ShapeReadRange))
				write := p.Authorize(op(t, p, "workspace_write", "path:"+spelled, stamp.ShapeWriteOverwrite))
				wantRead, wantWrite := BoundarySecretValues, Decision{Verdict: Confirm, Boundary: BoundaryCredentialOrPermission}
				if m.Authority {
					wantRead, wantWrite = BoundaryAuthorityMaterial, Decision{Verdict: Deny, Boundary: BoundaryAuthorityMaterial}
				}
				if read.Verdict != Deny || read.Boundary != wantRead || !strings.Contains(read.Reason, got.What) {
					t.Errorf("read %s: %s, want deny %s naming %q", spelled, read, wantRead, got.What)
				}
				if write.Verdict != wantWrite.Verdict || write.Boundary != wantWrite.Boundary {
					t.Errorf("write %s: %s, want %s %s", spelled, write, wantWrite.Verdict, wantWrite.Boundary)
				}
				// Every other exit (a file sent, an artifact, a save) gets
				// the read's very refusal.
				if out := Egress(spelled); out != read {
					t.Errorf("Egress(%s) = %s; want the read's %s", spelled, out, read)
				}
			}
		})
	}
	for _, plain := range []string{"memory/notes.md", "QUEUE.md", "docs/keys.md", "src/envelope.go", "id_rsa.pub"} {
		if m, ok := MaterialAt(plain); ok {
			t.Errorf("%s is taken for %s", plain, m.What)
		}
		if d := Egress(plain); d.Verdict != Allow {
			t.Errorf("Egress(%s) = %s; want allow", plain, d)
		}
	}
}

// A persona naming its own workspace by its address is in
// its own scope, and only the spec's six global boundaries are marked global.
func TestOwnWorkspaceByAddressAndSixGlobalBoundaries(t *testing.T) {
	p := policyFor(t, "work/core/lead", Options{})
	if d := p.Authorize(op(t, p, "workspace_write", "path@work/core/lead:QUEUE.md", stamp.ShapeWriteOverwrite)); d.Verdict != Allow {
		t.Errorf("own workspace by address: %s", d)
	}
	if d := p.Authorize(op(t, p, "workspace_read", "path@work/core/deputy:QUEUE.md", stamp.ShapeReadRange)); d.Boundary != BoundaryCrossScope {
		t.Errorf("another persona's workspace: %s", d)
	}
	var global []BoundaryID
	for i, b := range Boundaries {
		if b.Global {
			global = append(global, BoundaryID(i))
		}
	}
	if len(global) != 6 || len(GlobalBoundaries) != 6 {
		t.Fatalf("global boundaries %v (list %v), want the spec's six", global, GlobalBoundaries)
	}
	for i := range global {
		if global[i] != GlobalBoundaries[i] {
			t.Errorf("global boundary %d is %s, the list says %s", i, global[i], GlobalBoundaries[i])
		}
	}
}

// docs/authorization.md lists the boundary table and the secret and
// authority material table row by row.
func TestAuthorizationDocListsTheTables(t *testing.T) {
	b, err := os.ReadFile("../../docs/authorization.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, row := range Boundaries[1:] {
		if !strings.Contains(doc, "| `"+row.Name+"` |") {
			t.Errorf("docs/authorization.md lacks the boundary row %s", row.Name)
		}
	}
	for _, m := range SecretMaterial {
		if !strings.Contains(doc, "| `"+m.Pattern+"` |") {
			t.Errorf("docs/authorization.md lacks the material row %s", m.Pattern)
		}
	}
}
