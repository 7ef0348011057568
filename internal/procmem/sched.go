package procmem

import (
	"math"
	"runtime/metrics"
	"time"
)

// RunnableWait is how long this process's goroutines have waited, runnable,
// for a CPU so far, summed, and how many such waits there were — from the
// runtime's histogram of scheduling latencies, each wait counted at its
// bucket's middle (at its lower bound in the last, open bucket). The mean
// wait between two readings, (w2-w1)/(n2-n1), says how long a goroutine
// made ready — a commit leader back from its fsync, a handler whose
// answer arrived — stands in line for one of the process's Ps.
func RunnableWait() (total time.Duration, waits uint64) {
	s := []metrics.Sample{{Name: "/sched/latencies:seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return 0, 0
	}
	h := s[0].Value.Float64Histogram()
	var sum float64
	for i, n := range h.Counts {
		if n == 0 {
			continue
		}
		lo, hi := max(h.Buckets[i], 0), h.Buckets[i+1]
		if math.IsInf(hi, 1) {
			hi = lo
		}
		sum += float64(n) * (lo + hi) / 2
		waits += n
	}
	return time.Duration(sum * float64(time.Second)), waits
}
