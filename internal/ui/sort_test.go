package ui

import (
	"strings"
	"testing"
)

// order is the visible rows' ids, top to bottom.
func order[T any](tb *Table[T]) string {
	var ids []string
	for _, r := range tb.visible() {
		ids = append(ids, r.id)
	}
	return strings.Join(ids, ",")
}

// "The first s on a column sorts ascending; ties keep a stable
// order (address, then generation)."
func TestSortAscendingFirstTiesByAddressThenGeneration(t *testing.T) {
	snap := demoSnapshot()
	// Two generations of one seat and a second secretary: three rows with
	// the class "secretary", whose ids sort against their addresses.
	old := snap.Personas[0]
	old.ID, old.Generation, old.Name, old.State = "p9", 0, "Auva", PresenceRetired
	snap.Personas = append(snap.Personas, old)
	m := console(t, &hubDouble{snap: snap}, 120, 40)
	tb := m.presence.table
	press(t, m, "S") // address, descending: the next s must still start ascending
	if _, desc := tb.Sort(); !desc {
		t.Fatal("S did not reverse the sort")
	}
	press(t, m, "s", "s") // name, then class
	col, desc := tb.Sort()
	if col != pcClass || desc {
		t.Fatalf("s s: column %d descending %v; want CLASS ascending", col, desc)
	}
	// coder-deputy, project-lead, then the three secretaries by address
	// then generation (home/secretary p5, root/secretary gen 0 p9 and gen
	// 1 p1), then team-coordinator
	if got, want := order(tb), "p4,p3,p5,p9,p1,p2"; got != want {
		t.Errorf("by class ascending: %s, want %s", got, want)
	}
	press(t, m, "S")
	if got, want := order(tb), "p2,p5,p9,p1,p3,p4"; got != want {
		t.Errorf("by class descending: %s, want %s (ties still by address, then generation)", got, want)
	}
}

// The queue's ties: the requester's address, then the oldest request.
func TestQueueSortTies(t *testing.T) {
	m, _ := queueConsole(t)
	tb := m.queue.table
	for col, _ := tb.Sort(); col != qcRouted; col, _ = tb.Sort() {
		press(t, m, "s")
	}
	// yours first (c-1 work/core/lead, c-2 work/core/deputy: equal key
	// "human:henry", so by requester), then the lead's, then unroutable.
	if got, want := order(tb), "c-2,c-1,c-3,c-4"; got != want {
		t.Errorf("by routing: %s, want %s", got, want)
	}
	if tb.Selected() != "c-1" {
		t.Errorf("the selection should stay on its confirmation c-1, not its row: %s", tb.Selected())
	}
}
