package ui

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"
	"unsafe"

	"charm.land/bubbles/v2/table"

	"github.com/virgo-hub/virgo-tui/internal/procmem"
	"github.com/virgo-hub/virgo-tui/internal/ui/styles"
)

// confirmations makes n pending confirmations, a third of them the
// operator's. Their targets are longer than the target column at 120
// columns, so every frame cuts them in the middle.
func confirmations(n int, rng *rand.Rand) []Confirmation {
	auth := []string{"human:henry", "work/core/lead", ""}
	cs := make([]Confirmation, n)
	for i := range cs {
		req := fmt.Sprintf("work/proj%05d/deputy", i%50000)
		target := "path:memory/releases/branch-b" + strconv.Itoa(i) + "/CHANGELOG.md"
		cs[i] = Confirmation{ID: fmt.Sprintf("c%07d", i), CorrelationID: "corr" + strconv.Itoa(i), Requester: req,
			Authority: auth[i%3], Boundary: "destructive-or-irreversible", Operation: req + "#1 workspace_write (workspace.write) delete on " + target,
			Tool: "workspace_write", Target: target, Shape: "delete", Action: "workspace.write",
			Created: t0.Add(-time.Duration(rng.IntN(3600)) * time.Second), Expires: t0.Add(time.Hour)}
	}
	return cs
}

func benchConsole(b *testing.B, np, nc int) (*Model, Snapshot) {
	rng := rand.New(rand.NewPCG(7, 8))
	snap := demoSnapshot()
	snap.Personas = personas(np, rng)
	snap.Confirmations = confirmations(nc, rng)
	return console(b, &hubDouble{snap: snap}, 120, 40), snap
}

// stockTable is the bubbles table holding the same rows, the baseline.
func stockTable(cols []Column, rows []table.Row) table.Model {
	tc := make([]table.Column, len(cols))
	ws := layoutColumns(cols, 118, nil)
	for i, c := range cols {
		tc[i] = table.Column{Title: c.Title, Width: ws[i]}
	}
	return table.New(table.WithColumns(tc), table.WithRows(rows), table.WithHeight(34), table.WithWidth(120), table.WithFocused(true))
}

func personaRows(ps []Persona) []table.Row {
	rows := make([]table.Row, len(ps))
	for i := range ps {
		r := make(table.Row, len(presenceColumns))
		for c := range presenceColumns {
			r[c] = personaCell(&ps[i], c, t0)
		}
		rows[i] = r
	}
	return rows
}

// BenchmarkPresenceFrame renders one frame of the console on the presence
// view after a live update of one persona, against the stock bubbles table
// given the same rows (SetRows after the update, as it has no other way to
// take a change, then View).
func BenchmarkPresenceFrame(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("console/n=%d", n), func(b *testing.B) {
			m, snap := benchConsole(b, n, 0)
			b.ReportAllocs()
			defer reportCPU(b, procmem.CPUTime())
			i := 0
			for b.Loop() {
				p := snap.Personas[i%n]
				p.Activity = "step " + strconv.Itoa(i)
				i++
				m.Update(batchMsg{changes: []Change{{Kind: PersonaChanged, Persona: p}}})
				_ = m.Render()
			}
		})
		b.Run(fmt.Sprintf("console-view-only/n=%d", n), func(b *testing.B) {
			m, _ := benchConsole(b, n, 0)
			b.ReportAllocs()
			defer reportCPU(b, procmem.CPUTime())
			for b.Loop() {
				_ = m.Render()
			}
		})
		b.Run(fmt.Sprintf("bubbles-table/n=%d", n), func(b *testing.B) {
			_, snap := benchConsole(b, n, 0)
			rows := personaRows(snap.Personas)
			t := stockTable(presenceColumns, rows)
			b.ReportAllocs()
			defer reportCPU(b, procmem.CPUTime())
			i := 0
			for b.Loop() {
				rows[i%n][pcActivity] = "step " + strconv.Itoa(i)
				i++
				t.SetRows(rows)
				_ = t.View()
			}
		})
		b.Run(fmt.Sprintf("bubbles-table-view-only/n=%d", n), func(b *testing.B) {
			_, snap := benchConsole(b, n, 0)
			t := stockTable(presenceColumns, personaRows(snap.Personas))
			b.ReportAllocs()
			defer reportCPU(b, procmem.CPUTime())
			for b.Loop() {
				_ = t.View()
			}
		})
	}
}

