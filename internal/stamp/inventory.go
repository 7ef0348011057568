package stamp

import (
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// inventory is the table's tools in matrix order, each with its Bundle set,
// and byName indexes it. Both are derived once from bundles.
var (
	inventory []InventoryTool
	byName    = map[string]int{}
)

func init() {
	for i := range bundles {
		for j := range bundles[i].Tools {
			bundles[i].Tools[j].Bundle = bundles[i].Name
			byName[bundles[i].Tools[j].Name] = len(inventory)
			inventory = append(inventory, bundles[i].Tools[j])
		}
	}
}

// Bundles returns the class matrix rows in the spec's order. Callers must not
// modify the result.
func Bundles() []Bundle { return bundles }

// Footnotes returns the matrix's numbered limits (¹ ²).
func Footnotes() []Footnote { return footnotes }

// StandardMutablePaths returns the workspace paths every normal persona may
// write; the factory always includes them.
func StandardMutablePaths() []string { return append([]string(nil), standardMutablePaths...) }

// Inventory returns every tool of the table in matrix order: the spec's 38
// required names plus the versioned publication tool.
func Inventory() []InventoryTool { return inventory }

// LookupTool returns the inventory row of a tool name.
func LookupTool(name string) (InventoryTool, bool) {
	i, ok := byName[name]
	if !ok {
		return InventoryTool{}, false
	}
	return inventory[i], true
}

// CellFor returns a class's cell of a bundle; a profile not in the matrix
// gets "-".
func CellFor(b Bundle, p registry.Profile) Cell {
	if cell, ok := b.Cells[p]; ok {
		return cell
	}
	return Cell{Mark: MarkNone}
}

// exposes reports whether a cell exposes a tool: R exposes read tools only
// (an R cell never authorizes a mutation);
// W, R/W and C expose the whole bundle; - exposes nothing.
func exposes(cell Cell, t InventoryTool) bool {
	switch cell.Mark {
	case MarkRead:
		return !t.Kind.Mutates()
	case MarkWrite, MarkReadWrite, MarkConfirm:
		return true
	}
	return false
}

// toolFor is the stamp record of an inventory tool under a cell.
func toolFor(cell Cell, t InventoryTool) Tool {
	out := Tool{Name: t.Name, HandlerAction: t.HandlerAction, Access: AccessAllow, Scope: t.Scope}
	if cell.Mark == MarkConfirm {
		out.Access = AccessConfirm
	}
	if cell.Scope != "" {
		out.Scope = cell.Scope
	}
	return out
}

// ToolsFor returns exactly the tools a class's matrix row exposes, in matrix
// order, with the class's access and scope. An unknown profile gets none.
func ToolsFor(p registry.Profile) []Tool {
	out := make([]Tool, 0, len(inventory))
	for _, b := range bundles {
		cell := CellFor(b, p)
		for _, t := range b.Tools {
			if exposes(cell, t) {
				out = append(out, toolFor(cell, t))
			}
		}
	}
	return out
}

// ExpectedTool returns the record a class's stamp must carry for a tool name;
// ok is false when the class does not expose it.
func ExpectedTool(p registry.Profile, name string) (Tool, bool) {
	t, ok := LookupTool(name)
	if !ok {
		return Tool{}, false
	}
	for _, b := range bundles {
		if b.Name == t.Bundle {
			cell := CellFor(b, p)
			if exposes(cell, t) {
				return toolFor(cell, t), true
			}
		}
	}
	return Tool{}, false
}

// Handlers returns the handler table of a complete runtime: every
// handler_action of the inventory. A runtime passes its own table to
// BootCheck; this one is what it must at least contain.
func Handlers() map[string]bool {
	out := make(map[string]bool, len(inventory))
	for _, t := range inventory {
		out[t.HandlerAction] = true
	}
	return out
}
