package procmem

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// Goroutines that outnumber the Ps wait for one: the waits RunnableWait
// counts grow, and so does their sum.
func TestRunnableWaitCountsWaitsForACPU(t *testing.T) {
	total0, waits0 := RunnableWait()
	var wg sync.WaitGroup
	for range 4 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for deadline := time.Now().Add(20 * time.Millisecond); time.Now().Before(deadline); {
				runtime.Gosched()
			}
		}()
	}
	wg.Wait()
	total1, waits1 := RunnableWait()
	if waits1 <= waits0 || total1 <= total0 {
		t.Fatalf("waits %d -> %d, summed %v -> %v: want both to grow", waits0, waits1, total0, total1)
	}
}
