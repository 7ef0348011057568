package ui

import (
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
)

// mib is the 1 MiB paste the campaign sent into an SSH console's field.
var mib = strings.Repeat("x", 1<<20)

// A bracketed paste into any field of the console (the deny reason, the
// filter, an inbox reply; the wizard's answers in its own test) lands in that field cut to
// its limit in one step, and the status line says it was cut. The deny
// reason once dropped a paste altogether: it never reached the field.
func TestBigPasteIsCutToTheField(t *testing.T) {
	fields := []struct {
		name  string
		open  func(t *testing.T) *Model
		limit int
		value func(m *Model) string
	}{
		{"deny reason", func(t *testing.T) *Model {
			m, _ := queueConsole(t)
			deliberately(t, m, "d")
			return m
		}, promptLimit, promptValue},
		{"filter", func(t *testing.T) *Model {
			m, _ := queueConsole(t)
			press(t, m, "/")
			return m
		}, promptLimit, promptValue},
		{"inbox reply", func(t *testing.T) *Model {
			m, _ := inboxConsole(t, 80, 24)
			press(t, m, "j", "j", "j", "r") // h-1, a persona's message
			return m
		}, replyLimit, promptValue},
	}
	for _, f := range fields {
		t.Run(f.name, func(t *testing.T) {
			m := f.open(t)
			start := time.Now()
			_, cmd := m.Update(tea.PasteMsg{Content: mib})
			runCmd(m, cmd)
			took := time.Since(start)
			if n := utf8.RuneCountInString(f.value(m)); n != f.limit {
				t.Fatalf("the field holds %d characters after a 1 MiB paste, want its limit %d", n, f.limit)
			}
			want := "paste cut: " + strconv.Itoa(f.limit) + " of " + strconv.Itoa(len(mib)) + " characters taken"
			if !strings.Contains(plain(m), want) {
				t.Fatalf("the screen does not say the paste was cut (%q):\n%s", want, plain(m))
			}
			if took > 500*time.Millisecond {
				t.Errorf("a 1 MiB paste took %v", took)
			}
		})
	}
}

func promptValue(m *Model) string { return m.input.Value() }

// Keys typed into a full field (a paste arriving key by key from a terminal
// without bracketed paste) are dropped before the field, and the status
// line says the field is full; editing keys still work there.
func TestKeysIntoAFullFieldAreNotTaken(t *testing.T) {
	m, _ := queueConsole(t)
	press(t, m, "/")
	m.Update(tea.PasteMsg{Content: mib})
	typeText(t, m, "yyy")
	if v := m.input.Value(); v != mib[:promptLimit] {
		t.Fatalf("keys into a full field changed it: %d characters, ends %q", len(v), v[len(v)-3:])
	}
	if !strings.Contains(plain(m), "the field is full at 256 characters") {
		t.Fatalf("no note of the full field:\n%s", plain(m))
	}
	press(t, m, "backspace", "z")
	if v := m.input.Value(); v != mib[:promptLimit-1]+"z" {
		t.Fatalf("backspace then z in a full field: ends %q", v[len(v)-3:])
	}
}

// A paste with no field open decides nothing and is not taken.
func TestPasteWithNoFieldIsNotTaken(t *testing.T) {
	m, h := queueConsole(t)
	advance(m, m.opts.Arming)
	m.Update(tea.PasteMsg{Content: "a"})
	settled(t, m)
	if len(h.decisions) != 0 || m.prompt != promptNone || !strings.Contains(plain(m), "paste not taken: no field is open") {
		t.Fatalf("a paste with no field open: sent %+v, prompt %v\n%s", h.decisions, m.prompt, plain(m))
	}
}

// The cost of 1 MiB into the inbox reply field (2000 characters): as one
// bracketed paste, and as separate keys (a terminal without bracketed
// paste), each key into the full field through the console and, the
// baseline, straight into the stock textinput as before the field dropped
// them (about 120 µs a key, two minutes a MiB). s/MiB is a key's cost
// times 1 Mi keys.
func BenchmarkPasteMiB(b *testing.B) {
	full := func(b *testing.B) *Model {
		m, _ := inboxConsole(b, 80, 24)
		press(b, m, "j", "j", "j", "r")
		m.Update(tea.PasteMsg{Content: mib})
		return m
	}
	perMiB := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)*(1<<20)/1e9, "s/MiB")
	}
	b.Run("one-paste", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			m, _ := inboxConsole(b, 80, 24)
			press(b, m, "j", "j", "j", "r")
			b.StartTimer()
			m.Update(tea.PasteMsg{Content: mib})
		}
	})
	k := keyMsg("x")
	b.Run("key-into-full-field", func(b *testing.B) {
		m := full(b)
		for b.Loop() {
			m.Update(k)
		}
		perMiB(b)
	})
	b.Run("key-into-full-textinput-baseline", func(b *testing.B) {
		in := full(b).input
		for b.Loop() {
			in, _ = in.Update(k)
		}
		perMiB(b)
	})
}
