package assist_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/app/webhook"
)

// end_conversation closes the chat after the answer; block_contact blocks the contact and
// fires contact.blocked.
func TestEndConversationAndBlockContact(t *testing.T) {
	t.Parallel()
	oa := apitest.NewOpenAIServer(t)
	rcv := apitest.NewReceiver(t)
	oa.Reply(apitest.LLMReply{ToolCalls: []apitest.LLMToolCall{call("c1", "block_contact", `{"reason":"threats"}`),
		call("c2", "end_conversation", `{}`)}})
	oa.Reply(apitest.TextReply("Goodbye."))
	e := newEnv(t, provider("oa", "openai", oa, 5*time.Second))
	e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	w := newWorld(t, e, e.AdminKey, "c", toolConfig("oa:m", "enable_end_conversation_tool", "enable_block_contact_tool"))
	w.say(t, "user", "I will find you")
	w.debounce()
	if m := w.reply(t, 1); m.Status != "COMPLETED" || text(m) != "Goodbye." || len(toolCalls(m)) != 2 {
		t.Fatalf("reply %s %q %+v", m.Status, text(m), toolCalls(m))
	}
	if st := w.getChat(t).State.State; st != "CLOSED" {
		t.Fatalf("chat state %s, want CLOSED", st)
	}
	ct := e.Do("GET", w.path("/contacts/"+w.contact), e.AdminKey, nil).Expect(200).Map()
	if ct["blocked"] != true {
		t.Fatalf("contact %v", ct)
	}
	got := rcv.Wait(t, 1, 5*time.Second)
	if ev := decodeEvent(t, got[0].Body); ev["type"] != app.EventContactBlocked {
		t.Fatalf("event %s", got[0].Body)
	}
}

// A memory saved in one chat is in the prompt of the contact's next chat.
func TestMemorySavedThenRemembered(t *testing.T) {
	t.Parallel()
	oa := apitest.NewOpenAIServer(t)
	oa.Reply(apitest.LLMReply{ToolCalls: []apitest.LLMToolCall{call("c1", "save_memory",
		`{"type":"PREFERENCE","content":"prefers answers in French","importance":0.9}`)}})
	oa.Reply(apitest.TextReply("Noted."))
	oa.Reply(apitest.TextReply("Bonjour!"))
	e := newEnv(t, provider("oa", "openai", oa, 5*time.Second))
	w := newWorld(t, e, e.AdminKey, "c", toolConfig("oa:m", "enable_memories"))
	w.say(t, "user", "Please answer in French from now on")
	w.debounce()
	if m := w.reply(t, 1); m.Status != "COMPLETED" {
		t.Fatalf("reply %s", m.Status)
	}
	var mems []app.Memory
	e.Do("GET", w.path("/contacts/"+w.contact+"/memories"), e.AdminKey, nil).Expect(200).JSON(&mems)
	if len(mems) != 1 || mems[0].Type != "PREFERENCE" || mems[0].Importance != 0.9 {
		t.Fatalf("memories %+v", mems)
	}
	w.chat = e.Do("POST", w.path("/chats"), e.AdminKey, map[string]any{"contact_id": w.contact,
		"assistant_id": w.assistant}).Expect(201).Map()["id"].(string)
	w.say(t, "user", "Hello")
	w.debounce()
	w.reply(t, 1)
	reqs := oa.Requests()
	if len(reqs) != 3 || !strings.Contains(string(reqs[2].Raw), "prefers answers in French") {
		t.Fatalf("the next chat's prompt lacks the memory: %s", reqs[len(reqs)-1].Raw)
	}
	if strings.Contains(string(reqs[0].Raw), "prefers answers in French") {
		t.Fatal("the memory was in the prompt before it was saved")
	}
}

// A chat tool with a callback is offered, called with a POST signed like a webhook with the
// connection's signing_secret, and its JSON answer is the model's tool result.
func TestCallbackToolSigned(t *testing.T) {
	t.Parallel()
	oa := apitest.NewOpenAIServer(t)
	rcv := apitest.NewReceiver(t)
	rcv.Respond(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"shipped"}`))
	})
	oa.Reply(apitest.LLMReply{ToolCalls: []apitest.LLMToolCall{call("c1", "order_status", `{"order":"42"}`)}})
	oa.Reply(apitest.TextReply("Your order has shipped."))
	e := newEnv(t, provider("oa", "openai", oa, 5*time.Second))
	w := newWorld(t, e, e.AdminKey, "c", modelConfig("oa:m"))
	const secret = "whsec_tool_secret_for_tests"
	conn := e.Do("POST", w.path("/connections"), e.AdminKey, map[string]any{"type": "TOOLS", "name": "shop",
		"secrets": map[string]string{"signing_secret": secret}}).Expect(201).Map()["id"].(string)
	w.chat = e.Do("POST", w.path("/chats"), e.AdminKey, map[string]any{"contact_id": w.contact, "assistant_id": w.assistant,
		"tools": []map[string]any{{"name": "order_status", "description": "status of an order", "callback": rcv.URL,
			"connection_id": conn, "enabled_by_default": true, "parameters": map[string]any{"type": "object",
				"properties": map[string]any{"order": map[string]any{"type": "string"}}, "required": []string{"order"}}}}}).Expect(201).Map()["id"].(string)
	w.say(t, "user", "Where is order 42?")
	w.debounce()
	m := w.reply(t, 1)
	calls := toolCalls(m)
	if m.Status != "COMPLETED" || len(calls) != 1 || string(calls[0].Result) != `{"status":"shipped"}` {
		t.Fatalf("reply %s %+v", m.Status, calls)
	}
	got := rcv.Requests()
	if len(got) != 1 {
		t.Fatalf("%d callback requests", len(got))
	}
	h := got[0].Header
	ts, _ := strconv.ParseInt(h.Get("x-webhook-timestamp"), 10, 64)
	if want := webhook.Sign(secret, h.Get("x-webhook-id"), ts, got[0].Body); h.Get("x-webhook-signature") != want {
		t.Fatalf("signature %q, want %q", h.Get("x-webhook-signature"), want)
	}
	if !strings.Contains(string(got[0].Body), `"arguments":{"order":"42"}`) {
		t.Fatalf("callback body %s", got[0].Body)
	}
	if reqs := oa.Requests(); len(reqs) != 2 || !strings.Contains(string(reqs[1].Raw), "shipped") {
		t.Fatalf("the model did not get the result")
	}
}

// A run whose chat stops being the assistant's before its final commit (here the assistant
// is disabled while the last model call streams) commits nothing but its usage: CANCELED,
// no handoff, no chat.assigned.
func TestNoEffectsWhenTheChatIsNoLongerTheAIs(t *testing.T) {
	t.Parallel()
	oa := apitest.NewOpenAIServer(t)
	rcv := apitest.NewReceiver(t)
	step := make(chan struct{})
	oa.Reply(apitest.LLMReply{ToolCalls: []apitest.LLMToolCall{call("c1", "transfer_to_human", `{"reason":"asks"}`)}})
	oa.Reply(apitest.LLMReply{Text: []string{"Passing ", "you on."}, Step: step})
	e := newEnv(t, provider("oa", "openai", oa, 5*time.Second))
	e.Webhook(e.AdminKey, "c", rcv.URL, app.EventChatAssigned)
	w := newWorld(t, e, e.AdminKey, "c", toolConfig("oa:m", "enable_transfer_to_human_tool"))
	w.say(t, "user", "a person please")
	w.debounce()
	e.Eventually(5*time.Second, "second model call", func() bool { return len(oa.Requests()) == 2 })
	e.Do("PATCH", w.path("/assistants/"+w.assistant), e.AdminKey, map[string]any{"enabled": false}).Expect(200)
	close(step)
	m := w.reply(t, 1)
	if m.Status != "CANCELED" || text(m) != "" || m.Error == nil || !strings.Contains(*m.Error, "no longer") || m.Usage == nil {
		t.Fatalf("reply %s %q error %v usage %v", m.Status, text(m), m.Error, m.Usage)
	}
	if c := w.getChat(t); !c.State.AIEnabled {
		t.Fatal("the handoff was applied over the stop")
	}
	rcv.Quiet(t, 0, 100*time.Millisecond)
}

// A callback that fails (here HTTP 500) is an error the model reads; the run goes on.
func TestCallbackFailureToldToTheModel(t *testing.T) {
	t.Parallel()
	oa := apitest.NewOpenAIServer(t)
	rcv := apitest.NewReceiver(t)
	rcv.Status(500)
	oa.Reply(apitest.LLMReply{ToolCalls: []apitest.LLMToolCall{call("c1", "lookup", `{}`)}})
	oa.Reply(apitest.TextReply("The lookup is down."))
	e := newEnv(t, provider("oa", "openai", oa, 5*time.Second))
	w := newWorld(t, e, e.AdminKey, "c", modelConfig("oa:m"))
	conn := e.Do("POST", w.path("/connections"), e.AdminKey, map[string]any{"type": "TOOLS", "name": "shop",
		"secrets": map[string]string{"signing_secret": "whsec_x"}}).Expect(201).Map()["id"].(string)
	w.chat = e.Do("POST", w.path("/chats"), e.AdminKey, map[string]any{"contact_id": w.contact, "assistant_id": w.assistant,
		"tools": []map[string]any{{"name": "lookup", "callback": rcv.URL, "connection_id": conn, "enabled_by_default": true},
			{"name": "off", "callback": rcv.URL, "connection_id": conn}}}).Expect(201).Map()["id"].(string)
	w.say(t, "user", "look it up")
	w.debounce()
	m := w.reply(t, 1)
	calls := toolCalls(m)
	if m.Status != "COMPLETED" || text(m) != "The lookup is down." || len(calls) != 1 || !strings.Contains(calls[0].Error, "HTTP 500") {
		t.Fatalf("reply %s %q %+v", m.Status, text(m), calls)
	}
	reqs := oa.Requests()
	if raw := string(reqs[0].Raw); strings.Contains(raw, `"off"`) || !strings.Contains(raw, `"lookup"`) {
		t.Fatalf("offered tools: %s", reqs[0].Body["tools"])
	}
	if !strings.Contains(string(reqs[1].Raw), "error: callback answered HTTP 500") {
		t.Fatalf("the model was not told: %s", reqs[1].Raw)
	}
}

// builtin:retrieval, finding nothing, hands off when the tool is offered.
func TestBuiltinHandsOffWhenNothingMatches(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newWorld(t, e, e.AdminKey, "c", toolConfig("builtin:retrieval", "enable_transfer_to_human_tool"))
	w.say(t, "user", "Something nobody documented")
	w.debounce()
	m := w.reply(t, 1)
	if calls := toolCalls(m); m.Status != "COMPLETED" || len(calls) != 1 || calls[0].Name != app.ToolTransferToHuman || text(m) == "" {
		t.Fatalf("reply %s %q %+v", m.Status, text(m), calls)
	}
	if w.getChat(t).State.AIEnabled {
		t.Fatal("the AI is still on after the builtin's handoff")
	}
}
