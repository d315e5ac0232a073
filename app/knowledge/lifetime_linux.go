package knowledge

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// childProcAttr ties the child's life to the server's: the kernel sends it SIGKILL when the
// thread that started it ends, which for Go's runtime (its threads live as long as the
// process) is when the server dies, kill -9 included. The child closes the gap between its
// fork and this setting itself (childMain compares its parent with the one asked for).
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// childrenOf answers the pids of the extraction children marked with owner: processes of
// this user whose starting environment holds both childEnv and childOwnerEnv=owner.
// Processes of other users cannot be read and are none of ours.
func childrenOf(owner string) []int {
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	marker := []byte(childOwnerEnv + "=" + owner)
	var out []int
	for _, p := range procs {
		env, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		vars := bytes.Split(env, []byte{0})
		if !hasVar(vars, []byte(childEnv+"=")) || !hasExact(vars, marker) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil && pid != os.Getpid() {
			out = append(out, pid)
		}
	}
	return out
}

func hasVar(vars [][]byte, prefix []byte) bool {
	for _, v := range vars {
		if bytes.HasPrefix(v, prefix) {
			return true
		}
	}
	return false
}

func hasExact(vars [][]byte, want []byte) bool {
	for _, v := range vars {
		if bytes.Equal(v, want) {
			return true
		}
	}
	return false
}

// killChild ends a leftover child.
func killChild(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }
