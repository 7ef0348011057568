// Package procmem reads what a process costs, for the tests and benchmarks
// that measure it: how much of a Linux process's memory is resident, from
// /proc (the store's page release, the hub's memory: one parser of
// /proc/PID/smaps), and this process's CPU time (the benchmarks' cpu-µs
// and cpu-ns per op: one reader of getrusage).
package procmem

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ErrSmaps is a /proc/PID/smaps this package cannot read: no such process,
// not Linux, or a line it does not understand.
var ErrSmaps = errors.New("procmem: cannot read the process's smaps")

// MappedKiB is how much of file's mappings in process pid is resident, in
// KiB: the sum of the Rss lines of every mapping of file in
// /proc/PID/smaps. A file the process has not mapped is 0.
func MappedKiB(pid int, file string) (int, error) {
	path := fmt.Sprintf("/proc/%d/smaps", pid)
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrSmaps, err)
	}
	defer f.Close()
	total, in := 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) >= 5 && strings.Contains(fields[0], "-") && len(fields[1]) == 4:
			// A mapping's header: address range, permissions, offset,
			// device, inode, and the path of a file mapping.
			in = len(fields) >= 6 && strings.Join(fields[5:], " ") == file
		case in && len(fields) == 3 && fields[0] == "Rss:":
			kb, err := strconv.Atoi(fields[1])
			if err != nil {
				return 0, fmt.Errorf("%w: %s: %q: %w", ErrSmaps, path, sc.Text(), err)
			}
			total += kb
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("%w: %s: %w", ErrSmaps, path, err)
	}
	return total, nil
}
