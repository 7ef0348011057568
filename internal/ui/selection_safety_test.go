package ui

import (
	"strings"
	"testing"
)

// A filter that hides every row leaves nothing selected: `a` must not
// approve a confirmation the operator cannot see.
func TestApproveWithEveryRowFilteredOutSendsNothing(t *testing.T) {
	m, h := queueConsole(t)
	press(t, m, "/")
	typeText(t, m, "zzzz")
	press(t, m, "enter")
	if n := m.queue.table.Len(); n != 0 {
		t.Fatalf("filter zzzz shows %d rows, want 0", n)
	}
	press(t, m, "a", "A", "d")
	typeText(t, m, "aA")
	press(t, m, "enter")
	if len(h.decisions) != 0 || m.prompt != promptNone || m.dialog != nil {
		t.Fatalf("keys on an empty filtered queue acted: decisions %+v, prompt %d", h.decisions, m.prompt)
	}
	if !strings.Contains(plain(m), "nothing selected: the filter shows no confirmations") {
		t.Errorf("the status line should say why nothing was decided:\n%s", plain(m))
	}
	press(t, m, "esc") // the filter cleared: the rows and a selection return
	if id := m.queue.table.Selected(); id == "" {
		t.Fatal("clearing the filter should select a row again")
	}
}
