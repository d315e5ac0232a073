package assist_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/assist"
	"wsapi/cli"
	"wsapi/sqlite"
)

// A retryable failure before the first token waits the provider's Retry-After on the
// injected clock, then the run completes on the same model.
func TestLoopRetryHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var calls atomic.Int32
	install(e, "fake", providerFunc(func(ctx context.Context, req assist.Request, onText func(string)) (assist.Result, error) {
		if calls.Add(1) == 1 {
			return assist.Result{}, &assist.ProviderError{Provider: "fake", Status: 429, Retryable: true, RetryAfter: 5 * time.Second}
		}
		onText("fine")
		return assist.Result{Text: "fine"}, nil
	}))
	w := newWorld(t, e, e.AdminKey, "c", modelConfig("fake:m1"))
	w.say(t, "user", "hi")
	w.debounce()
	e.Eventually(20*time.Second, "the retry waits", func() bool { return e.Clock.Waiters() > 0 })
	e.Clock.Advance(4 * time.Second)
	time.Sleep(30 * time.Millisecond)
	if calls.Load() != 1 {
		t.Fatalf("retried before Retry-After: %d calls", calls.Load())
	}
	e.Clock.Advance(time.Second)
	m := w.reply(t, 1)
	if m.Status != "COMPLETED" || text(m) != "fine" || calls.Load() != 2 || m.Model != "fake:m1" {
		t.Fatalf("reply %s %q model %s after %d calls", m.Status, text(m), m.Model, calls.Load())
	}
}

// Retries run out, then the fallback model is tried once; when it fails too the run fails
// naming both providers and statuses. A failure after text has streamed is not retried and
// keeps the text.
func TestLoopFallbackAndFailures(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *cli.Config) { c.Models.Fallback = "backup:m2" })
	var mainCalls, backupCalls atomic.Int32
	var backupFails atomic.Bool
	install(e, "fake", providerFunc(func(ctx context.Context, req assist.Request, onText func(string)) (assist.Result, error) {
		mainCalls.Add(1)
		return assist.Result{}, &assist.ProviderError{Provider: "fake", Status: 500, Retryable: true, Message: "boom"}
	}))
	install(e, "backup", providerFunc(func(ctx context.Context, req assist.Request, onText func(string)) (assist.Result, error) {
		backupCalls.Add(1)
		if backupFails.Load() {
			return assist.Result{}, &assist.ProviderError{Provider: "backup", Status: 529, Retryable: true, Message: "overloaded"}
		}
		onText("from backup")
		return assist.Result{Text: "from backup", Reported: true, Usage: app.UsageCounter{InputTokens: 7, OutputTokens: 2}}, nil
	}))
	w := newWorld(t, e, e.AdminKey, "c", modelConfig("fake:m1"))
	w.say(t, "user", "hi")
	w.debounce()
	advanceWhile(t, e, "fallback", func() bool { return backupCalls.Load() == 0 })
	m := w.reply(t, 1)
	if m.Status != "COMPLETED" || text(m) != "from backup" || m.Model != "backup:m2" || mainCalls.Load() != 4 {
		t.Fatalf("reply %s %q model %s, %d calls of the main model", m.Status, text(m), m.Model, mainCalls.Load())
	}
	if m.Usage == nil || m.Usage.InputTokens != 7 || m.Usage.TotalTokens != 9 || m.Usage.Estimated {
		t.Fatalf("usage %+v", m.Usage)
	}

	backupFails.Store(true)
	w.say(t, "user", "again")
	w.debounce()
	advanceWhile(t, e, "second run", func() bool { return backupCalls.Load() < 2 })
	m = w.reply(t, 2)
	if m.Status != "FAILED" || m.Error == nil || !strings.Contains(*m.Error, "provider fake: status 500") ||
		!strings.Contains(*m.Error, "fallback backup:m2: provider backup: status 529") || backupCalls.Load() != 2 {
		t.Fatalf("reply %s error %v, %d backup calls", m.Status, m.Error, backupCalls.Load())
	}
}

