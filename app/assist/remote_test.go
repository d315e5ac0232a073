package assist_test

import (
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// testKey is the providers' API key in these tests; no answer may show it.
const testKey = apitest.TestProviderKey

// provider configures srv as provider name of the given type.
var provider = apitest.WithModelProvider

// An OpenAI-compatible provider behind models.default streams the answer into the message;
// the reported usage is mapped (cached input is part of input), priced and charged, and the
// model recorded; the request carries the key, the model part of the id and the prompt.
func TestOpenAIStreamedAnswer(t *testing.T) {
	t.Parallel()
	oa := apitest.NewOpenAIServer(t)
	oa.Reply(apitest.LLMReply{Text: []string{"Hel", "lo ", "there"},
		Usage: &apitest.LLMUsage{Input: 120, CacheRead: 20, Output: 7, Reasoning: 2}})
	e := newEnv(t, provider("oa", "openai", oa, 30*time.Second), func(c *cli.Config) {
		c.Models.Default = "oa:gpt-4o-mini"
		c.Models.Prices = map[string]app.Price{"oa:gpt-4o-mini": {Input: 1000, CacheRead: 100, Output: 2000}}
	})
	w := newWorld(t, e, e.AdminKey, "c", nil)
	before := e.Do("GET", "/orgs/c", e.AdminKey, nil).Map()["balance"].(float64)
	w.say(t, "user", "Say hello")
	w.debounce()
	m := w.reply(t, 1)
	u := m.Usage
	if m.Status != "COMPLETED" || text(m) != "Hello there" || m.Model != "oa:gpt-4o-mini" || u == nil || u.Estimated {
		t.Fatalf("reply %s %q model %s usage %+v", m.Status, text(m), m.Model, u)
	}
	if u.InputTokens != 120 || u.InputTokensCacheRead != 20 || u.OutputTokens != 7 || u.TotalTokens != 127 ||
		u.ReasoningTokens != 2 || len(u.Turns) != 1 {
		t.Fatalf("usage %+v", u)
	}
	after := e.Do("GET", "/orgs/c", e.AdminKey, nil).Map()["balance"].(float64)
	if cost := (100*1000 + 20*100 + 7*2000) / 1e6; !near(before-after, cost) {
		t.Fatalf("charged %v, want %v", before-after, cost)
	}
	reqs := oa.Requests()
	if len(reqs) != 1 || reqs[0].Header.Get("Authorization") != "Bearer "+testKey || reqs[0].Body["model"] != "gpt-4o-mini" {
		t.Fatalf("requests %+v", reqs)
	}
	msgs, _ := reqs[0].Body["messages"].([]any)
	if len(msgs) != 2 || !strings.Contains(string(reqs[0].Raw), "Say hello") || !strings.Contains(string(reqs[0].Raw), "Ana") {
		t.Fatalf("prompt %s", reqs[0].Raw)
	}
}

// A 429 with Retry-After waits exactly that long on the service's clock, then succeeds.
func TestOpenAIRetryAfter(t *testing.T) {
	t.Parallel()
	oa := apitest.NewOpenAIServer(t)
	oa.Fail(429, "3")
	oa.Reply(apitest.TextReply("after the wait"))
	e := newEnv(t, provider("oa", "openai", oa, 30*time.Second))
	w := newWorld(t, e, e.AdminKey, "c", modelConfig("oa:gpt-4o-mini"))
	w.say(t, "user", "hi")
	w.debounce()
	e.Eventually(20*time.Second, "the retry waits", func() bool { return e.Clock.Waiters() > 0 })
	e.Clock.Advance(2 * time.Second)
	time.Sleep(30 * time.Millisecond)
	if n := len(oa.Requests()); n != 1 {
		t.Fatalf("%d requests before Retry-After passed", n)
	}
	e.Clock.Advance(time.Second)
	m := w.reply(t, 1)
	if m.Status != "COMPLETED" || text(m) != "after the wait" || len(oa.Requests()) != 2 {
		t.Fatalf("reply %s %q after %d requests", m.Status, text(m), len(oa.Requests()))
	}
}

// 500 on every try (retries + 1) moves to the fallback model, an Anthropic one here, whose
// usage is mapped (cache reads and writes are parts of the input); when the fallback fails
// too, the run fails naming both providers and statuses, and no key shows.
func TestFallbackThenFailure(t *testing.T) {
	t.Parallel()
	oa, an := apitest.NewOpenAIServer(t), apitest.NewAnthropicServer(t)
	for range 4 {
		oa.Reply(apitest.LLMReply{Status: 500, Message: "upstream broke for key " + testKey})
	}
	an.Reply(apitest.LLMReply{Text: []string{"from ", "claude"},
		Usage: &apitest.LLMUsage{Input: 50, CacheRead: 10, CacheWrite: 5, Output: 4}})
	e := newEnv(t, provider("oa", "openai", oa, 30*time.Second), provider("an", "anthropic", an, 30*time.Second),
		apitest.WithModels("", "an:claude-test"))
	w := newWorld(t, e, e.AdminKey, "c", modelConfig("oa:gpt-4o-mini"))
	w.say(t, "user", "hi")
	w.debounce()
	advanceWhile(t, e, "fallback", func() bool { return len(an.Requests()) == 0 })
	m := w.reply(t, 1)
	u := m.Usage
	if m.Status != "COMPLETED" || text(m) != "from claude" || m.Model != "an:claude-test" || len(oa.Requests()) != 4 {
		t.Fatalf("reply %s %q model %s after %d requests", m.Status, text(m), m.Model, len(oa.Requests()))
	}
	if u == nil || u.InputTokens != 65 || u.InputTokensCacheRead != 10 || u.InputTokensCacheWrite != 5 || u.OutputTokens != 4 {
		t.Fatalf("usage %+v", u)
	}

	for range 4 {
		oa.Reply(apitest.LLMReply{Status: 500, Message: "upstream broke for key " + testKey})
	}
	an.Reply(apitest.LLMReply{Status: 503})
	w.say(t, "user", "again")
	w.debounce()
	advanceWhile(t, e, "fallback", func() bool { return len(an.Requests()) < 2 })
	m = w.reply(t, 2)
	if m.Status != "FAILED" || m.Error == nil || !strings.Contains(*m.Error, "provider oa: status 500") ||
		!strings.Contains(*m.Error, "provider an: status 503") || strings.Contains(*m.Error, testKey) {
		t.Fatalf("reply %s error %v", m.Status, m.Error)
	}
}

// A connection cut after text has streamed fails the run at once, keeping the text.
func TestFailureAfterTextKeepsTextOverHTTP(t *testing.T) {
	t.Parallel()
	oa := apitest.NewOpenAIServer(t)
	oa.Reply(apitest.LLMReply{Text: []string{"Partial ", "answer", " never sent"}, Drop: true, DropAfter: 2})
	e := newEnv(t, provider("oa", "openai", oa, 30*time.Second))
	w := newWorld(t, e, e.AdminKey, "c", modelConfig("oa:gpt-4o-mini"))
	w.say(t, "user", "hi")
	w.debounce()
	m := w.reply(t, 1)
	if m.Status != "FAILED" || text(m) != "Partial answer" || m.Error == nil || !strings.Contains(*m.Error, "provider oa") ||
		len(oa.Requests()) != 1 {
		t.Fatalf("reply %s %q error %v after %d requests", m.Status, text(m), m.Error, len(oa.Requests()))
	}
}

// Cancel closes the provider's connection within a second; the message is CANCELED with
// the partial text and usage estimated from it.
func TestCancelClosesProviderConnection(t *testing.T) {
	t.Parallel()
	oa, e, w := midRun(t, []string{"Let me ", "think", " about it"})
	var m app.Message
	asked := time.Now()
	e.Do("POST", w.path("/chats/"+w.chat+"/cancel"), e.AdminKey, nil).Expect(200).JSON(&m)
	t.Logf("cancel answered in %s", time.Since(asked))
	disconnected(t, oa, "the cancel")
	if m.Status != "CANCELED" || text(m) != "Let me think" || m.Usage == nil || !m.Usage.Estimated || m.Usage.OutputTokens != 3 {
		t.Fatalf("canceled reply %s %q usage %+v", m.Status, text(m), m.Usage)
	}
}

// A member taking the chat mid-run closes the provider's connection and discards the reply.
func TestTakeoverClosesProviderConnection(t *testing.T) {
	t.Parallel()
	oa, e, w := midRun(t, []string{"Half ", "an answer", " more"})
	e.Do("PATCH", w.path("/chats/"+w.chat), e.AdminKey, map[string]any{"assigned_user_id": e.Owner.ID}).Expect(200)
	disconnected(t, oa, "the takeover")
	if m := w.reply(t, 1); m.Status != "CANCELED" || text(m) != "" || m.Error == nil {
		t.Fatalf("reply %s %q %v", m.Status, text(m), m.Error)
	}
}

// The provider's timeout (models.providers.<name>.timeout) bounds a call that never answers.
func TestProviderTimeout(t *testing.T) {
	t.Parallel()
	oa := apitest.NewOpenAIServer(t)
	oa.Reply(apitest.LLMReply{Hang: true})
	e := newEnv(t, provider("oa", "openai", oa, 200*time.Millisecond), func(c *cli.Config) { c.Assistants.Retries = 0 })
	w := newWorld(t, e, e.AdminKey, "c", modelConfig("oa:gpt-4o-mini"))
	w.say(t, "user", "hi")
	w.debounce()
	m := w.reply(t, 1)
	if m.Status != "FAILED" || m.Error == nil || !strings.Contains(*m.Error, "provider oa: no complete answer within the timeout of 200ms") {
		t.Fatalf("reply %s error %v", m.Status, m.Error)
	}
}

// A newer contact message mid-run closes the provider's connection, discards the reply, and
// one new run answers after the debounce.
func TestSupersedeOverHTTP(t *testing.T) {
	t.Parallel()
	oa, _, w := midRun(t, []string{"Half ", "an answer", " more"}, apitest.TextReply("the new answer"))
	w.say(t, "user", "wait, another thing")
	disconnected(t, oa, "the newer message")
	if m := w.reply(t, 1); m.Status != "CANCELED" || text(m) != "" {
		t.Fatalf("superseded reply %s %q", m.Status, text(m))
	}
	w.debounce()
	if m := w.reply(t, 2); m.Status != "COMPLETED" || text(m) != "the new answer" || len(oa.Requests()) != 2 {
		t.Fatalf("new reply %s %q after %d requests", m.Status, text(m), len(oa.Requests()))
	}
	last := oa.Requests()[1].Raw
	if !strings.Contains(string(last), "wait, another thing") || strings.Contains(string(last), "Half an answer") {
		t.Fatalf("the new run's prompt: %s", last)
	}
}

// midRun starts a run on a local OpenAI-compatible provider that streams the first two of
// pieces and holds the rest, and returns once the chat's message shows those two; later
// replies answer the runs after it.
func midRun(t *testing.T, pieces []string, later ...apitest.LLMReply) (*apitest.LLMServer, *apitest.Env, *world) {
	t.Helper()
	oa := apitest.NewOpenAIServer(t)
	step := make(chan struct{})
	oa.Reply(append([]apitest.LLMReply{{Text: pieces, Step: step}}, later...)...)
	e := newEnv(t, provider("oa", "openai", oa, 30*time.Second))
	w := newWorld(t, e, e.AdminKey, "c", modelConfig("oa:gpt-4o-mini"))
	w.say(t, "user", "hi")
	w.debounce()
	step <- struct{}{}
	time.Sleep(40 * time.Millisecond) // past the flush interval: the next piece writes the text
	step <- struct{}{}
	w.streaming(t, 1, pieces[0]+pieces[1])
	return oa, e, w
}

// disconnected fails the test unless the provider's connection closes within a second of
// what the test did.
func disconnected(t *testing.T, oa *apitest.LLMServer, after string) {
	t.Helper()
	select {
	case <-oa.Disconnected():
	case <-time.After(time.Second):
		t.Fatalf("the provider's connection was still open a second after %s", after)
	}
}
