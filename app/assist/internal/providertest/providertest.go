// Package providertest is the behaviour every remote Provider shares, tested the same way for
// each protocol against its fake server: error classification, Retry-After, cancel, the
// per-call timeout, a connection cut mid-stream, and an API key that never leaks.
package providertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"wsapi/app/apitest"
	"wsapi/app/assist"
)

// Key is the API key the suite gives providers: recognizable, so a leak is found.
const Key = "sk-apitest-SECRET-4242"

// Suite is one protocol under test.
type Suite struct {
	// NewServer starts the protocol's fake server.
	NewServer func(t testing.TB) *apitest.LLMServer
	// NewProvider makes the provider named "p" for baseURL with the suite's Key.
	NewProvider func(baseURL string, timeout time.Duration) assist.Provider
	// AuthHeader is the request header that carries the key.
	AuthHeader string
}

// Run runs every shared test as a subtest.
func (s Suite) Run(t *testing.T) {
	t.Run("ErrorStatuses", s.errorStatuses)
	t.Run("ConnectionRefused", s.connectionRefused)
	t.Run("CancelClosesConnection", s.cancelClosesConnection)
	t.Run("CancelKeepsPartialText", s.cancelKeepsPartialText)
	t.Run("TimeoutBeforeAnswer", s.timeoutBeforeAnswer)
	t.Run("TimeoutCoversStreaming", s.timeoutCoversStreaming)
	t.Run("DropMidStream", s.dropMidStream)
	t.Run("StreamEndingEarly", s.streamEndingEarly)
	t.Run("KeyNeverLeaks", s.keyNeverLeaks)
}

// Call is one running model call of a one-line conversation: the text pieces it streamed
// (safe to read while it runs), then its result and error.
type Call struct {
	mu     sync.Mutex
	pieces []string
	Result assist.Result
	Err    error
	done   chan struct{}
}

// Start runs one call of p in the background.
func Start(ctx context.Context, p assist.Provider) *Call {
	c := &Call{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		req := assist.Request{Model: "m", Messages: []assist.Message{{Role: assist.RoleUser, Text: "hi"}}}
		c.Result, c.Err = p.Stream(ctx, req, func(s string) {
			c.mu.Lock()
			c.pieces = append(c.pieces, s)
			c.mu.Unlock()
		})
	}()
	return c
}

// Wait waits for the call to end, at most d.
func (c *Call) Wait(t testing.TB, d time.Duration) {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(d):
		t.Fatalf("the call did not end within %s", d)
	}
}

// Text is what onText has received so far.
func (c *Call) Text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.pieces, "")
}

func (s Suite) errorStatuses(t *testing.T) {
	later := time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)
	exact := func(want time.Duration) func(time.Duration) bool {
		return func(d time.Duration) bool { return d == want }
	}
	cases := []struct {
		name       string
		reply      apitest.LLMReply
		retryable  bool
		retryAfter func(time.Duration) bool
	}{
		{"429 seconds", apitest.LLMReply{Status: 429, RetryAfter: "7", Message: "slow down"}, true, exact(7 * time.Second)},
		{"429 ms", apitest.LLMReply{Status: 429, RetryAfter: "2", RetryAfterMs: "1500"}, true, exact(1500 * time.Millisecond)},
		{"503 date", apitest.LLMReply{Status: 503, RetryAfter: later}, true,
			func(d time.Duration) bool { return d > 25*time.Second && d <= 30*time.Second }},
		{"500", apitest.LLMReply{Status: 500, Message: "boom"}, true, exact(0)},
		{"529", apitest.LLMReply{Status: 529}, true, exact(0)},
		{"401", apitest.LLMReply{Status: 401, Message: "bad key"}, false, exact(0)},
		{"400", apitest.LLMReply{Status: 400, Message: "bad model"}, false, exact(0)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := s.NewServer(t)
			srv.Reply(c.reply)
			call := Start(context.Background(), s.NewProvider(srv.URL, time.Minute))
			call.Wait(t, 5*time.Second)
			pe, ok := assist.AsProviderError(call.Err)
			if !ok {
				t.Fatalf("error %v is not a ProviderError", call.Err)
			}
			if pe.Status != c.reply.Status || pe.Retryable != c.retryable || !c.retryAfter(pe.RetryAfter) || pe.Provider != "p" {
				t.Fatalf("error %+v", pe)
			}
			if c.reply.Message != "" && !strings.Contains(pe.Message, c.reply.Message) {
				t.Fatalf("message %q lacks the provider's %q", pe.Message, c.reply.Message)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Fatalf("%d requests: the SDK retried by itself", n)
			}
		})
	}
}

func (s Suite) connectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	call := Start(context.Background(), s.NewProvider("http://"+addr, time.Minute))
	call.Wait(t, 5*time.Second)
	pe, ok := assist.AsProviderError(call.Err)
	if !ok || pe.Status != 0 || !pe.Retryable {
		t.Fatalf("error %#v", call.Err)
	}
}

// waitDisconnect fails unless the fake server saw the client go away within d.
func waitDisconnect(t testing.TB, srv *apitest.LLMServer, d time.Duration) {
	t.Helper()
	select {
	case <-srv.Disconnected():
	case <-time.After(d):
		t.Fatalf("the server saw no disconnect within %s", d)
	}
}

