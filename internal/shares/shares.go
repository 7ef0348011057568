// Package shares splits independent work over a slice across the
// processors: a large list's decoding is most of its time, and each
// record decodes alone.
package shares

import (
	"runtime"
	"sync"
)

// Do calls do once for each share of the indices [0, n), in parallel, one
// share per processor (GOMAXPROCS), each share at least `least` indices
// long; with fewer than two such shares it calls do(0, n) on the caller's
// goroutine. It returns the error of the first share, in index order, that
// failed.
func Do(n, least int, do func(lo, hi int) error) error {
	k := min(runtime.GOMAXPROCS(0), n/max(least, 1))
	if k < 2 {
		return do(0, n)
	}
	errs := make([]error, k)
	var wg sync.WaitGroup
	for i := range k {
		wg.Go(func() { errs[i] = do(i*n/k, (i+1)*n/k) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
