package importrules

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// module is the import path every rule's packages are relative to.
const module = "github.com/virgo-hub/virgo-tui"

// reach says how far a rule looks from the packages it governs.
type reach int

const (
	// dependsOn forbids the package anywhere below: imported directly or
	// through any chain of imports.
	dependsOn reach = iota
	// imports forbids only a direct import; reaching it through a layer
	// that owns it is the design.
	imports
)

// rule forbids the packages matched by from (module-relative; a trailing
// "/..." takes the subtree) to reach forbidden (module-relative, or a
// standard library or third-party path; a trailing "/..." forbids the
// path and every package under it).
type rule struct {
	from, forbidden string
	reach           reach
	why             string
}

// rules are the house rules of docs/architecture.md ("Dependencies"), one
// row each: "the console never imports the server or the
// store; confirm, stamp and registry never import a transport".
var rules = []rule{
	{"internal/ui/...", "internal/hub", dependsOn, "the console talks to a client interface, never to the server"},
	{"internal/ui/...", "internal/usecase", dependsOn, "the console asks the hub to run a use case; it runs none itself"},
	{"internal/ui/...", "internal/store", imports, "the console never opens the database"},
	{"internal/hubconsole", "internal/hub", dependsOn, "the console's adapter imports only the client"},
	{"internal/hubconsole", "internal/store", imports, "the console's adapter never opens the database"},
	{"internal/hubclient", "internal/hub", dependsOn, "the client is separate from the server"},
	{"internal/sshconsole", "internal/hub", dependsOn, "the SSH console is a front end: the hub through an interface and the client"},
	{"internal/sshconsole", "internal/store", imports, "the SSH console never opens the database; keys are looked up by the hub"},
	{"internal/mcpserver", "internal/hub", dependsOn, "the MCP server is a front end on the hub client; every call is decided by the hub"},
	{"internal/session", "internal/hub", dependsOn, "the session supervisor knows no rule: it asks the hub through the client"},
	{"internal/session", "internal/usecase", dependsOn, "the session supervisor knows no rule: it asks the hub through the client"},
	{"internal/harness", "internal/hub", dependsOn, "the harness table is data about programs, not rules"},
	{"internal/harness", "internal/usecase", dependsOn, "the harness table is data about programs, not rules"},
	{"internal/workspace", "net/http", dependsOn, "the workspace executors act on files and know no transport"},
	{"internal/confirm", "internal/hub", dependsOn, "decision rules know no transport"},
	{"internal/confirm", "internal/hubclient", dependsOn, "decision rules know no transport"},
	{"internal/confirm", "internal/hubapi", dependsOn, "decision rules know no transport"},
	{"internal/confirm", "net/http", dependsOn, "decision rules know no transport"},
	{"internal/stamp", "internal/hub", dependsOn, "the stamp factory knows no transport"},
	{"internal/stamp", "internal/hubclient", dependsOn, "the stamp factory knows no transport"},
	{"internal/stamp", "internal/hubapi", dependsOn, "the stamp factory knows no transport"},
	{"internal/stamp", "net/http", dependsOn, "the stamp factory knows no transport"},
	{"internal/tools", "internal/hub", dependsOn, "the tool table knows no transport"},
	{"internal/tools", "net/http", dependsOn, "the tool table knows no transport"},
	{"internal/registry", "internal/hub", dependsOn, "the registry knows no transport"},
	{"internal/registry", "internal/hubclient", dependsOn, "the registry knows no transport"},
	{"internal/registry", "internal/hubapi", dependsOn, "the registry knows no transport"},
	{"internal/registry", "net/http", dependsOn, "the registry knows no transport"},
	{"internal/registry", "internal/store/...", dependsOn, "addresses, roles and personas are values; their book (registry/roster) stores them"},
	{"internal/ui/...", "internal/registry/roster", dependsOn, "the console reads personas through the hub, never the stored roster"},
	{"internal/confirm", "internal/store/...", dependsOn, "operations, boundaries and authorization are values and rules; their book (confirm/queue) stores them"},
	{"internal/ui/...", "internal/confirm/queue", dependsOn, "the console reads confirmations through the hub, never the stored queue"},
	{"internal/paging", "internal/store/...", dependsOn, "a page and its token are values; paging/pager reads a page from the store"},
	{"internal/operators", "internal/store/...", dependsOn, "an enrolment is a value; its book (operators/roll) stores it"},
	{"internal/operatorkeys", "internal/store/...", dependsOn, "an SSH key is a value; its book (operatorkeys/keyring) stores it"},
	{"internal/tasks", "internal/store/...", dependsOn, "a task is a value; its book (tasks/board) stores it"},
	{"internal/runs", "internal/store/...", dependsOn, "a run and its state machine are values; their book (runs/journal) stores them"},
	{"internal/decisions", "internal/store/...", dependsOn, "a decision is a value; its book (decisions/ledger) stores it"},
	{"internal/coord", "internal/store/...", dependsOn, "messages and fences are values; their book (coord/switchboard) stores them"},
	{"internal/channel", "internal/store/...", dependsOn, "the human channel's items are values; their book (channel/mailbox) stores them"},
	{"internal/graph", "internal/store/...", dependsOn, "a graph query and its nodes are values; graph/atlas walks the stored records"},
	{"internal/events", "internal/usecase", dependsOn, "a client reads the typed events without linking the use cases that make them"},
	{"internal/hubapi", "internal/usecase", dependsOn, "the wire contract links no use case: the hub maps its errors and types onto the wire"},
	{"internal/hubapi", "internal/store/...", dependsOn, "the wire contract is a leaf: it names values, and links no store and no book that reads one"},
	{"internal/hubclient", "internal/store/...", dependsOn, "the client speaks the wire contract and links no store"},
	{"internal/mcpserver", "internal/store/...", dependsOn, "the MCP server is a hub client and links no store"},
	{"internal/hubclient", "internal/usecase", dependsOn, "the client speaks the wire contract; the hub runs the use cases"},
	{"internal/hubconsole", "internal/usecase", dependsOn, "the console's adapter reads the hub through the client; the hub runs the use cases"},
	{"internal/hubconsole", "internal/registry/roster", dependsOn, "the console's adapter reads personas through the hub, never the stored roster"},
	{"internal/hubconsole", "internal/confirm/queue", dependsOn, "the console's adapter reads confirmations through the hub, never the stored queue"},
	{"internal/sshconsole", "internal/usecase", dependsOn, "the SSH console is a hub client; the hub runs the use cases"},
	{"internal/mcpserver", "internal/usecase", dependsOn, "the MCP server decides every call through the hub client; the hub runs the use cases"},
	{"internal/mcpserver", "internal/registry/roster", dependsOn, "the MCP server reads personas through the hub, never the stored roster"},
	{"internal/mcpserver", "internal/confirm/queue", dependsOn, "the MCP server waits on confirmations through the hub, never the stored queue"},
	{"internal/ui/...", "go.etcd.io/bbolt", dependsOn, "the console links no database: it reads the hub through the client"},
	{"internal/ui/...", "go.etcd.io/etcd/...", dependsOn, "the console links no database: it reads the hub through the client"},
	{"internal/hubconsole", "go.etcd.io/bbolt", dependsOn, "the console's adapter links no database"},
	{"internal/hubconsole", "go.etcd.io/etcd/...", dependsOn, "the console's adapter links no database"},
	{"internal/hubclient", "go.etcd.io/bbolt", dependsOn, "the client speaks the wire contract and links no database"},
	{"internal/hubclient", "go.etcd.io/etcd/...", dependsOn, "the client speaks the wire contract and links no database"},
	{"internal/mcpserver", "go.etcd.io/bbolt", dependsOn, "the MCP server is a hub client and links no database"},
	{"internal/mcpserver", "go.etcd.io/etcd/...", dependsOn, "the MCP server is a hub client and links no database"},
	{"internal/sshconsole", "go.etcd.io/bbolt", dependsOn, "the SSH console is a hub client and links no database"},
	{"internal/sshconsole", "go.etcd.io/etcd/...", dependsOn, "the SSH console is a hub client and links no database"},
	{"internal/hubapi", "go.etcd.io/bbolt", dependsOn, "the wire contract links no database"},
	{"internal/hubapi", "go.etcd.io/etcd/...", dependsOn, "the wire contract links no database"},
}

