package api

import (
	"bufio"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"wsapi/app"
)

// TestStreamRenewsWriteDeadline: behind the API's middleware, a streaming handler renews its
// write deadline with http.ResponseController before each event and streams past the
// server's WriteTimeout; one that does not is cut at it (docs/operations.md, "Streaming
// routes").
func TestStreamRenewsWriteDeadline(t *testing.T) {
	t.Parallel()
	log := slog.New(slog.DiscardHandler)
	s := New(app.NewService(app.Deps{Log: log}), nil, Config{}, log)
	const writeTimeout, events = 300 * time.Millisecond, 6
	stream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range events {
			if r.URL.Query().Get("renew") != "" {
				if err := rc.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil {
					t.Errorf("SetWriteDeadline through the middleware: %v", err)
					return
				}
			}
			fmt.Fprintf(w, "data: %d\n\n", i)
			if rc.Flush() != nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	srv := httptest.NewUnstartedServer(s.wrap(stream))
	srv.Config.WriteTimeout = writeTimeout
	srv.Start()
	defer srv.Close()

	count := func(query string) int {
		res, err := srv.Client().Get(srv.URL + "/stream" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		n := 0
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "data:") {
				n++
			}
		}
		return n
	}
	if n := count("?renew=1"); n != events {
		t.Errorf("renewing stream got %d events, want %d", n, events)
	}
	if n := count(""); n >= events {
		t.Errorf("a stream that keeps the server's deadline got all %d events past WriteTimeout", n)
	}
}
