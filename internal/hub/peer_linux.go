package hub

import (
	"net"
	"syscall"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// peerUID returns the Unix user on the other end of a socket connection,
// from the kernel (SO_PEERCRED), so it cannot be claimed by the peer.
func peerUID(c net.Conn) int {
	uid, _ := peerCred(c)
	return uid
}

// peerPID returns the process on the other end of a socket connection, as
// the kernel saw it connect (SO_PEERCRED), or 0 when it cannot be read.
func peerPID(c net.Conn) int {
	_, pid := peerCred(c)
	return pid
}

// peerCred reads the peer's credentials once: its uid (hubapi.NoUID when
// unknown) and its pid (0 when unknown).
func peerCred(c net.Conn) (uid, pid int) {
	uid = hubapi.NoUID
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return uid, 0
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return uid, 0
	}
	_ = raw.Control(func(fd uintptr) {
		if cred, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED); err == nil {
			uid, pid = int(cred.Uid), int(cred.Pid)
		}
	})
	return uid, pid
}
