package api_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"wsapi/app/apitest"
	"wsapi/cli"
)

// detachEnv is a widget of an assistant that never runs, its streams' heartbeat every.
func detachEnv(t *testing.T, every time.Duration) (*apitest.Env, string) {
	t.Helper()
	e := apitest.New(t, apitest.NoRuns, func(c *cli.Config) { c.Events.StreamHeartbeat = every })
	asst := newAssistant(t, e, e.AdminKey, map[string]any{"name": "Aria"})
	var d map[string]any
	e.Do("POST", asiPath(asst), e.AdminKey, map[string]any{"integration_id": "internal", "name": "Site"}).Expect(201).JSON(&d)
	return e, d["id"].(string)
}

// goroutinesIn counts this process's goroutines with fn on their stack.
func goroutinesIn(fn string) int {
	var b bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&b, 2)
	n := 0
	for _, g := range strings.Split(b.String(), "\n\n") {
		if strings.Contains(g, fn) {
			n++
		}
	}
	return n
}

// TestVisitorStreamRunsOffNetHTTPOnOneGoroutine: once a visitor's stream is synced, its
// connection is served off net/http (hijacked, docs/decisions/detached-streams.md) by one
// goroutine of its own: no handler left in the server's pump, no background read of
// net/http's. Not parallel: it counts the process's goroutines.
func TestVisitorStreamRunsOffNetHTTPOnOneGoroutine(t *testing.T) {
	e, asi := detachEnv(t, time.Hour)
	const streams = 3
	for range streams {
		openVisitor(t, e, asi)
	}
	e.Eventually(5*time.Second, "every stream detached", func() bool { return e.Runtime.API.Detached() == streams })
	// Waited for, not read once: a stream of an earlier test may still be ending.
	e.Eventually(5*time.Second, "one goroutine a stream, none of net/http's or in the handler's pump", func() bool {
		return goroutinesIn("api.(*detachedStream).serve") == streams &&
			goroutinesIn("net/http.(*connReader).backgroundRead") == 0 && goroutinesIn("api.(*Server).pump") == 0
	})
}

