package cli_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// proc is one run of the app binary in a test (serve, listen): its stderr kept, its exit
// awaited once, and killed at the test's end if it still runs.
type proc struct {
	t      *testing.T
	name   string // the command, for failure messages
	cmd    *exec.Cmd
	mu     sync.Mutex
	stderr bytes.Buffer
	done   chan struct{}
	err    error
}

// binCmd is the binary run with args in dir, in the test's environment less its APP_
// variables (a developer's settings must not leak in), plus env.
func binCmd(t *testing.T, dir string, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(appBinary(t), args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "APP_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// start starts cmd and hands each line of the output pipe opens (its stdout or its stderr)
// to line, until the process exits.
func (p *proc) start(t *testing.T, name string, cmd *exec.Cmd, pipe func() (io.ReadCloser, error), line func(string)) {
	t.Helper()
	p.t, p.name, p.cmd, p.done = t, name, cmd, make(chan struct{})
	out, err := pipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line(sc.Text())
		}
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = cmd.Process.Kill()
			<-p.done
		}
	})
}

// log is what the process wrote to stderr so far.
func (p *proc) log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// signal sends sig and answers the exit code.
func (p *proc) signal(sig os.Signal) int {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatal(err)
	}
	return p.wait()
}

// wait answers the exit code; a process still running after 20 s fails the test.
func (p *proc) wait() int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		p.t.Fatalf("%s did not exit:\n%s", p.name, p.log())
	}
	var exit *exec.ExitError
	if errors.As(p.err, &exit) {
		return exit.ExitCode()
	}
	if p.err != nil {
		p.t.Fatal(p.err)
	}
	return 0
}
