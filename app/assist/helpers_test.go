package assist_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// newEnv starts a server for runs: a quick run worker, no rate limit in the way of polling,
// and what configure adds (providers, prices).
func newEnv(t *testing.T, configure ...func(*cli.Config)) *apitest.Env {
	t.Helper()
	base := func(c *cli.Config) {
		c.HTTP.RateLimitPerMinute = 1 << 20
		c.Assistants.Tick = 5 * time.Millisecond
		c.Assistants.FlushInterval = 20 * time.Millisecond
	}
	return apitest.New(t, append([]func(*cli.Config){base}, configure...)...)
}

// world is one organization's assistant with knowledge, a contact and their chat.
type world struct {
	e         *apitest.Env
	key, org  string
	assistant string
	contact   string
	chat      string
}

// newWorld makes, through the API of org (key), an assistant with config, a contact "Ana"
// on a custom channel and a chat between them.
func newWorld(t *testing.T, e *apitest.Env, key, org string, config map[string]any) *world {
	t.Helper()
	w := &world{e: e, key: key, org: org}
	body := map[string]any{"name": "Helper"}
	if config != nil {
		body["config"] = config
	}
	w.assistant = e.Do("POST", w.path("/assistants"), key, body).Expect(201).Map()["id"].(string)
	c := e.Do("POST", w.path("/contacts"), key, map[string]any{"name": "Ana",
		"channels": []map[string]any{{"type": "custom", "user_id": "ana-1", "language": "en"}}}).Expect(201).Map()
	w.contact = c["id"].(string)
	w.chat = e.Do("POST", w.path("/chats"), key, map[string]any{"contact_id": w.contact,
		"assistant_id": w.assistant}).Expect(201).Map()["id"].(string)
	return w
}

func (w *world) path(p string) string { return "/orgs/" + w.org + p }

// learn adds TEXT knowledge and waits until it is PROCESSED.
func (w *world) learn(t *testing.T, title, text string) {
	t.Helper()
	k := w.e.Do("POST", w.path("/assistants/"+w.assistant+"/knowledge/contents"), w.key, map[string]any{"title": title,
		"content": map[string]any{"type": "TEXT", "text": text}}).Expect(201).Map()
	w.e.Eventually(10*time.Second, "knowledge processed", func() bool {
		got := w.e.Do("GET", w.path("/assistants/"+w.assistant+"/knowledge/contents/"+k["id"].(string)), w.key, nil).Map()
		return got["status"] == "PROCESSED"
	})
}

// say posts a message to the chat with role user (the contact) or admin (a member).
func (w *world) say(t *testing.T, role, text string) app.Message {
	t.Helper()
	var m app.Message
	w.e.Do("POST", w.path("/chats/"+w.chat+"/messages"), w.key, map[string]any{"role": role,
		"messages": []map[string]any{{"role": role, "parts": []map[string]any{{"type": "text", "text": text}}}}}).Expect(201).JSON(&m)
	return m
}

// messages lists the chat's messages.
func (w *world) messages(t *testing.T) []app.Message {
	t.Helper()
	var ms []app.Message
	w.e.Do("GET", w.path("/chats/"+w.chat+"/messages"), w.key, nil).Expect(200).JSON(&ms)
	return ms
}

// replies lists the assistant's messages of the chat.
func (w *world) replies(t *testing.T) []app.Message {
	t.Helper()
	var out []app.Message
	for _, m := range w.messages(t) {
		if m.Role == "assistant" {
			out = append(out, m)
		}
	}
	return out
}

// reply waits until the chat has n assistant messages and the n-th is no longer RUNNING.
func (w *world) reply(t *testing.T, n int) app.Message {
	t.Helper()
	var last app.Message
	w.e.Eventually(10*time.Second, fmt.Sprintf("assistant reply %d finished", n), func() bool {
		rs := w.replies(t)
		if len(rs) < n {
			return false
		}
		last = rs[n-1]
		return last.Status != "RUNNING"
	})
	return last
}

// debounce moves the clock past the debounce so the waiting run starts.
func (w *world) debounce() { w.e.Clock.Advance(time.Second) }

// text is a message's text parts, joined.
func text(m app.Message) string {
	var b strings.Builder
	for _, t := range m.Messages {
		for _, p := range t.Parts {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// chat reads the chat.
func (w *world) getChat(t *testing.T) app.Chat {
	t.Helper()
	var c app.Chat
	w.e.Do("GET", w.path("/chats/"+w.chat), w.key, nil).Expect(200).JSON(&c)
	return c
}