// A failure after text has streamed ends the run FAILED with the text kept, without retry.
func TestLoopFailureAfterTextKeepsText(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var calls atomic.Int32
	install(e, "fake", providerFunc(func(ctx context.Context, req assist.Request, onText func(string)) (assist.Result, error) {
		calls.Add(1)
		onText("Hello ")
		onText("wor")
		return assist.Result{}, &assist.ProviderError{Provider: "fake", Status: 502, Retryable: true, Message: "stream cut"}
	}))
	w := newWorld(t, e, e.AdminKey, "c", modelConfig("fake:m1"))
	w.say(t, "user", "hi")
	w.debounce()
	m := w.reply(t, 1)
	if m.Status != "FAILED" || text(m) != "Hello wor" || m.Error == nil || !strings.Contains(*m.Error, "status 502") || calls.Load() != 1 {
		t.Fatalf("reply %s %q error %v after %d calls", m.Status, text(m), m.Error, calls.Load())
	}
	if m.Usage == nil || !m.Usage.Estimated || m.Usage.OutputTokens != 3 {
		t.Fatalf("usage %+v", m.Usage)
	}
}

// A panic in a run fails that run with a clear error; the worker goes on with the next.
func TestLoopPanicFailsOnlyThatRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var calls atomic.Int32
	install(e, "fake", providerFunc(func(ctx context.Context, req assist.Request, onText func(string)) (assist.Result, error) {
		if calls.Add(1) == 1 {
			panic("provider bug")
		}
		return assist.Result{Text: "ok"}, nil
	}))
	w := newWorld(t, e, e.AdminKey, "c", modelConfig("fake:m1"))
	w.say(t, "user", "hi")
	w.debounce()
	m := w.reply(t, 1)
	if m.Status != "FAILED" || m.Error == nil || !strings.Contains(*m.Error, "internal error") {
		t.Fatalf("reply %s error %v", m.Status, m.Error)
	}
	w.say(t, "user", "again")
	w.debounce()
	if m := w.reply(t, 2); m.Status != "COMPLETED" || text(m) != "ok" {
		t.Fatalf("next run %s %q", m.Status, text(m))
	}
}

// Cancel aborts the provider call within a second and answers the message CANCELED with
// its partial text and usage estimated from that text.
func TestLoopCancelKeepsPartialText(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	h := &hanging{pieces: []string{"Let me ", "check"}}
	install(e, "fake", h)
	w := newWorld(t, e, e.AdminKey, "c", modelConfig("fake:m1"))
	w.say(t, "user", "hi")
	w.debounce()
	w.streaming(t, 1, "Let me check")
	asked := time.Now()
	var m app.Message
	e.Do("POST", w.path("/chats/"+w.chat+"/cancel"), e.AdminKey, nil).Expect(200).JSON(&m)
	if took := h.canceledAt(t, 1).Sub(asked); took > time.Second {
		t.Fatalf("the provider call was canceled after %s", took)
	}
	if m.Status != "CANCELED" || text(m) != "Let me check" || m.Usage == nil || !m.Usage.Estimated || m.Usage.OutputTokens != 3 {
		t.Fatalf("canceled reply %s %q usage %+v", m.Status, text(m), m.Usage)
	}
	if c := w.getChat(t); c.Status != "CANCELED" {
		t.Fatalf("chat status %s", c.Status)
	}
}

