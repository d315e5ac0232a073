package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"wsapi/app/janitor"
	"wsapi/cli"
)

// TestRuntimeStopIsBounded: a worker stuck in its task (ignoring its context) does not hold
// Stop past its deadline, and Close after that does not wait for it again.
func TestRuntimeStopIsBounded(t *testing.T) {
	cfg := cli.DefaultConfig()
	cfg.DB.Path = filepath.Join(t.TempDir(), "app.db")
	rt, err := cli.Build(context.Background(), cfg, cli.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stuck, release := make(chan struct{}), make(chan struct{})
	rt.Janitor.Tasks = append(rt.Janitor.Tasks, janitor.Task{Name: "stuck", Run: func(context.Context) (int, error) {
		close(stuck)
		<-release // deliberately deaf to the context
		return 0, nil
	}})
	rt.Start()
	<-stuck
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = rt.Stop(ctx)
	if err == nil || time.Since(start) > 2*time.Second {
		t.Fatalf("Stop answered %v after %v", err, time.Since(start))
	}
	closed := make(chan error, 1)
	go func() { closed <- rt.Close() }()
	select {
	case err := <-closed:
		if err == nil {
			t.Error("Close closed the database under a running worker")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Close waited for the stuck worker")
	}
	close(release)
	rt.DB.Close()
}

// upload posts a FILE to an assistant of the running binary and answers the content id.
func uploadFile(t *testing.T, s *serveProc, token, asst, name string, data []byte) string {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	fw, _ := w.CreateFormFile("file", name)
	_, _ = fw.Write(data)
	_ = w.Close()
	req, _ := http.NewRequest("POST", "http://"+s.addr+"/orgs/c/assistants/"+asst+"/knowledge/contents", &body)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", w.FormDataContentType())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var k struct{ ID string }
	if err := json.NewDecoder(res.Body).Decode(&k); err != nil || res.StatusCode != 201 {
		t.Fatalf("upload: %d %v", res.StatusCode, err)
	}
	return k.ID
}

// children lists the processes whose parent is pid.
func children(pid int) []int {
	var out []int
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
		fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			id, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
			out = append(out, id)
		}
	}
	return out
}

// alive tells whether a process exists and is not a zombie.
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// TestServeExitsWithinTheBoundWhileAPDFHangs: the real binary is extracting a PDF that would
// keep the parser busy for ten minutes (the page limit lifted); SIGTERM ends the extraction
// child and the process within http.shutdown_timeout.
func TestServeExitsWithinTheBoundWhileAPDFHangs(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to find the extraction child")
	}
	t.Parallel()
	dir := t.TempDir()
	s := startServe(t, dir, filepath.Join(dir, "app.db"), "APP_KNOWLEDGE_MAX_PAGES_PER_FILE=2147483647",
		"APP_KNOWLEDGE_MAX_EXTRACT_SECONDS=600", "APP_KNOWLEDGE_TICK=20ms", "APP_HTTP_SHUTDOWN_TIMEOUT=5s")
	token := bannerTokenRE.FindString(s.log())
	req, _ := http.NewRequest("POST", "http://"+s.addr+"/orgs/c/assistants", strings.NewReader(`{"name":"Helper"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var asst struct{ ID string }
	_ = json.NewDecoder(res.Body).Decode(&asst)
	res.Body.Close()
	pdf, err := os.ReadFile(filepath.Join("testdata", "pdf", "count_huge.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	uploadFile(t, s, token, asst.ID, "huge.pdf", pdf)
	var child int
	for deadline := time.Now().Add(10 * time.Second); child == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no extraction child started:\n%s", s.log())
		}
		if kids := children(s.cmd.Process.Pid); len(kids) > 0 {
			child = kids[0]
		}
	}
	time.Sleep(300 * time.Millisecond) // the child is deep in the page loop
	start := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := s.wait(); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, s.log())
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("exited after %v, past http.shutdown_timeout", took)
	}
	t.Logf("exited %v after SIGTERM", time.Since(start))
	for deadline := time.Now().Add(2 * time.Second); alive(child); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the extraction child %d outlived the server", child)
		}
	}
}

// TestServeDrainIsBounded: a request whose body never finishes arriving does not keep the
// process alive past http.shutdown_timeout; its connection is closed and the process exits 0.
func TestServeDrainIsBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServe(t, dir, filepath.Join(dir, "app.db"), "APP_HTTP_SHUTDOWN_TIMEOUT=1s")
	token := bannerTokenRE.FindString(s.log())
	conn, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /orgs/c/members HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"name\":", s.addr, token)
	time.Sleep(100 * time.Millisecond) // the handler is reading the body
	start := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := s.wait(); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, s.log())
	}
	if took := time.Since(start); took < time.Second || took > 4*time.Second {
		t.Fatalf("exited %v after SIGTERM, want just past the 1s bound:\n%s", took, s.log())
	}
	if !strings.Contains(s.log(), "requests still in flight at the timeout") {
		t.Errorf("the cut is not logged:\n%s", s.log())
	}
}

// TestSecondSignalExitsAtOnce: while the first SIGTERM's drain waits on a request whose body
// never finishes (shutdown_timeout a minute away), a second SIGTERM ends the process at once,
// by the signal, as an operator pressing Ctrl-C twice expects.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServe(t, dir, filepath.Join(dir, "app.db"), "APP_HTTP_SHUTDOWN_TIMEOUT=60s")
	token := bannerTokenRE.FindString(s.log())
	conn, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Expect: 100-continue makes the server say when the handler reads the body: only then is
	// the request surely in flight (a connection still in the listen queue would be dropped
	// by the drain, which would then end at once).
	head := fmt.Sprintf("POST /orgs/c/members HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n", s.addr, token)
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if line, err := bufio.NewReader(conn).ReadString('\n'); err != nil || !strings.HasPrefix(line, "HTTP/1.1 100") {
		t.Fatalf("no 100 Continue: %q %v", line, err)
	}
	if _, err := io.WriteString(conn, `{"name":`); err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(s.log(), "shutting down") {
		if time.Now().After(deadline) {
			t.Fatalf("no drain began after SIGTERM:\n%s", s.log())
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case <-s.done:
		t.Fatalf("exited with a request in flight after one signal:\n%s", s.log())
	default:
	}
	start := time.Now()
	// The first signal's handler lets go of the signals just after the drain begins; repeat
	// until the default action ends the process.
	for exited := false; !exited; {
		if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
			t.Fatal(err)
		}
		select {
		case <-s.done:
			exited = true
		case <-time.After(100 * time.Millisecond):
			if time.Since(start) > 10*time.Second {
				t.Fatalf("still running 10 s after the second SIGTERM:\n%s", s.log())
			}
		}
	}
	var exit *exec.ExitError
	if !errors.As(s.err, &exit) {
		t.Fatalf("exit %v, want death by SIGTERM", s.err)
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Fatalf("exit status %v, want killed by SIGTERM", exit)
	}
}