// graph maps an import path to the paths it imports (not its tests').
type graph map[string][]string

// loadGraph reads the import graph of the whole module and everything it
// depends on.
func loadGraph(t *testing.T) graph {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list -deps %s/...: %v", module, err)
	}
	g := graph{}
	for line := range strings.Lines(string(out)) {
		if f := strings.Fields(line); len(f) > 0 {
			g[f[0]] = f[1:]
		}
	}
	return g
}

// path resolves a module-relative rule path (internal/..., cmd/...); any
// other path, such as the standard library's net/http, stays as it is.
func path(p string) string {
	if strings.HasPrefix(p, "internal/") || strings.HasPrefix(p, "cmd/") {
		return module + "/" + p
	}
	return p
}

// governed lists the packages of g that pattern names.
func (g graph) governed(pattern string) []string {
	var pkgs []string
	if tree, ok := strings.CutSuffix(pattern, "/..."); ok {
		root := path(tree)
		for p := range g {
			if p == root || strings.HasPrefix(p, root+"/") {
				pkgs = append(pkgs, p)
			}
		}
	} else if _, ok := g[path(pattern)]; ok {
		pkgs = append(pkgs, path(pattern))
	}
	slices.Sort(pkgs)
	return pkgs
}

// matches reports whether pkg is target, or lies under a target that ends
// in "/...".
func matches(pkg, target string) bool {
	if tree, ok := strings.CutSuffix(target, "/..."); ok {
		return pkg == tree || strings.HasPrefix(pkg, tree+"/")
	}
	return pkg == target
}