// A member taking the chat, ai_enabled turning false, or a newer contact message stop the
// run under way and discard its reply; after a newer contact message one new run follows.
func TestLoopStopsDiscardReply(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	h := &hanging{pieces: []string{"Half ", "an answer"}}
	install(e, "fake", h)
	for i, patch := range []map[string]any{{"assigned_user_id": e.Owner.ID}, {"ai_enabled": false}} {
		w := newWorld(t, e, e.AdminKey, "c", modelConfig("fake:m1"))
		w.say(t, "user", "hi")
		w.debounce()
		w.streaming(t, 1, "Half an answer")
		e.Do("PATCH", w.path("/chats/"+w.chat), e.AdminKey, patch).Expect(200)
		h.canceledAt(t, i+1)
		m := w.reply(t, 1)
		if m.Status != "CANCELED" || text(m) != "" || m.Error == nil || !strings.HasPrefix(*m.Error, "canceled: ") {
			t.Fatalf("after %v: reply %s %q error %v", patch, m.Status, text(m), m.Error)
		}
		e.Eventually(2*time.Second, "usage recorded", func() bool { u := w.reply(t, 1).Usage; return u != nil && u.Estimated })
	}

	w := newWorld(t, e, e.AdminKey, "c", modelConfig("fake:m1"))
	w.say(t, "user", "hi")
	w.debounce()
	w.streaming(t, 1, "Half an answer")
	h.say("Second ", "answer")
	w.say(t, "user", "actually, another question")
	h.canceledAt(t, 3)
	if m := w.reply(t, 1); m.Status != "CANCELED" || text(m) != "" || !strings.Contains(*m.Error, "newer contact message") {
		t.Fatalf("superseded reply %s %q %v", m.Status, text(m), m.Error)
	}
	w.debounce()
	w.streaming(t, 2, "Second answer")
	if n := len(w.replies(t)); n != 2 {
		t.Fatalf("%d replies", n)
	}
}

// A process killed mid-run (its database closed under it, no graceful stop) leaves the
// message RUNNING in the file; the next process on that file ends it FAILED "interrupted",
// keeping the text it had written.
func TestRestartEndsInterruptedRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	onFile := func(c *cli.Config) {
		c.DB.Path = dir + "/app.db"
		c.Secrets.KeyFile = dir + "/app.key"
	}
	a := newEnv(t, onFile)
	install(a, "fake", &hanging{pieces: []string{"Half ", "an answer"}})
	w := newWorld(t, a, a.AdminKey, "c", modelConfig("fake:m1"))
	w.say(t, "user", "hi")
	w.debounce()
	w.streaming(t, 1, "Half an answer")
	a.Server.Close()
	a.Runtime.DB.Close() // the process dies: nothing more reaches the file
	a.Runtime.Close()

	b := newEnv(t, onFile)
	w.e, w.key = b, b.AdminKey
	m := w.reply(t, 1)
	if m.Status != "FAILED" || m.Error == nil || *m.Error != app.ErrInterrupted || text(m) != "Half an answer" {
		t.Fatalf("after restart: %s %v %q", m.Status, m.Error, text(m))
	}
	if c := w.getChat(t); c.Status != "FAILED" {
		t.Fatalf("chat status %s", c.Status)
	}
}

// A graceful stop (serve's SIGTERM) mid-run ends the run FAILED "interrupted" with the text
// it had, written by the stopping process itself.
func TestGracefulStopInterruptsRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	install(e, "fake", &hanging{pieces: []string{"Half ", "an answer"}})
	w := newWorld(t, e, e.AdminKey, "c", modelConfig("fake:m1"))
	w.say(t, "user", "hi")
	w.debounce()
	w.streaming(t, 1, "Half an answer")
	e.Server.Close()
	if err := e.Runtime.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(e.Runtime.Config.DB.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var m app.Message
	err = db.Read(context.Background(), func(tx app.Tx) (err error) {
		ms, _, err := tx.ListMessages(e.Org.ID, w.chat, nil, 0, 10)
		m = ms[len(ms)-1]
		return err
	})
	if err != nil || m.Status != "FAILED" || m.Error == nil || *m.Error != app.ErrInterrupted || text(m) != "Half an answer" {
		t.Fatalf("after a graceful stop: %v %s %v %q", err, m.Status, m.Error, text(m))
	}
	if m.Usage == nil || !m.Usage.Estimated {
		t.Fatalf("usage %+v", m.Usage)
	}
}