// TestDetachedVisitorStreamHeartbeatsAndEndsWithTheHub: a stream served off net/http still
// carries the heartbeat and a member's reply, and ends when the server's hub closes (the
// shutdown), which WaitStreams then sees.
func TestDetachedVisitorStreamHeartbeatsAndEndsWithTheHub(t *testing.T) {
	t.Parallel()
	e, asi := detachEnv(t, 20*time.Millisecond)
	api := e.Runtime.API
	v := openVisitor(t, e, asi)
	e.Eventually(5*time.Second, "the stream detached", func() bool { return api.Detached() == 1 })
	for range 2 {
		if ev := v.s.NextBlock(2 * time.Second); !ev.Heartbeat() {
			t.Fatalf("an idle detached stream sent %+v, want a heartbeat", ev)
		}
	}
	v.live(t, e, "detached")

	e.Runtime.Hub.Close()
	if !v.s.Ended(2 * time.Second) {
		t.Fatal("the detached stream still open after the hub closed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := api.WaitStreams(ctx); err != nil || api.Detached() != 0 {
		t.Fatalf("WaitStreams: %v with %d detached", err, api.Detached())
	}
}

// TestDetachedVisitorStreamSeesItsClientLeaveAndResumes: with no heartbeat due (that write
// would fail too), a detached stream's read sees its client leave: the subscription and the
// goroutine go at once. The visitor then resumes with Last-Event-ID and gets exactly what it
// missed, then live replies.
func TestDetachedVisitorStreamSeesItsClientLeaveAndResumes(t *testing.T) {
	t.Parallel()
	e, asi := detachEnv(t, time.Hour)
	hub, api := e.Runtime.Hub, e.Runtime.API
	v := openVisitor(t, e, asi)
	e.Eventually(5*time.Second, "the stream detached", func() bool { return api.Detached() == 1 })
	v.reply(e, "first")
	first := nextOf(v.s, "message.created")
	if first.Map(t)["text"] != "first" || first.ID == "" {
		t.Fatalf("reply on the detached stream: %+v", first)
	}

	v.s.Close()
	e.Eventually(5*time.Second, "the subscription freed", func() bool { return hub.Watchers() == 0 && api.Detached() == 0 })

	v.reply(e, "second")
	v.reply(e, "third")
	again := e.Stream("/widget/"+asi+"/api/stream?token="+v.token+"&chat_id="+v.chatID, "", first.ID)
	var texts []string
	for len(texts) < 2 {
		if ev := again.Next(); ev.Type == "message.created" {
			texts = append(texts, ev.Map(t)["text"].(string))
		}
	}
	if strings.Join(texts, ",") != "second,third" {
		t.Fatalf("resumed after %s: %v, want second,third", first.ID, texts)
	}
	e.Eventually(5*time.Second, "the resumed stream detached", func() bool { return api.Detached() == 1 })
	v.reply(e, "live") // the next message.created: none of the resumed ones again
	if ev := nextOf(again, "message.created"); ev.Map(t)["text"] != "live" {
		t.Fatalf("after the resume: %v", ev.Map(t))
	}
}

// TestDetachedStreamsGauge: wsapi_http_streams_detached counts the open detached streams
// (their requests have ended for wsapi_http_requests_in_flight).
func TestDetachedStreamsGauge(t *testing.T) {
	t.Parallel()
	e := metricsEnv(t, func(c *cli.Config) { c.Events.StreamHeartbeat = time.Hour })
	chat := chConversation(e, e.AdminKey, "c", "Gauge")["id"].(string)
	s, _ := stOpen(t, e, e.AdminKey, chat)
	e.Eventually(5*time.Second, "the stream detached", func() bool { return e.Runtime.API.Detached() == 1 })
	if v := metricValue(scrape(t, e), "wsapi_http_streams_detached"); v != 1 {
		t.Fatalf("wsapi_http_streams_detached %v with one stream open, want 1", v)
	}
	s.Close()
	e.Eventually(5*time.Second, "the gauge back to 0", func() bool {
		return metricValue(scrape(t, e), "wsapi_http_streams_detached") == 0
	})
}

// TestHTTP10VisitorStreamIsNotChunked: an HTTP/1.0 client's answer is not chunked (its body
// runs to the close), so its stream stays in the handler and its events come unframed.
func TestHTTP10VisitorStreamIsNotChunked(t *testing.T) {
	t.Parallel()
	e, asi := detachEnv(t, time.Hour)
	v := openVisitor(t, e, asi)
	v.s.Close()
	// The first stream, detached, ends once its goroutine sees the client gone.
	e.Eventually(5*time.Second, "the first stream ended", func() bool { return e.Runtime.API.Detached() == 0 })
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.Server.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "GET /widget/%s/api/stream?token=%s&chat_id=%s HTTP/1.0\r\nHost: test\r\n\r\n", asi, v.token, v.chatID)
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, nil)
	if err != nil || res.StatusCode != 200 || len(res.TransferEncoding) != 0 {
		t.Fatalf("HTTP/1.0 stream: %v %+v", err, res)
	}
	v.reply(e, "plain")
	body := bufio.NewReader(res.Body)
	for {
		line, err := body.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the HTTP/1.0 stream: %v", err)
		}
		if line != "\n" && !strings.HasPrefix(line, "id: ") && !strings.HasPrefix(line, "event: ") && !strings.HasPrefix(line, "data: ") {
			t.Fatalf("HTTP/1.0 stream line %q: not an event line", line)
		}
		if strings.Contains(line, `"text":"plain"`) {
			break
		}
	}
	if n := e.Runtime.API.Detached(); n != 0 {
		t.Fatalf("%d streams detached; an HTTP/1.0 one must stay in its handler", n)
	}
}

// TestHTTP2VisitorStreamStaysInItsHandler: HTTP/2 has no Hijack, so a stream over it is served
// by its handler as before, and carries replies all the same.
func TestHTTP2VisitorStreamStaysInItsHandler(t *testing.T) {
	t.Parallel()
	e, asi := detachEnv(t, time.Hour)
	v := openVisitor(t, e, asi)
	v.s.Close()
	// The first stream, detached, ends once its goroutine sees the client gone.
	e.Eventually(5*time.Second, "the first stream ended", func() bool { return e.Runtime.API.Detached() == 0 })
	srv := httptest.NewUnstartedServer(e.Runtime.Handler)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/widget/"+asi+"/api/stream?token="+v.token+"&chat_id="+v.chatID, nil)
	req.Header.Set("Accept", "text/event-stream")
	res, err := srv.Client().Do(req)
	if err != nil || res.StatusCode != 200 || res.ProtoMajor != 2 {
		t.Fatalf("HTTP/2 stream: %v %+v", err, res)
	}
	defer res.Body.Close()
	v.reply(e, "over h2")
	body := bufio.NewReader(res.Body)
	for {
		line, err := body.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the HTTP/2 stream: %v", err)
		}
		if strings.Contains(line, `"text":"over h2"`) {
			break
		}
	}
	if n := e.Runtime.API.Detached(); n != 0 {
		t.Fatalf("%d streams detached; an HTTP/2 one must stay in its handler", n)
	}
}
