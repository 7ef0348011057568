// Package procmem reads what a process costs, for the tests and benchmarks
// that measure it: a Linux process's anonymous resident memory, from
// /proc/PID/status (the hub's memory: one parser of it), and this
// process's CPU time (the benchmarks' cpu-µs and cpu-ns per op: one reader
// of getrusage).
package procmem

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ErrStatus is a /proc/PID/status this package cannot read: no such
// process, not Linux, or a RssAnon line it does not understand.
var ErrStatus = errors.New("procmem: cannot read the process's status")

// AnonKiB is process pid's anonymous resident memory in KiB (RssAnon in
// /proc/PID/status): its heap, the heap's headroom, stacks and the
// runtime. That is the memory the process itself holds; the file-backed
// rest of its resident set (its binary, the database's map) is the
// kernel's page cache, shared, and let go of under pressure.
func AnonKiB(pid int) (int, error) {
	path := fmt.Sprintf("/proc/%d/status", pid)
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrStatus, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), "RssAnon:")
		if !ok {
			continue
		}
		kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		if err != nil {
			return 0, fmt.Errorf("%w: %s: %q: %w", ErrStatus, path, sc.Text(), err)
		}
		return kb, nil
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("%w: %s: %w", ErrStatus, path, err)
	}
	return 0, fmt.Errorf("%w: %s has no RssAnon line", ErrStatus, path)
}
