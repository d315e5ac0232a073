//go:build !linux

package knowledge

import "syscall"

// childProcAttr: only Linux can tie a child's life to its parent's (Pdeathsig); elsewhere a
// child outlives a killed server until its own time limit check fails it (childMain's parent
// check covers only its start).
func childProcAttr() *syscall.SysProcAttr { return nil }

// childrenOf finds nothing where there is no /proc to read.
func childrenOf(string) []int { return nil }

func killChild(int) error { return nil }
