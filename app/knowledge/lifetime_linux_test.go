package knowledge_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"wsapi/app/knowledge"
)

// parentEnv makes this test binary the server of TestExtractionChildDiesWithItsServer: it
// runs a hanging parse through the real Extractor, marked with the variable's value.
const parentEnv = "WSAPI_TEST_EXTRACT_PARENT"

// TestMain lets the test binary play the server whose child must die with it.
func TestMain(m *testing.M) {
	if owner := os.Getenv(parentEnv); owner != "" {
		x := &knowledge.Extractor{Owner: owner, Limits: knowledge.Limits{Time: time.Minute, Pages: 1<<31 - 1, Bytes: 10 << 20}}
		data, _ := os.ReadFile("testdata/pdf/count_huge.pdf")
		_, err := x.Extract(context.Background(), "application/pdf", data, nil)
		fmt.Fprintln(os.Stderr, "extract returned:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// waitFor polls cond for up to d.
func waitFor(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// TestExtractionChildDiesWithItsServer: a server (this binary, re-run) parses a PDF that
// keeps its child at full CPU; kill -9 of the server ends the child too, at once, instead
// of leaving it to run past its limit.
func TestExtractionChildDiesWithItsServer(t *testing.T) {
	owner := fmt.Sprintf("test-parent-%d-%d", os.Getpid(), time.Now().UnixNano())
	server := exec.Command(os.Args[0], "-test.run=^$")
	server.Env = append(os.Environ(), parentEnv+"="+owner)
	server.Stderr = os.Stderr
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // whatever happens, nothing of this test keeps running
		_ = server.Process.Kill()
		_ = server.Wait()
		for _, pid := range knowledge.ChildrenOf(owner) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	var child []int
	if !waitFor(20*time.Second, func() bool { child = knowledge.ChildrenOf(owner); return len(child) == 1 }) {
		t.Fatalf("the server's extraction child never showed up (found %v)", child)
	}
	// Killed while the child still reads its file, the child would die of the closed pipe
	// anyway; the case to prove is a child deep in a parse, so wait until it has burnt CPU.
	if !waitFor(20*time.Second, func() bool { return cpuTicks(child[0]) >= 30 }) {
		t.Fatalf("the extraction child never got busy (%d ticks)", cpuTicks(child[0]))
	}
	if err := server.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = server.Wait()
	if !waitFor(5*time.Second, func() bool { return !alive(child[0]) }) {
		t.Fatalf("extraction child %d still runs 5 s after its server was killed", child[0])
	}
}

// stat answers the fields of /proc/pid/stat after the command's name (the state first),
// none when the process is gone.
func stat(pid int) []string {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	return strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
}

// alive tells whether pid is a running process (a zombie waiting for its reaper is not).
func alive(pid int) bool {
	f := stat(pid)
	return len(f) > 0 && f[0] != "Z"
}

// cpuTicks is the CPU time pid has used (user and system), in clock ticks.
func cpuTicks(pid int) int {
	f := stat(pid)
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.Atoi(f[11])
	s, _ := strconv.Atoi(f[12])
	return u + s
}

// TestSweepEndsChildrenLeftByADeadServer: children marked with the extractor's owner (here
// started by hand, waiting on a stdin nobody writes, as an orphan would hold on) are killed
// by SweepLeftovers; a child of another owner, and one started unmarked, are left alone.
func TestSweepEndsChildrenLeftByADeadServer(t *testing.T) {
	owner := fmt.Sprintf("test-sweep-%d-%d", os.Getpid(), time.Now().UnixNano())
	spec := `WSAPI_EXTRACT_CHILD={"mimetype":"application/pdf","max_pages":1,"max_bytes":1048576,"memory_bytes":268435456}`
	start := func(marker string) *exec.Cmd {
		cmd := exec.Command(os.Args[0])
		cmd.Env = []string{spec}
		if marker != "" {
			cmd.Env = append(cmd.Env, "WSAPI_EXTRACT_OWNER="+marker)
		}
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { stdin.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	left1, left2 := start(owner), start(owner)
	other, unmarked := start(owner+"-other"), start("")

	n, err := (&knowledge.Extractor{Owner: owner}).SweepLeftovers()
	if err != nil || n != 2 {
		t.Fatalf("swept %d (%v), want the 2 marked children", n, err)
	}
	for _, c := range []*exec.Cmd{left1, left2} {
		err := c.Wait()
		if ws, ok := c.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Errorf("leftover %d ended with %v, want killed", c.Process.Pid, err)
		}
	}
	for _, c := range []*exec.Cmd{other, unmarked} {
		if !alive(c.Process.Pid) {
			t.Errorf("child %d of another owner was ended", c.Process.Pid)
		}
	}
	if got := knowledge.ChildrenOf(owner); len(got) != 0 {
		t.Errorf("children of the owner after the sweep: %v", got)
	}
	if n, _ := (&knowledge.Extractor{}).SweepLeftovers(); n != 0 {
		t.Errorf("an extractor without an owner swept %d", n)
	}
}
