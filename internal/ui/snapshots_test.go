package ui

import (
	"strings"
	"testing"
	"time"
)

// The detail pane's seat history names the snapshot kept of each
// generation, cleaned like every text from the hub.
func TestPersonaDetailShowsTheSeatsSnapshots(t *testing.T) {
	t0 := time.Date(2026, 8, 4, 9, 0, 0, 0, time.UTC)
	p := Persona{ID: "g2", Address: "work/core/lead", Name: "Porrima", Generation: 2, State: PresenceActive,
		Seats: []SeatRecord{
			{Generation: 1, Name: "Spica", State: "retired", From: t0.Add(-48 * time.Hour), Until: t0.Add(-24 * time.Hour),
				Snapshot: "/home/h/snapshots/work_core_lead/1-0123456789abcdef.snap\x1b[2J"},
			{Generation: 2, Name: "Porrima", State: "active", From: t0.Add(-time.Hour)},
		}}
	sanitizePersona(&p)
	var gen1, gen2 string
	for _, f := range personaDetail(&p, t0) {
		switch strings.TrimSpace(f.label) {
		case "gen 1":
			gen1 = f.value
		case "gen 2":
			gen2 = f.value
		}
	}
	if !strings.Contains(gen1, "snapshot /home/h/snapshots/work_core_lead/1-0123456789abcdef.snap") || strings.Contains(gen1, "\x1b") {
		t.Fatalf("generation 1's line %q: want its snapshot, cleaned", gen1)
	}
	if strings.Contains(gen2, "snapshot") {
		t.Fatalf("generation 2's line %q names a snapshot it does not have", gen2)
	}
}
