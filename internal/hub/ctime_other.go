//go:build !linux

package hub

import (
	"os"
	"time"
)

// changeTime is unknown here: size and modification time decide alone.
func changeTime(os.FileInfo) time.Time { return time.Time{} }
