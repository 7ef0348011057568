//go:build !linux

package etcdcluster

import "syscall"

// dieWithParent: only Linux can tie a child's life to its parent's; here
// the test's cleanup alone ends the members.
func dieWithParent() *syscall.SysProcAttr { return nil }
