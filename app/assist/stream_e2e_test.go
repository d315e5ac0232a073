package assist_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// End to end: a contact's message on a chat with an assistant gets its answer streamed over
// the chat's SSE stream, from a real provider server (the OpenAI fake) or the builtin model.

// watch opens the chat's stream (resuming after last when not empty); a fresh connection's
// first event is sync, which it reads and answers.
func (w *world) watch(t *testing.T, last string) (*apitest.SSEStream, apitest.SSEEvent) {
	t.Helper()
	if last != "" {
		return w.e.For(t).Stream(w.path("/chats/"+w.chat+"/stream"), w.key, last), apitest.SSEEvent{}
	}
	return w.e.For(t).Synced(w.path("/chats/"+w.chat+"/stream"), w.key)
}

// delta is a message.delta's data.
type delta struct {
	MessageID string `json:"message_id"`
	ChatID    string `json:"chat_id"`
	Offset    int    `json:"offset"`
	Text      string `json:"text"`
}

// readDelta reads a delta of msg that must start at offset at; it checks the id is S.O with
// O where the piece ends, and answers the piece.
func readDelta(t *testing.T, s *apitest.SSEStream, msg, created string, at int) string {
	t.Helper()
	ev := s.Expect(app.StreamMessageDelta)
	var d delta
	ev.JSON(t, &d)
	end := at + len([]rune(d.Text))
	if d.MessageID != msg || d.Offset != at || ev.ID != created+"."+strconv.Itoa(end) {
		t.Fatalf("delta %s %+v, want message %s at offset %d", ev.ID, d, msg, at)
	}
	return d.Text
}

// runStarts posts the contact's message while s watches, passes the debounce, and reads the
// user's message.created and the RUNNING assistant message's; it answers that message and
// the id of its message.created.
func runStarts(t *testing.T, w *world, s *apitest.SSEStream, question string) (app.Message, string) {
	t.Helper()
	posted := w.say(t, "user", question)
	var m app.Message
	s.Expect(app.StreamMessageCreated).JSON(t, &m)
	if m.ID != posted.ID || m.Role != "user" {
		t.Fatalf("first message.created %+v, want the contact's %s", m, posted.ID)
	}
	w.debounce()
	ev := s.Expect(app.StreamMessageCreated)
	ev.JSON(t, &m)
	if m.Role != "assistant" || m.Status != "RUNNING" {
		t.Fatalf("second message.created %s, want the RUNNING assistant message", ev.Data)
	}
	return m, ev.ID
}

// finished reads the run's message.updated and checks it is status with text.
func finished(t *testing.T, s *apitest.SSEStream, id, status, want string) app.Message {
	t.Helper()
	var m app.Message
	s.Expect(app.StreamMessageUpdated).JSON(t, &m)
	if m.ID != id || m.Status != status || text(m) != want {
		t.Fatalf("message.updated %s %s %q, want %s %s %q", m.ID, m.Status, text(m), id, status, want)
	}
	return m
}

// liveText waits until the hub holds want as the run's streamed text.
func liveText(t *testing.T, w *world, msg, want string) {
	t.Helper()
	w.e.Eventually(5*time.Second, "live text "+want, func() bool {
		got, _ := w.e.Runtime.Hub.LiveText(w.e.Org.ID, w.chat, msg)
		return got == want
	})
}

// (a) The OpenAI-compatible fake, paced by the test: one delta per chunk, in order, whose
// texts make exactly the answer; then message.updated COMPLETED with that text and the
// reported usage.
func TestStreamOpenAIAnswerOverSSE(t *testing.T) {
	t.Parallel()
	oa := apitest.NewOpenAIServer(t)
	step := make(chan struct{})
	pieces := []string{"Buenos ", "días, ", "Ana — ", "ünïcode ✓"}
	oa.Reply(apitest.LLMReply{Text: pieces, Step: step, Usage: &apitest.LLMUsage{Input: 40, Output: 9}})
	e := newEnv(t, provider("oa", "openai", oa, 5*time.Second))
	w := newWorld(t, e, e.AdminKey, "c", modelConfig("oa:gpt-4o-mini"))
	s, sync := w.watch(t, "")
	if sync.Data != "null" {
		t.Fatalf("sync %s before any run", sync.Data)
	}
	m, created := runStarts(t, w, s, "Hola")
	var got strings.Builder
	for _, p := range pieces {
		step <- struct{}{}
		piece := readDelta(t, s, m.ID, created, len([]rune(got.String())))
		if piece != p {
			t.Fatalf("delta %q, want the chunk %q", piece, p)
		}
		got.WriteString(piece)
	}
	answer := strings.Join(pieces, "")
	done := finished(t, s, m.ID, "COMPLETED", answer)
	if u := done.Usage; u == nil || u.Estimated || u.InputTokens != 40 || u.OutputTokens != 9 || u.TotalTokens != 49 {
		t.Fatalf("usage %+v", done.Usage)
	}
	s.Quiet(50 * time.Millisecond)
}

// (b) builtin:retrieval with no provider configured streams the same way.
func TestStreamBuiltinAnswerOverSSE(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newWorld(t, e, e.AdminKey, "c", nil)
	w.learn(t, "Opening hours", "Our shop is open from nine to five on weekdays.\n\nOn Saturdays we open at ten.")
	s, _ := w.watch(t, "")
	m, created := runStarts(t, w, s, "When is the shop open on Saturdays?")
	var got strings.Builder
	for {
		ev := s.Next()
		if ev.Type == app.StreamMessageUpdated {
			var done app.Message
			ev.JSON(t, &done)
			if done.ID != m.ID || done.Status != "COMPLETED" || text(done) != got.String() || done.Model != "builtin:retrieval" {
				t.Fatalf("message.updated %s %s %q, want COMPLETED with the streamed %q", done.ID, done.Status, text(done), got.String())
			}
			if done.Usage == nil || !done.Usage.Estimated || done.Usage.OutputTokens <= 0 {
				t.Fatalf("usage %+v", done.Usage)
			}
			break
		}
		if ev.Type != app.StreamMessageDelta {
			t.Fatalf("event %s (%s) during the run", ev.Type, ev.Data)
		}
		var d delta
		ev.JSON(t, &d)
		at := len([]rune(got.String()))
		if d.MessageID != m.ID || d.Offset != at || ev.ID != created+"."+strconv.Itoa(at+len([]rune(d.Text))) {
			t.Fatalf("delta %s %+v at %d", ev.ID, d, at)
		}
		got.WriteString(d.Text)
	}
	if !strings.Contains(got.String(), "Saturdays we open at ten") {
		t.Fatalf("streamed answer %q does not quote the knowledge", got.String())
	}
}

// (c) A client that drops mid-run and reconnects with the id of the last delta it got gets
// the rest of the text once, then the live deltas and the end: no text lost or repeated.
// (d) A client that connects mid-run gets sync with the message and its live text, ahead of
// what the run has written to the message.
func TestStreamResumeAndSyncMidRun(t *testing.T) {
	t.Parallel()
	oa := apitest.NewOpenAIServer(t)
	step := make(chan struct{})
	pieces := []string{"One, ", "two, ", "three, ", "four, ", "five, ", "six."}
	oa.Reply(apitest.LLMReply{Text: pieces, Step: step})
	// The run writes its text to the message rarely, so the stored text lags: sync must show
	// the live one.
	e := newEnv(t, provider("oa", "openai", oa, 5*time.Second), func(c *cli.Config) { c.Assistants.FlushInterval = time.Hour })
	w := newWorld(t, e, e.AdminKey, "c", modelConfig("oa:gpt-4o-mini"))
	s, _ := w.watch(t, "")
	m, created := runStarts(t, w, s, "Count")
	step <- struct{}{}
	first := s.Expect(app.StreamMessageDelta)
	step <- struct{}{}
	readDelta(t, s, m.ID, created, len([]rune(pieces[0])))
	s.Close() // as if the second delta had been lost with the connection: resume after the first
	step <- struct{}{}
	step <- struct{}{}
	sofar := strings.Join(pieces[:4], "")
	liveText(t, w, m.ID, sofar)

	late, sync := w.watch(t, "")
	var synced app.Message
	sync.JSON(t, &synced)
	if synced.ID != m.ID || synced.Status != "RUNNING" || app.StreamText(synced) != sofar {
		t.Fatalf("sync %s, want %s RUNNING with %q", sync.Data, m.ID, sofar)
	}
	if stored := text(w.replies(t)[0]); stored == sofar {
		t.Fatalf("the stored text %q has caught up: this test cannot tell the live text from it", stored)
	}

	r, _ := w.watch(t, first.ID)
	from := len([]rune(pieces[0]))
	rest := readDelta(t, r, m.ID, created, from)
	if rest != strings.Join(pieces[1:4], "") {
		t.Fatalf("resumed with %q, want %q", rest, strings.Join(pieces[1:4], ""))
	}
	at := len([]rune(sofar))
	for _, p := range pieces[4:] {
		step <- struct{}{}
		for _, c := range []*apitest.SSEStream{r, late} {
			if got := readDelta(t, c, m.ID, created, at); got != p {
				t.Fatalf("live delta %q, want %q", got, p)
			}
		}
		at += len([]rune(p))
	}
	answer := strings.Join(pieces, "")
	finished(t, r, m.ID, "COMPLETED", answer)
	finished(t, late, m.ID, "COMPLETED", answer)
	r.Quiet(50 * time.Millisecond)
}

