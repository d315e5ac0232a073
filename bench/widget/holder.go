package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"
)

// holdEnv marks the re-executed bench that holds the visitors' streams: a process apart from
// the one that times the API, so that what holding 5,000 streams costs the client (its
// garbage collector scanning 5,000 goroutines and their buffers) does not count as the
// server's latency.
const holdEnv = "BENCH_WIDGET_HOLD"

// holder is the process holding streams open.
type holder struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

// hold starts a holder for the sessions' tokens and waits until every stream is open.
func (b *bench) hold(tokens []string) (*holder, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), holdEnv+"=1", "HOLD_BASE="+b.base, "HOLD_ASI="+b.asi)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	h := &holder{cmd: cmd, stdin: stdin}
	if _, err := io.WriteString(stdin, strings.Join(tokens, "\n")+"\n\n"); err != nil {
		h.stop()
		return nil, err
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "open") {
		h.stop()
		return nil, fmt.Errorf("holder: %q %v", line, err)
	}
	return h, nil
}

// stop closes the holder's streams (it exits when its standard input ends).
func (h *holder) stop() {
	h.stdin.Close()
	_ = h.cmd.Wait()
}

// holdStreams is the holder's side: it reads tokens up to an empty line, opens a stream for
// each, says "open N" and keeps them until its standard input ends.
func holdStreams() error {
	b := &bench{base: os.Getenv("HOLD_BASE"), asi: os.Getenv("HOLD_ASI"),
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}}
	in := bufio.NewScanner(os.Stdin)
	var tokens []string
	for in.Scan() && in.Text() != "" {
		tokens = append(tokens, in.Text())
	}
	streams, err := parallel(len(tokens), func(i int) (*stream, error) { return b.open(tokens[i]) })
	if err != nil {
		return err
	}
	fmt.Printf("open %d\n", len(streams))
	for in.Scan() { // until the bench closes our input
	}
	for _, s := range streams {
		if s != nil {
			s.Close()
		}
	}
	return nil
}

// settle waits until the server's goroutines are back within 50 of want (the streams of a
// holder that left have ended), at most 10 s.
func (s *server) settle(want int) {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if m, err := s.memStats(); err == nil && m.goroutines <= want+50 {
			return
		}
	}
}
