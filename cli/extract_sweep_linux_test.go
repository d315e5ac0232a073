package cli_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"wsapi/cli"
)

// TestServeEndsExtractionChildrenADeadServerLeft: an extraction child marked with this
// database (as a killed server's would be, here waiting on a stdin nobody writes) is killed
// when serve starts on that database, with a WARN line saying how many.
func TestServeEndsExtractionChildrenADeadServerLeft(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "app.db")
	child := exec.Command(os.Args[0])
	child.Env = []string{`WSAPI_EXTRACT_CHILD={"mimetype":"application/pdf","max_pages":1,"max_bytes":1048576,"memory_bytes":268435456}`,
		"WSAPI_EXTRACT_OWNER=" + db}
	stdin, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); _ = child.Process.Kill() })

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	cmd := cli.NewRootCmd()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs([]string{"serve", "--addr", "127.0.0.1:0", "--db", db})
	if err := cmd.ExecuteContext(ctx); err != nil {
		t.Fatalf("serve: %v\n%s", err, errOut.String())
	}
	ended := make(chan struct{})
	go func() { _ = child.Wait(); close(ended) }()
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the leftover child still runs after serve started on its database")
	}
	if ws, ok := child.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("the leftover child ended with %v, want killed", child.ProcessState)
	}
	if !strings.Contains(errOut.String(), `level=WARN msg="knowledge: ended extraction children a previous server left running" count=1`) {
		t.Errorf("no WARN line for the sweep:\n%s", errOut.String())
	}
}
