package hub

import (
	"net"
	"syscall"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// peerUID returns the Unix user on the other end of a socket connection,
// from the kernel (SO_PEERCRED), so it cannot be claimed by the peer.
func peerUID(c net.Conn) int {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return hubapi.NoUID
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return hubapi.NoUID
	}
	uid := hubapi.NoUID
	_ = raw.Control(func(fd uintptr) {
		if cred, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED); err == nil {
			uid = int(cred.Uid)
		}
	})
	return uid
}
