package etcdcluster

import "syscall"

// dieWithParent has the kernel kill a member when the test process dies
// (a test binary killed by its timeout runs no cleanup), so no etcd
// outlives its test.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