// chain is the shortest import chain from pkg to a package target matches
// ("a → b → target"), or nil when pkg reaches none.
func (g graph) chain(pkg, target string) []string {
	prev := map[string]string{pkg: ""}
	for queue := []string{pkg}; len(queue) > 0; queue = queue[1:] {
		at := queue[0]
		for _, next := range g[at] {
			if _, seen := prev[next]; seen {
				continue
			}
			prev[next] = at
			if matches(next, target) {
				var c []string
				for p := next; p != ""; p = prev[p] {
					c = append(c, strings.TrimPrefix(p, module+"/"))
				}
				slices.Reverse(c)
				return c
			}
			queue = append(queue, next)
		}
	}
	return nil
}

// violations are the breaches of rules in g, one line each, naming the
// chain of imports an engineer has to cut.
func (g graph) violations(rules []rule) []string {
	var found []string
	for _, r := range rules {
		pkgs := g.governed(r.from)
		if len(pkgs) == 0 {
			found = append(found, fmt.Sprintf("rule %q → %q governs no package (renamed? update the table)", r.from, r.forbidden))
		}
		target := path(r.forbidden)
		for _, p := range pkgs {
			var c []string
			switch r.reach {
			case imports:
				if i := slices.IndexFunc(g[p], func(q string) bool { return matches(q, target) }); i >= 0 {
					c = []string{strings.TrimPrefix(p, module+"/"), strings.TrimPrefix(g[p][i], module+"/")}
				}
			case dependsOn:
				c = g.chain(p, target)
			}
			if c != nil {
				found = append(found, fmt.Sprintf("%s: %s (%s)", strings.TrimPrefix(p, module+"/"), strings.Join(c, " → "), r.why))
			}
		}
	}
	return found
}

// The module's real import graph keeps every rule of the table.
func TestNoForbiddenImports(t *testing.T) {
	for _, v := range loadGraph(t).violations(rules) {
		t.Error(v)
	}
}

