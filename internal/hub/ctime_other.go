//go:build !linux

package hub

import "os"

// changeTime is unknown here: size and modification time decide alone.
func changeTime(os.FileInfo) int64 { return 0 }