// BenchmarkQueueFrame renders one frame of the queue after a confirmation
// arrives, against the stock table given the same rows.
func BenchmarkQueueFrame(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("console/n=%d", n), func(b *testing.B) {
			m, snap := benchConsole(b, 10, n)
			m.Update(keyMsg("2"))
			b.ReportAllocs()
			defer reportCPU(b, procmem.CPUTime())
			i := 0
			for b.Loop() {
				c := snap.Confirmations[i%n]
				c.ID = "new" + strconv.Itoa(i)
				i++
				m.Update(batchMsg{changes: []Change{{Kind: ConfirmationPending, Confirmation: c}}})
				_ = m.Render()
			}
		})
		b.Run(fmt.Sprintf("bubbles-table/n=%d", n), func(b *testing.B) {
			_, snap := benchConsole(b, 10, n)
			q := newQueueView(newStyles(styles.Default()))
			q.operator = "human:henry"
			rows := make([]table.Row, n)
			for i := range snap.Confirmations {
				r := make(table.Row, len(queueColumns))
				for c := range queueColumns {
					r[c] = q.cell(&snap.Confirmations[i], c, t0)
				}
				rows[i] = r
			}
			t := stockTable(queueColumns, rows)
			b.ReportAllocs()
			defer reportCPU(b, procmem.CPUTime())
			i := 0
			for b.Loop() {
				rows = append(rows, rows[i%n])
				i++
				t.SetRows(rows)
				_ = t.View()
			}
		})
	}
}

// BenchmarkFilterKeystroke types into the filter prompt over 100,000
// personas: each op is one key press (a narrowing letter, then a
// backspace that widens and rescans every row) and the frame after it.
func BenchmarkFilterKeystroke(b *testing.B) {
	m, _ := benchConsole(b, 100000, 0)
	m.Update(keyMsg("/"))
	for _, r := range "proj0" {
		m.Update(keyMsg(string(r)))
	}
	b.ReportAllocs()
	defer reportCPU(b, procmem.CPUTime())
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			m.Update(keyMsg("1"))
		} else {
			m.Update(keyMsg("backspace"))
		}
		i++
		_ = m.Render()
	}
}

// BenchmarkColdStart builds the console from a snapshot and renders the
// first frame: the goal's sizes (10,000 personas, 100,000 confirmations)
// and 100,000 of each.
func BenchmarkColdStart(b *testing.B) {
	for _, size := range [][2]int{{10000, 100000}, {100000, 100000}} {
		b.Run(fmt.Sprintf("personas=%d/confirmations=%d", size[0], size[1]), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(9, 10))
			snap := demoSnapshot()
			snap.Personas = personas(size[0], rng)
			snap.Confirmations = confirmations(size[1], rng)
			h := &hubDouble{snap: snap}
			b.ReportAllocs()
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				s := snap // the console owns its snapshot's slices: give it fresh ones
				s.Personas = slices.Clone(snap.Personas)
				s.Confirmations = slices.Clone(snap.Confirmations)
				runtime.GC()
				c0 := procmem.CPUTime()
				b.StartTimer()
				m := New(h, Options{Now: func() time.Time { return t0 }})
				m.Update(resizeMsg(120, 40))
				m.Update(snapshotMsg{snap: s})
				_ = m.Render()
				cpu += procmem.CPUTime() - c0
			}
			b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(procmem.CPUTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
}

// BenchmarkQueueFirstShow is the deferred half of a cold start: the queue
// of 100,000 confirmations is ordered the first time it is shown.
func BenchmarkQueueFirstShow(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 12))
	snap := demoSnapshot()
	snap.Personas = personas(10000, rng)
	snap.Confirmations = confirmations(100000, rng)
	b.ReportAllocs()
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		s := snap
		s.Confirmations = slices.Clone(snap.Confirmations)
		m := New(&hubDouble{snap: s}, Options{Now: func() time.Time { return t0 }})
		m.Update(resizeMsg(120, 40))
		m.Update(snapshotMsg{snap: s})
		_ = m.Render()
		runtime.GC()
		c0 := procmem.CPUTime()
		b.StartTimer()
		m.Update(keyMsg("2"))
		_ = m.Render()
		cpu += procmem.CPUTime() - c0
	}
	b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
}