// eventually polls cond until it holds, failing after d.
func eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (s Suite) cancelClosesConnection(t *testing.T) {
	srv := s.NewServer(t)
	srv.Reply(apitest.LLMReply{Text: []string{"never"}, Step: make(chan struct{})})
	ctx, cancel := context.WithCancel(context.Background())
	call := Start(ctx, s.NewProvider(srv.URL, time.Minute))
	eventually(t, 5*time.Second, "the request", func() bool { return len(srv.Requests()) == 1 })
	start := time.Now()
	cancel()
	call.Wait(t, time.Second)
	waitDisconnect(t, srv, time.Second)
	if !errors.Is(call.Err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", call.Err)
	}
	t.Logf("cancel to connection closed: %s", time.Since(start))
}

func (s Suite) cancelKeepsPartialText(t *testing.T) {
	srv := s.NewServer(t)
	step := make(chan struct{})
	srv.Reply(apitest.LLMReply{Text: []string{"first ", "second"}, Step: step})
	ctx, cancel := context.WithCancel(context.Background())
	call := Start(ctx, s.NewProvider(srv.URL, time.Minute))
	step <- struct{}{}
	eventually(t, 5*time.Second, "the first piece", func() bool { return call.Text() == "first " })
	cancel()
	call.Wait(t, time.Second)
	if !errors.Is(call.Err, context.Canceled) || call.Result.Text != "first " {
		t.Fatalf("result %+v, error %v", call.Result, call.Err)
	}
}

func (s Suite) timeoutBeforeAnswer(t *testing.T) {
	srv := s.NewServer(t)
	srv.Reply(apitest.LLMReply{Hang: true})
	start := time.Now()
	call := Start(context.Background(), s.NewProvider(srv.URL, 150*time.Millisecond))
	call.Wait(t, 5*time.Second)
	pe, ok := assist.AsProviderError(call.Err)
	if !ok || pe.Status != 0 || !pe.Retryable || !strings.Contains(pe.Message, "timeout") {
		t.Fatalf("error %v", call.Err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("a 150ms timeout took %s", d)
	}
	waitDisconnect(t, srv, time.Second)
}

// timeoutCoversStreaming: the timeout bounds the whole call, not only the wait for headers.
func (s Suite) timeoutCoversStreaming(t *testing.T) {
	srv := s.NewServer(t)
	step := make(chan struct{})
	srv.Reply(apitest.LLMReply{Text: []string{"slow ", "never"}, Step: step})
	call := Start(context.Background(), s.NewProvider(srv.URL, 300*time.Millisecond))
	step <- struct{}{}
	call.Wait(t, 5*time.Second)
	pe, ok := assist.AsProviderError(call.Err)
	if !ok || !pe.Retryable || call.Result.Text != "slow " {
		t.Fatalf("result %+v, error %v", call.Result, call.Err)
	}
	waitDisconnect(t, srv, time.Second)
}

func (s Suite) dropMidStream(t *testing.T) {
	srv := s.NewServer(t)
	srv.Reply(apitest.LLMReply{Text: []string{"one ", "two ", "three"}, Drop: true, DropAfter: 2})
	call := Start(context.Background(), s.NewProvider(srv.URL, time.Minute))
	call.Wait(t, 5*time.Second)
	pe, ok := assist.AsProviderError(call.Err)
	if !ok || pe.Status != 0 || !pe.Retryable {
		t.Fatalf("error %v", call.Err)
	}
	if call.Result.Text != "one two " || call.Text() != "one two " {
		t.Fatalf("partial text %q, streamed %q", call.Result.Text, call.Text())
	}
}

// streamEndingEarly: a response that ends cleanly before the protocol's last event is an
// incomplete answer, retryable, its text kept and its tool calls (maybe cut) left out.
func (s Suite) streamEndingEarly(t *testing.T) {
	srv := s.NewServer(t)
	srv.Reply(apitest.LLMReply{Text: []string{"half"}, Truncate: true,
		ToolCalls: []apitest.LLMToolCall{{ID: "t1", Name: "f", Args: []string{`{"a":1}`}}}})
	call := Start(context.Background(), s.NewProvider(srv.URL, time.Minute))
	call.Wait(t, 5*time.Second)
	pe, ok := assist.AsProviderError(call.Err)
	if !ok || !pe.Retryable || call.Result.Text != "half" || len(call.Result.ToolCalls) != 0 {
		t.Fatalf("result %+v, error %v", call.Result, call.Err)
	}
}

// keyNeverLeaks provokes every kind of failure, with a server that echoes the key in its
// error message, and looks for the key in the error text, its %+v and %#v forms and a log.
func (s Suite) keyNeverLeaks(t *testing.T) {
	srv := s.NewServer(t)
	srv.Reply(apitest.LLMReply{Status: 401, Message: "Incorrect API key provided: " + Key},
		apitest.LLMReply{Status: 429, Message: "limit for key " + Key},
		apitest.LLMReply{Hang: true},
		apitest.LLMReply{Text: []string{"x"}, Drop: true, DropAfter: 1})
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	for i := 0; i < 4; i++ {
		call := Start(context.Background(), s.NewProvider(srv.URL, 200*time.Millisecond))
		call.Wait(t, 5*time.Second)
		if call.Err == nil {
			t.Fatalf("call %d did not fail", i)
		}
		log.Error("model call failed", "err", call.Err)
		for _, text := range []string{call.Err.Error(), fmt.Sprintf("%+v", call.Err), fmt.Sprintf("%#v", call.Err)} {
			if strings.Contains(text, Key) {
				t.Fatalf("call %d: the key leaks in %q", i, text)
			}
		}
	}
	if strings.Contains(logs.String(), Key) {
		t.Fatalf("the key leaks in the log:\n%s", logs.String())
	}
	if got := srv.Requests()[0].Header.Get(s.AuthHeader); !strings.Contains(got, Key) {
		t.Fatalf("%s %q: the key did not reach the server, the test proves nothing", s.AuthHeader, got)
	}
}
