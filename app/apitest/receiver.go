package apitest

import (
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Received is one request a Receiver got.
type Received struct {
	Header http.Header
	Body   []byte
	At     time.Time
}

// Receiver is a real local HTTPS webhook endpoint. It answers 200 unless told otherwise and
// records every request.
type Receiver struct {
	*httptest.Server
	got      *arrivals[Received]
	mu       sync.Mutex // guards respond
	respond  http.HandlerFunc
	shutdown chan struct{}
}

// NewReceiver starts a TLS receiver; its certificate is the one every httptest TLS server
// uses, which the harness trusts through webhooks.ca_file.
func NewReceiver(t testing.TB) *Receiver {
	t.Helper()
	r := &Receiver{got: newArrivals[Received](1 << 16), shutdown: make(chan struct{})}
	r.respond = func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }
	r.Server = httptest.NewTLSServer(http.HandlerFunc(r.serve))
	t.Cleanup(func() {
		close(r.shutdown)
		r.Server.Close()
	})
	return r
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	respond := r.respond // the answer set when the request came, even if a waiter changes it
	r.mu.Unlock()
	r.got.add(Received{Header: req.Header.Clone(), Body: body, At: time.Now()})
	respond(w, req)
}

// Respond sets how the receiver answers from now on.
func (r *Receiver) Respond(h http.HandlerFunc) {
	r.mu.Lock()
	r.respond = h
	r.mu.Unlock()
}

// Status makes the receiver answer code.
func (r *Receiver) Status(code int) {
	r.Respond(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) })
}

// Hang makes the receiver hold every request until the client gives up or the test ends.
func (r *Receiver) Hang() {
	r.Respond(func(w http.ResponseWriter, req *http.Request) {
		select {
		case <-req.Context().Done():
		case <-r.shutdown:
		}
	})
}

// Requests is a copy of what arrived so far.
func (r *Receiver) Requests() []Received { return r.got.all() }

// Wait blocks until n requests have arrived in all, failing the test after timeout.
func (r *Receiver) Wait(t testing.TB, n int, timeout time.Duration) []Received {
	t.Helper()
	return r.got.wait(t, n, timeout, "receiver", "request(s)")
}

// Envelopes answers the event envelopes that arrived so far, decoded; each must be JSON and
// name the type its x-webhook-event header says.
func (r *Receiver) Envelopes(t testing.TB) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, req := range r.Requests() {
		var env map[string]any
		if err := json.Unmarshal(req.Body, &env); err != nil {
			t.Fatalf("envelope is not JSON: %s", req.Body)
		}
		if env["type"] != req.Header.Get("x-webhook-event") {
			t.Errorf("envelope type %v, header %q", env["type"], req.Header.Get("x-webhook-event"))
		}
		out = append(out, env)
	}
	return out
}

// WaitEnvelope waits for the n-th request (1-based) and answers its envelope.
func (r *Receiver) WaitEnvelope(t testing.TB, n int) map[string]any {
	t.Helper()
	r.Wait(t, n, 5*time.Second)
	return r.Envelopes(t)[n-1]
}

// Quiet fails the test if more than n requests arrive within d.
func (r *Receiver) Quiet(t testing.TB, n int, d time.Duration) {
	t.Helper()
	time.Sleep(d)
	if got := len(r.Requests()); got > n {
		t.Fatalf("receiver: %d request(s), want no more than %d", got, n)
	}
}

var (
	caOnce sync.Once
	caPEM  []byte
)

// testCAFile writes the certificate of httptest's TLS servers as a PEM file.
func testCAFile(t testing.TB) string {
	caOnce.Do(func() {
		srv := httptest.NewUnstartedServer(http.NotFoundHandler())
		srv.StartTLS()
		caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
		srv.Close()
	})
	path := filepath.Join(t.TempDir(), "receivers-ca.pem")
	if err := os.WriteFile(path, caPEM, 0o600); err != nil {
		t.Fatalf("apitest: write CA: %v", err)
	}
	return path
}
