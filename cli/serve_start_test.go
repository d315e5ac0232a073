package cli_test

import (
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A second `serve` on the same database refuses with a clear message; admin commands still
// work beside the running server.
func TestServeRefusesASecondServerOnOneDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "app.db")
	first := startServe(t, dir, db)
	out, err := exec.Command(appBinary(t), "serve", "--addr", "127.0.0.1:0", "--db", db).CombinedOutput()
	if code := exitCode(err); code != 1 || !strings.Contains(string(out), "another `app serve` is already running on "+db) {
		t.Fatalf("second serve: exit %d\n%s", code, out)
	}
	if out, err := exec.Command(appBinary(t), "keys", "create", "--name", "beside", "--db", db).CombinedOutput(); err != nil ||
		!strings.Contains(string(out), "sk_") {
		t.Fatalf("keys create beside a running server: %v\n%s", err, out)
	}
	if code := first.stop(); code != 0 {
		t.Fatalf("first server exit %d", code)
	}
	// The lock goes with the process: a new server starts.
	startServe(t, dir, db).stop()
}

// A port that is taken fails the start before the first-start banner, so the only showing of
// the first admin token is not spent on a server that never ran.
func TestServePortTakenShowsNoToken(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "app.db")
	out, err := exec.Command(appBinary(t), "serve", "--addr", taken.Addr().String(), "--db", db).CombinedOutput()
	if code := exitCode(err); code != 1 || !strings.Contains(string(out), "listen "+taken.Addr().String()) ||
		strings.Contains(string(out), "sk_") || strings.Contains(string(out), "First start") {
		t.Fatalf("serve on a taken port: exit %d\n%s", code, out)
	}
	if s := startServe(t, dir, db); !strings.Contains(s.log(), "First start") {
		t.Fatalf("the next start on a free port shows no token:\n%s", s.log())
	}
}

// A database whose directory is missing or unwritable names the path and the cause.
func TestServeNamesAnUnopenableDatabase(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "missing", "app.db")
	out, err := exec.Command(appBinary(t), "serve", "--addr", "127.0.0.1:0", "--db", db).CombinedOutput()
	if code := exitCode(err); code != 1 || !strings.Contains(string(out), db) || !strings.Contains(string(out), "no such file or directory") {
		t.Fatalf("serve on a missing directory: exit %d\n%s", code, out)
	}
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
