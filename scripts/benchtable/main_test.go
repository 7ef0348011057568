package main

import (
	"strings"
	"testing"
)

// Output of two runs (-count 2) of three figures' benchmarks, as go test
// prints it: the -GOMAXPROCS suffix, custom metrics, a failing package's
// noise around them.
const sample = `goos: linux
pkg: github.com/virgo-hub/virgo-tui/internal/ui
BenchmarkPresenceFrame/console/n=10000-2         	     200	    800000 ns/op	  1024 B/op	  3 allocs/op
BenchmarkPresenceFrame/bubbles-table/n=10000-2   	     200	   6000000 ns/op
BenchmarkPresenceFrame/console/n=10000-2         	     200	    900000 ns/op	  1024 B/op	  3 allocs/op
BenchmarkPresenceFrame/bubbles-table/n=10000-2   	     200	   7000000 ns/op
BenchmarkPresenceFrame/console/n=10000-2         	     200	   5000000 ns/op	  1024 B/op	  3 allocs/op
PASS
pkg: github.com/virgo-hub/virgo-tui/internal/hub
BenchmarkConfirmationRequests64/in-process-2     	    3000	    870000 ns/op	      1000 requests/s
BenchmarkConfirmationRequests64/socket-2         	    3000	   1400000 ns/op	       550 requests/s
--- FAIL: BenchmarkHeartbeats/request/max
FAIL
`

func TestParseKeepsEveryRunByNameAndUnit(t *testing.T) {
	got, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if vs := got["BenchmarkPresenceFrame/console/n=10000"]["ns/op"]; len(vs) != 3 || vs[0] != 800000 || vs[2] != 5000000 {
		t.Fatalf("console frames: %v, want the three runs in order, without the -2 suffix in the name", vs)
	}
	if vs := got["BenchmarkConfirmationRequests64/socket"]["requests/s"]; len(vs) != 1 || vs[0] != 550 {
		t.Fatalf("socket rate: %v, want [550]", vs)
	}
	if _, ok := got["BenchmarkHeartbeats/request/max"]; ok {
		t.Fatal("a failed benchmark's line was read as a result")
	}
}

func TestParseRefusesAnUnreadableMetric(t *testing.T) {
	if _, err := parse(strings.NewReader("BenchmarkX-2 10 fast ns/op\n")); err == nil {
		t.Fatal("a metric that is not a number was accepted")
	}
}

// The table shows each figure's median beside its baseline's, their
// ratio and whether the goal is met; a figure with no result says so and
// is reported missing, never left out or filled in.
func TestTableShowsMediansRatiosGoalsAndWhatWasNotMeasured(t *testing.T) {
	results, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	missing := table(&b, results)
	out := b.String()
	for _, want := range []string{
		// median of 0.8, 0.9 and 5 ms; of 6 and 7 ms the upper middle
		"| console frame: presence after a live update, 10,000 personas (`PresenceFrame/console/n=10000`) | **0.900 ms** | 7.00 ms (`PresenceFrame/bubbles-table/n=10000`) | 0.13× | faster than the stock table ✔ |",
		"| **550 requests/s** | 1,000 requests/s (`ConfirmationRequests64/in-process`) | 0.55× | ≥ 60 % of in-process ✘ |",
		"| heartbeats: 100 runtimes, one request a beat, flat out | not measured | | | ≥ 20,000 beats/s |",
		"Withdrawn goals:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	if len(missing) != len(rows)-2 || !strings.Contains(strings.Join(missing, "\n"), "BenchmarkHeartbeats/request/max beats/s") {
		t.Errorf("missing %q: want every figure but the two measured", missing)
	}
}

func TestNum(t *testing.T) {
	for v, want := range map[float64]string{0.8134: "0.813", 2.234: "2.23", 62.51: "62.5", 602.4: "602", 4932.2: "4,932", 1234567: "1,234,567"} {
		if got := num(v); got != want {
			t.Errorf("num(%v) = %q, want %q", v, got, want)
		}
	}
}

// Every row with a package is one run (a row without one is measured by
// the run above it); with -figures the hub start runs its figure alone,
// without the 100,000-decision history of its baseline.
func TestRunsAndTheFiguresAlone(t *testing.T) {
	for _, figures := range []bool{false, true} {
		var b strings.Builder
		printRuns(&b, figures)
		lines := strings.Split(strings.TrimSpace(b.String()), "\n")
		want := 0
		for _, r := range rows {
			if r.pkg != "" {
				want++
			}
		}
		if len(lines) != want {
			t.Fatalf("figures=%v: %d runs, want one a row but those measured by the row above (%d)", figures, len(lines), want)
		}
		hub := ""
		for _, l := range lines {
			if strings.Contains(l, "HubStartWithHistory") {
				hub = l
			}
		}
		if want := figures; strings.Contains(hub, "decided=10k") != want {
			t.Errorf("figures=%v: the hub start runs %q", figures, hub)
		}
	}
}
