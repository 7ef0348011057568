package hub

import (
	"os"
	"syscall"
)

// changeTime is the inode's change time in Unix nanoseconds, which no user
// can set back (a rewrite that restores the modification time still moves
// it).
func changeTime(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Nano()
	}
	return 0
}