// The checker finds a forbidden package through a chain, a forbidden direct
// import, a package under a forbidden subtree, and a rule that governs
// nothing; it lets an owned layer reach what it owns.
func TestTheCheckerFindsEachKindOfBreach(t *testing.T) {
	m := func(p string) string { return module + "/" + p }
	g := graph{
		m("internal/ui"):              {m("internal/ui/wizard"), m("internal/registry")},
		m("internal/ui/wizard"):       {m("internal/hubconsole")},
		m("internal/hubconsole"):      {m("internal/hub")},
		m("internal/hub"):             {"net/http"},
		m("internal/registry"):        {m("internal/store")},
		m("internal/stamp"):           {m("internal/store")},
		m("internal/store"):           {m("internal/store/boltstore")},
		m("internal/store/boltstore"): {"go.etcd.io/bbolt"},
		m("internal/hubclient"):       {"go.etcd.io/etcd/client/v3"},
	}
	got := g.violations([]rule{
		{"internal/ui/...", "internal/hub", dependsOn, "server"},
		{"internal/ui/...", "internal/store", imports, "store"},
		{"internal/stamp", "internal/store", imports, "store"},
		{"internal/gone", "net/http", dependsOn, "gone"},
		{"internal/stamp", "go.etcd.io/bbolt", dependsOn, "bbolt"},
		{"internal/hubclient", "go.etcd.io/etcd/...", imports, "etcd"},
	})
	want := []string{
		"internal/ui: internal/ui → internal/ui/wizard → internal/hubconsole → internal/hub (server)",
		"internal/ui/wizard: internal/ui/wizard → internal/hubconsole → internal/hub (server)",
		"internal/stamp: internal/stamp → internal/store (store)",
		`rule "internal/gone" → "net/http" governs no package (renamed? update the table)`,
		"internal/stamp: internal/stamp → internal/store → internal/store/boltstore → go.etcd.io/bbolt (bbolt)",
		"internal/hubclient: internal/hubclient → go.etcd.io/etcd/client/v3 (etcd)",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// symbolRule forbids the packages matched by from to name any exported
// identifier of pkg (module-relative) that starts with prefix: a package
// may import a domain package for its types and still be kept from its
// storage layout.
type symbolRule struct {
	from, pkg, prefix string
	why               string
}

// symbolRules keep the console off the storage codec: it reads typed
// events and records. (The store keys live in the books, registry/roster
// and confirm/queue, which the console may not reach at all.)
var symbolRules = []symbolRule{
	{"internal/hubconsole", "internal/registry", "Decode", "the console reads persona events, not the registry's storage codec"},
	{"internal/ui/...", "internal/registry", "Decode", "the console reads persona events, not the registry's storage codec"},
}

// symbolViolations are the uses in the (non-test) files of the packages
// of g that a rule forbids, one line each: file, line, identifier, why.
func (g graph) symbolViolations(t *testing.T, rules []symbolRule) []string {
	t.Helper()
	var found []string
	for _, r := range rules {
		target := path(r.pkg)
		for _, p := range g.governed(r.from) {
			if !slices.Contains(g[p], target) {
				continue
			}
			dir := filepath.Join("..", "..", strings.TrimPrefix(p, module+"/"))
			files, err := filepath.Glob(filepath.Join(dir, "*.go"))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if strings.HasSuffix(f, "_test.go") {
					continue
				}
				found = append(found, forbiddenUses(t, f, target, r)...)
			}
		}
	}
	return found
}

// forbiddenUses lists the uses in file of target's identifiers that r forbids.
func forbiddenUses(t *testing.T, file, target string, r symbolRule) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	name := target[strings.LastIndexByte(target, '/')+1:]
	for _, imp := range f.Imports {
		if strings.Trim(imp.Path.Value, `"`) == target && imp.Name != nil {
			name = imp.Name.Name
		}
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && x.Name == name && strings.HasPrefix(sel.Sel.Name, r.prefix) {
			found = append(found, fmt.Sprintf("%s: %s.%s (%s)", fset.Position(sel.Pos()), name, sel.Sel.Name, r.why))
		}
		return true
	})
	return found
}

