package store

import "syscall"

// releaseMapped drops the page table entries of n bytes of a shared,
// read-only file map from addr (MADV_DONTNEED): the pages leave the
// process's resident set; the kernel keeps them cached with the file.
func releaseMapped(addr uintptr, n int64) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, addr, uintptr(n), syscall.MADV_DONTNEED); errno != 0 {
		return errno
	}
	return nil
}
