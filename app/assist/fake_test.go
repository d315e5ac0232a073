package assist_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/app/assist"
)

// providerFunc is a Provider written for the loop's unit tests (the end-to-end tests use
// the protocol fakes of app/apitest).
type providerFunc func(ctx context.Context, req assist.Request, onText func(string)) (assist.Result, error)

func (f providerFunc) Stream(ctx context.Context, req assist.Request, onText func(string)) (assist.Result, error) {
	return f(ctx, req, onText)
}

// install registers p as provider name of the env's runner, before any run reads it.
func install(e *apitest.Env, name string, p assist.Provider) { e.Runtime.Runner.Providers[name] = p }

// modelConfig is an assistant configuration using model.
func modelConfig(model string) map[string]any {
	return map[string]any{"model": model, "timezone": "UTC", "knowledge_scope": "all", "language": "auto",
		"conversation": map[string]any{"thread_mode": "new"}}
}

// hanging streams pieces (with a pause before the last, so the runner writes them) and
// then holds the call open until it is canceled, which it records.
type hanging struct {
	pieces   []string
	calls    atomic.Int32
	mu       sync.Mutex
	canceled []time.Time
}

func (h *hanging) Stream(ctx context.Context, req assist.Request, onText func(string)) (assist.Result, error) {
	h.calls.Add(1)
	h.mu.Lock()
	pieces := h.pieces
	h.mu.Unlock()
	for i, p := range pieces {
		if i == len(pieces)-1 {
			time.Sleep(40 * time.Millisecond) // past the flush interval: the text is written
		}
		onText(p)
	}
	<-ctx.Done()
	h.mu.Lock()
	h.canceled = append(h.canceled, time.Now())
	h.mu.Unlock()
	return assist.Result{}, ctx.Err()
}

// say sets the pieces of the next calls.
func (h *hanging) say(pieces ...string) {
	h.mu.Lock()
	h.pieces = pieces
	h.mu.Unlock()
}

// canceledAt answers when the n-th call was canceled, waiting for it up to 2 s.
func (h *hanging) canceledAt(t *testing.T, n int) time.Time {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		h.mu.Lock()
		if len(h.canceled) >= n {
			at := h.canceled[n-1]
			h.mu.Unlock()
			return at
		}
		h.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("call %d was never canceled", n)
	return time.Time{}
}

// streaming waits until the chat's n-th reply is RUNNING with want in its stored text.
func (w *world) streaming(t *testing.T, n int, want string) app.Message {
	t.Helper()
	var m app.Message
	w.e.Eventually(20*time.Second, "reply streaming", func() bool {
		rs := w.replies(t)
		if len(rs) < n {
			return false
		}
		m = rs[n-1]
		return m.Status == "RUNNING" && text(m) == want
	})
	return m
}

// advanceWhile moves the manual clock a second at a time while cond holds, giving the run
// worker time to react between steps (retry waits are on the manual clock).
func advanceWhile(t *testing.T, e *apitest.Env, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: still waiting after 10 s", what)
		}
		if e.Clock.Waiters() > 0 {
			e.Clock.Advance(time.Second)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
