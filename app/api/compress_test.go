package api

import (
	"bufio"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"wsapi/app"
)

// TestCompressLeavesEventStreamsUnbuffered: an SSE answer reaches the client event by event,
// uncompressed, even when the client accepts gzip: each event is read while the handler
// still waits to send the next.
func TestCompressLeavesEventStreamsUnbuffered(t *testing.T) {
	t.Parallel()
	s := &Server{cfg: Config{RateLimitPerMinute: 1000, Ops: Ops{Compress: true, Metrics: NewMetrics(), CORSOrigins: []string{"*"}}},
		log: slog.New(slog.DiscardHandler), access: slog.New(slog.DiscardHandler), limiter: newIPLimiter(1000, app.SystemClock{})}
	next := make(chan struct{})
	sse := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 2 {
			w.Write([]byte("data: event " + itoa(i) + "\n\n"))
			http.NewResponseController(w).Flush()
			select {
			case <-next:
			case <-r.Context().Done():
				return
			case <-time.After(10 * time.Second): // the test failed; do not hold its server
				return
			}
		}
	})
	// Through the compressor alone, and through the whole middleware chain (whose wrappers
	// must all let http.ResponseController reach the connection's Flush).
	for name, h := range map[string]http.Handler{"compress": s.compress(sse), "chain": s.wrap(sse)} {
		t.Run(name, func(t *testing.T) { checkStreams(t, h, next) })
	}
}

func checkStreams(t *testing.T, h http.Handler, next chan struct{}) {
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, c := range []struct{ name, path, accept string }{
		{"Accept: text/event-stream", "/anything", "text/event-stream"},
		{"a .../stream route", "/orgs/c/events/stream", ""},
		{"only the Content-Type", "/anything", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", srv.URL+c.path, nil)
			req.Header.Set("Accept-Encoding", "gzip")
			if c.accept != "" {
				req.Header.Set("Accept", c.accept)
			}
			res, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			if ce := res.Header.Get("Content-Encoding"); ce != "" {
				t.Fatalf("event stream compressed: %q", ce)
			}
			line := make(chan string, 1)
			go func() {
				l, _ := bufio.NewReader(res.Body).ReadString('\n')
				line <- l
			}()
			select {
			case l := <-line:
				if !strings.HasPrefix(l, "data: event 0") {
					t.Fatalf("first line %q", l)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the first event was held back")
			}
			next <- struct{}{}
			next <- struct{}{}
		})
	}
}