// The console's packages name no storage key or codec of the domain
// packages whose types they show.
func TestConsoleNamesNoStorageLayout(t *testing.T) {
	for _, v := range loadGraph(t).symbolViolations(t, symbolRules) {
		t.Error(v)
	}
}

// The symbol checker finds a forbidden identifier, by the import's own
// name when it is renamed.
func TestTheSymbolCheckerFindsAForbiddenName(t *testing.T) {
	file := filepath.Join(t.TempDir(), "adapter.go")
	src := "package hubconsole\n\nimport cf \"" + module + "/internal/confirm\"\n\nvar k = cf.PrefixConfirmation + \"c-1\"\n\nvar s = cf.StatePending\n"
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	got := forbiddenUses(t, file, module+"/internal/confirm", symbolRule{prefix: "Prefix", why: "keys"})
	if len(got) != 1 || !strings.Contains(got[0], "cf.PrefixConfirmation (keys)") {
		t.Fatalf("found %q, want the one use of cf.PrefixConfirmation", got)
	}
}

// jsonLibrary is the JSON library the wire contract may import beside the
// standard library, and jsonDecoder the module's one decoder over it.
const (
	jsonLibrary = "github.com/go-json-experiment/json"
	jsonDecoder = module + "/internal/strictjson"
)

// wireLeaves lists, for the wire contract, every module package it may
// import: pure values and the domain packages whose types and named errors
// travel on the wire. Beside them it imports only the standard library and
// the JSON library — no use case, no store, no book. Every domain package
// here holds values only (its book sits in a subpackage), and the rule
// hubapi ↛ internal/store/... keeps it so. The list only shrinks.
var wireLeaves = map[string][]string{
	"internal/hubapi": {
		"internal/channel", "internal/confirm", "internal/coord", "internal/decisions", "internal/events",
		"internal/graph", "internal/operatorkeys", "internal/operators", "internal/paging", "internal/private",
		"internal/quota", "internal/registry", "internal/runs", "internal/snapshot", "internal/stamp", "internal/tasks",
		"internal/termtext", "internal/tools", "internal/workspace",
	},
}

// outsideLeaves lists what pkg imports beyond the standard library, the
// JSON library (with the module's decoder) and allowed (module-relative),
// one line each.
func (g graph) outsideLeaves(pkg string, allowed []string) []string {
	imps, ok := g[path(pkg)]
	if !ok {
		return []string{fmt.Sprintf("%s: no such package (renamed? update the table)", pkg)}
	}
	var found []string
	for _, imp := range imps {
		first, _, _ := strings.Cut(imp, "/")
		switch {
		case !strings.Contains(first, "."): // the standard library
		case imp == jsonLibrary || strings.HasPrefix(imp, jsonLibrary+"/") || imp == jsonDecoder:
		case slices.Contains(allowed, strings.TrimPrefix(imp, module+"/")):
		default:
			found = append(found, fmt.Sprintf("%s imports %s, which is none of its leaves", pkg, strings.TrimPrefix(imp, module+"/")))
		}
	}
	return found
}

// The wire contract imports only the standard library, the JSON library
// and its listed leaves.
func TestTheWireContractImportsOnlyItsLeaves(t *testing.T) {
	g := loadGraph(t)
	for pkg, allowed := range wireLeaves {
		for _, v := range g.outsideLeaves(pkg, allowed) {
			t.Error(v)
		}
	}
}

// outsideLeaves names an import beyond the leaves and a package that is
// gone, and lets the standard library and the JSON library by.
func TestTheLeafCheckerFindsAnImportBeyondTheLeaves(t *testing.T) {
	m := func(p string) string { return module + "/" + p }
	g := graph{m("internal/hubapi"): {"net/http", jsonLibrary + "/jsontext", m("internal/registry"), m("internal/usecase")}}
	got := append(g.outsideLeaves("internal/hubapi", []string{"internal/registry"}), g.outsideLeaves("internal/gone", nil)...)
	want := []string{
		"internal/hubapi imports internal/usecase, which is none of its leaves",
		"internal/gone: no such package (renamed? update the table)",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("outside the leaves:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
