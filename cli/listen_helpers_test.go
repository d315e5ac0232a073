package cli_test

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// delivery is one POST a local receiver got.
type delivery struct {
	path   string
	header http.Header
	body   []byte
}

// receiver is a local webhook receiver: it records every POST by path and answers 200, or
// the status set for a path.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    map[string][]delivery
	status map[string]int
}

func newReceiver(t *testing.T, status map[string]int) *receiver {
	r := &receiver{got: map[string][]delivery{}, status: status}
	r.Server = httptest.NewServer(r.handler())
	t.Cleanup(r.Close)
	return r
}

// newTLSReceiver is a receiver over HTTPS (webhook endpoints must be https), and the file of
// its certificate for webhooks.ca_file.
func newTLSReceiver(t *testing.T) (*receiver, string) {
	r := &receiver{got: map[string][]delivery{}}
	r.Server = httptest.NewTLSServer(r.handler())
	t.Cleanup(r.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	block := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: r.Certificate().Raw})
	if err := os.WriteFile(ca, block, 0o600); err != nil {
		t.Fatal(err)
	}
	return r, ca
}

func (r *receiver) handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got[req.URL.Path] = append(r.got[req.URL.Path], delivery{req.URL.Path, req.Header.Clone(), body})
		code := r.status[req.URL.Path]
		r.mu.Unlock()
		if code == 0 {
			code = http.StatusOK
		}
		w.WriteHeader(code)
	})
}

// at answers a copy of what path received so far.
func (r *receiver) at(path string) []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.got[path]...)
}

// waitFor polls cond until it holds, failing the test at the deadline.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// listenProc is one `app listen` process; its stdout is kept line by line.
type listenProc struct {
	proc
	stdout []string
}

var secretRE = regexp.MustCompile(`whsec_[0-9A-Za-z]{43}`)

// startListen runs the binary's listen command with args and extra environment, and waits
// for its banner; it answers the process and the session secret it printed.
func startListen(t *testing.T, env []string, args ...string) (*listenProc, string) {
	t.Helper()
	p := runListen(t, env, args...)
	var secret string
	waitFor(t, 20*time.Second, "the listen banner", func() bool {
		for _, line := range p.lines() {
			if m := secretRE.FindString(line); m != "" && strings.Contains(line, "secret") {
				secret = m
				return true
			}
		}
		select {
		case <-p.done:
			t.Fatalf("listen exited early: %v\n%s", p.err, p.log())
		default:
		}
		return false
	})
	return p, secret
}

func runListen(t *testing.T, env []string, args ...string) *listenProc {
	t.Helper()
	cmd := binCmd(t, t.TempDir(), env, append([]string{"listen"}, args...)...)
	p := &listenProc{}
	cmd.Stderr = syncWriter{&p.mu, &p.stderr}
	p.start(t, "listen", cmd, cmd.StdoutPipe, func(line string) {
		p.mu.Lock()
		p.stdout = append(p.stdout, line)
		p.mu.Unlock()
	})
	return p
}

func (p *listenProc) lines() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.stdout...)
}

// interrupt sends Ctrl-C and answers the exit code.
func (p *listenProc) interrupt() int { return p.signal(syscall.SIGINT) }

type syncWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (s syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// verifySignature checks x-webhook-signature as a receiver does, written here from the
// documented scheme (not with the server's own function): HMAC-SHA256 keyed with the whole
// secret over "<x-webhook-id>.<timestamp>.<body>", sent as "t=<timestamp>,v1=<hex>".
func verifySignature(secret string, h http.Header, body []byte) bool {
	ts := h.Get("x-webhook-timestamp")
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(h.Get("x-webhook-id") + "." + ts + "." + string(body)))
	want := "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
	return hmac.Equal([]byte(h.Get("x-webhook-signature")), []byte(want))
}

// streamBlock is one stored event of the organization stream.
type streamBlock struct {
	id, typ, data string
}

// storedEvents reads the organization stream's stored events after id `after`: the backlog
// ends where the first heartbeat comes (the server runs with a short heartbeat for this).
func storedEvents(t *testing.T, api, token string, after int64) []streamBlock {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", api+"/orgs/c/events/stream", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Last-Event-ID", strconv.FormatInt(after, 10))
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("event stream: %v %v", err, res)
	}
	defer res.Body.Close()
	var out []streamBlock
	var b streamBlock
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, ":") {
			return out
		}
		field, value, _ := strings.Cut(line, ": ")
		switch field {
		case "":
			if b.data != "" {
				out = append(out, b)
			}
			b = streamBlock{}
		case "id":
			b.id = value
		case "event":
			b.typ = value
		case "data":
			b.data = value
		}
	}
	t.Fatalf("event stream ended before a heartbeat: %v", sc.Err())
	return nil
}
