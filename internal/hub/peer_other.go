//go:build !linux

package hub

import (
	"net"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// peerUID is unknown where SO_PEERCRED is not available: an operator bound
// to a uid is then refused, never let through unchecked.
func peerUID(net.Conn) int { return hubapi.NoUID }

// peerPID is unknown (0) where SO_PEERCRED is not available: every peer
// then shares one per-process connection budget.
func peerPID(net.Conn) int { return 0 }
