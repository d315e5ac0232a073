package cli_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestOneKeyCannotLockOutTheServer is the audit's lock-out against the real binary: one key
// whose role holds no permission opens more streams than the server has connections. It
// holds its cap (events.max_streams_per_key, 50 by default) and every further stream is
// refused at once with 429, so /healthz and another key's requests are answered all along.
// Then a key deleted by another process (`app keys delete`) ends its open stream within a
// second.
func TestOneKeyCannotLockOutTheServer(t *testing.T) {
	t.Parallel()
	raiseFileLimit(t, 1024)
	dir := t.TempDir()
	db := filepath.Join(dir, "app.db")
	s := startServe(t, dir, db, "APP_HTTP_MAX_CONNECTIONS=120", "APP_EVENTS_MAX_STREAMS=100", "APP_HTTP_RATE_LIMIT_PER_MINUTE=0")
	defer s.stop()
	admin := bannerTokenRE.FindString(s.log())
	base := "http://" + s.addr
	_, role := call(t, "POST", base+"/orgs/c/roles", admin, map[string]any{"name": "nothing", "permissions": []string{}})
	_, member := call(t, "POST", base+"/orgs/c/members", admin, map[string]any{"name": "Nobody", "email": "nobody@example.com", "role": role["id"]})
	_, key := call(t, "POST", base+"/orgs/c/keys", admin, map[string]any{"name": "flood", "member_id": member["id"]})
	token, _ := key["token"].(string)

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 200}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for range 130 { // more than http.max_connections
		wg.Go(func() {
			// An attempt not answered within 5 s (left waiting for a connection slot) fails.
			rctx, rcancel := context.WithCancel(ctx)
			timer := time.AfterFunc(5*time.Second, rcancel)
			req, _ := http.NewRequestWithContext(rctx, "GET", base+"/orgs/c/events/stream", nil)
			req.Header.Set("Authorization", "Bearer "+token)
			res, err := client.Do(req)
			timer.Stop()
			status := -1
			if err == nil {
				status = res.StatusCode
				if status != 200 {
					res.Body.Close()
				}
			}
			mu.Lock()
			statuses[status]++
			mu.Unlock()
		})
	}
	wg.Wait() // every attempt was answered: 200 (held open) or 429 (closed)
	if statuses[200] != 50 || statuses[429] != 80 {
		t.Fatalf("130 streams of one key: %v, want 50 open and 80 refused with 429", statuses)
	}
	quick := &http.Client{Timeout: 2 * time.Second}
	if status, _ := callWith(t, quick, "GET", base+"/healthz", "", nil); status != 200 {
		t.Fatalf("/healthz beside the key's streams: %d", status)
	}
	if status, _ := callWith(t, quick, "GET", base+"/orgs/c", admin, nil); status != 200 {
		t.Fatalf("another key beside the streams: %d", status)
	}
	cancel()

	// Revocation from another process reaches an open stream.
	_, spare := call(t, "POST", base+"/orgs/c/keys", admin, map[string]any{"name": "watcher"})
	req, _ := http.NewRequest("GET", base+"/orgs/c/events/stream", nil)
	req.Header.Set("Authorization", "Bearer "+spare["token"].(string))
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("open a stream: %v %v", res, err)
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		buf := make([]byte, 512)
		for {
			if _, err := res.Body.Read(buf); err != nil {
				return
			}
		}
	}()
	if out, err := binCmd(t, dir, nil, "keys", "delete", spare["id"].(string), "--db", db).CombinedOutput(); err != nil {
		t.Fatalf("app keys delete: %v\n%s", err, out)
	}
	select {
	case <-ended:
	case <-time.After(time.Second):
		t.Fatalf("the stream of a key deleted by another process still open after 1 s")
	}
}

// TestServeEndsOpenStreamsOnShutdown: a stream served off net/http (detached, which
// http.Server.Shutdown neither ends nor waits for) ends on SIGTERM, and the process exits 0 at
// once, not at http.shutdown_timeout, with no stream left open.
func TestServeEndsOpenStreamsOnShutdown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServe(t, dir, filepath.Join(dir, "app.db"), "APP_HTTP_SHUTDOWN_TIMEOUT=15s")
	admin := bannerTokenRE.FindString(s.log())
	req, _ := http.NewRequest("GET", "http://"+s.addr+"/orgs/c/events/stream", nil)
	req.Header.Set("Authorization", "Bearer "+admin)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("open a stream: %v %v", res, err)
	}
	defer res.Body.Close()
	br := bufio.NewReader(res.Body)
	if line, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(line, "id: ") {
		t.Fatalf("the stream's position: %q %v", line, err)
	}
	ended := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, br)
		close(ended)
	}()
	start := time.Now()
	if code := s.stop(); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, s.log())
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the exit took %s with a stream open", took)
	}
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the stream still open after the process exited")
	}
	if strings.Contains(s.log(), "event streams still open") {
		t.Errorf("shutdown waited on open streams:\n%s", s.log())
	}
}