// (e) A cancel mid-stream closes the provider's connection within a second; watchers see
// message.updated CANCELED with the partial text.
func TestStreamCancelMidRun(t *testing.T) {
	t.Parallel()
	oa := apitest.NewOpenAIServer(t)
	step := make(chan struct{})
	oa.Reply(apitest.LLMReply{Text: []string{"Let me ", "check ", "that", " never sent"}, Step: step})
	e := newEnv(t, provider("oa", "openai", oa, 5*time.Second))
	w := newWorld(t, e, e.AdminKey, "c", modelConfig("oa:gpt-4o-mini"))
	s, _ := w.watch(t, "")
	m, created := runStarts(t, w, s, "Is it in stock?")
	partial := ""
	for range 3 {
		step <- struct{}{}
		partial += readDelta(t, s, m.ID, created, len([]rune(partial)))
	}
	asked := time.Now()
	e.Do("POST", w.path("/chats/"+w.chat+"/cancel"), e.AdminKey, nil).Expect(200)
	select {
	case <-oa.Disconnected():
		t.Logf("provider connection closed %s after the cancel", time.Since(asked))
	case <-time.After(time.Second):
		t.Fatalf("the provider's connection was still open a second after the cancel")
	}
	done := finished(t, s, m.ID, "CANCELED", "Let me check that")
	if done.Usage == nil || !done.Usage.Estimated {
		t.Fatalf("usage %+v", done.Usage)
	}
	s.Quiet(50 * time.Millisecond)
}

// (e) A tool call goes out on the chat stream as message.tool_call when it ends, with its
// arguments and result, before the answer it led to streams in; the search's chunk is then
// cited on the finished message.
func TestStreamToolCallOverSSE(t *testing.T) {
	t.Parallel()
	oa := apitest.NewOpenAIServer(t)
	oa.Reply(apitest.LLMReply{ToolCalls: []apitest.LLMToolCall{call("c1", "search_knowledge", `{"query":"saturday"}`)},
		Usage: &apitest.LLMUsage{Input: 10, Output: 2}})
	oa.Reply(apitest.LLMReply{Text: []string{"At ten ", "on Saturdays."}, Usage: &apitest.LLMUsage{Input: 20, Output: 4}})
	e := newEnv(t, provider("oa", "openai", oa, 5*time.Second))
	w := newWorld(t, e, e.AdminKey, "c", modelConfig("oa:gpt-4o-mini"))
	w.learn(t, "Opening hours", "On Saturdays we open at ten.")
	s, _ := w.watch(t, "")
	m, created := runStarts(t, w, s, "Saturday?")
	var tc app.ToolCallEvent
	s.Expect(app.StreamMessageToolCall).JSON(t, &tc)
	if tc.MessageID != m.ID || tc.ChatID != w.chat || tc.ToolCall.ID != "c1" || tc.ToolCall.Name != "search_knowledge" ||
		string(tc.ToolCall.Arguments) != `{"query":"saturday"}` || !strings.Contains(string(tc.ToolCall.Result), "open at ten") ||
		tc.ToolCall.Error != "" {
		t.Fatalf("message.tool_call %+v", tc)
	}
	var got string
	for len(got) < len("At ten on Saturdays.") { // the hub may join chunks into one delta
		got += readDelta(t, s, m.ID, created, len([]rune(got)))
	}
	done := finished(t, s, m.ID, "COMPLETED", "At ten on Saturdays.")
	if got != "At ten on Saturdays." || len(toolCalls(done)) != 1 || len(citations(done)) != 1 {
		t.Fatalf("streamed %q; finished with tool calls %+v citations %+v", got, toolCalls(done), citations(done))
	}
	s.Quiet(50 * time.Millisecond)
}

// (f) Text that arrives within the flush interval of the last write is written once the
// interval has passed, even when the provider then stalls: a reader of the message, or the
// next process after a crash, sees it, not only the stream's watchers.
func TestStalledProviderTextIsWrittenAfterTheInterval(t *testing.T) {
	t.Parallel()
	oa := apitest.NewOpenAIServer(t)
	step := make(chan struct{})
	oa.Reply(apitest.LLMReply{Text: []string{"Half ", "an answer", " at last"}, Step: step})
	e := newEnv(t, provider("oa", "openai", oa, 30*time.Second), func(c *cli.Config) { c.Assistants.FlushInterval = 200 * time.Millisecond })
	w := newWorld(t, e, e.AdminKey, "c", modelConfig("oa:gpt-4o-mini"))
	w.say(t, "user", "hi")
	w.debounce()
	step <- struct{}{}
	step <- struct{}{}
	w.e.Eventually(5*time.Second, "the stalled run's text written", func() bool {
		rs := w.replies(t)
		return len(rs) == 1 && rs[0].Status == "RUNNING" && text(rs[0]) == "Half an answer"
	})
	close(step)
	if m := w.reply(t, 1); m.Status != "COMPLETED" || text(m) != "Half an answer at last" {
		t.Fatalf("reply %s %q", m.Status, text(m))
	}
}