// BenchmarkFilterFirstKeystroke is the first key typed into the filter
// over 100,000 personas, with the haystack index built in the background
// after the snapshot (ready), and before it arrived (the keystroke builds
// it on the UI thread).
func BenchmarkFilterFirstKeystroke(b *testing.B) {
	rng := rand.New(rand.NewPCG(13, 14))
	snap := demoSnapshot()
	snap.Personas = personas(100000, rng)
	for _, ready := range []bool{true, false} {
		b.Run(fmt.Sprintf("index-ready=%v", ready), func(b *testing.B) {
			b.ReportAllocs()
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				s := snap
				s.Personas = slices.Clone(snap.Personas)
				m := New(&hubDouble{snap: s}, Options{Now: func() time.Time { return t0 }})
				m.Update(resizeMsg(120, 40))
				m.Update(snapshotMsg{snap: s})
				if ready {
					m.Update(m.presence.table.indexCmd()())
				}
				m.Update(keyMsg("/"))
				runtime.GC()
				c0 := procmem.CPUTime()
				b.StartTimer()
				m.Update(keyMsg("w"))
				_ = m.Render()
				cpu += procmem.CPUTime() - c0
			}
			b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

// BenchmarkFilterEdit edits the filter over 100,000 personas the ways a
// user does besides BenchmarkFilterKeystroke's, a frame after each key:
// retype backspaces "proj0" away letter by letter and types it again;
// live alternates "1" and backspace while a persona changes before each
// key (a live console), so no earlier match may be recalled. recent-KiB
// is what the recalled filters' matches hold at the end.
func BenchmarkFilterEdit(b *testing.B) {
	retype := []string{"backspace", "backspace", "backspace", "backspace", "backspace", "p", "r", "o", "j", "0"}
	for _, live := range []bool{false, true} {
		name := map[bool]string{false: "retype", true: "live"}[live]
		b.Run(name, func(b *testing.B) {
			m, snap := benchConsole(b, 100000, 0)
			press(b, m, "/", "p", "r", "o", "j", "0")
			p := snap.Personas[0]
			seq := uint64(100)
			b.ReportAllocs()
			defer reportCPU(b, procmem.CPUTime())
			i := 0
			for b.Loop() {
				key := retype[i%len(retype)]
				if live {
					seq++
					p.Summary = "task " + strconv.Itoa(i)
					m.Update(batchMsg{changes: []Change{{Seq: seq, Kind: PersonaChanged, Persona: p}}})
					key = map[bool]string{false: "1", true: "backspace"}[i%2 == 1]
				}
				m.Update(keyMsg(key))
				i++
				_ = m.Render()
			}
			b.ReportMetric(float64(recentBytes(m.presence.table))/1024, "recent-KiB")
		})
	}
}

// recentBytes is the memory a table's recalled filters hold, each slice
// they share counted once.
func recentBytes[T any](t *Table[T]) int {
	seen := map[**tableRow[T]]bool{}
	n := 0
	for _, m := range t.recent {
		if cap(m.rows) == 0 {
			continue
		}
		if p := &m.rows[:1][0]; !seen[p] {
			seen[p] = true
			n += cap(m.rows) * int(unsafe.Sizeof(p))
		}
	}
	return n
}
