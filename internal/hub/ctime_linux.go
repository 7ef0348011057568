package hub

import (
	"os"
	"syscall"
	"time"
)

// changeTime is the inode's change time, which no user can set back (a
// rewrite that restores the modification time still moves it).
func changeTime(fi os.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Ctim.Unix())
	}
	return time.Time{}
}
