package assist_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// toolConfig is an assistant on model with the conversation flags given set.
func toolConfig(model string, flags ...string) map[string]any {
	c := modelConfig(model)
	conv := c["conversation"].(map[string]any)
	for _, f := range flags {
		conv[f] = true
	}
	return c
}

func call(id, name, args string) apitest.LLMToolCall {
	return apitest.LLMToolCall{ID: id, Name: name, Args: []string{args}}
}

// toolCalls are the tool_call parts of a message.
func toolCalls(m app.Message) []app.ToolCallPart {
	var out []app.ToolCallPart
	for _, t := range m.Messages {
		for _, p := range t.Parts {
			if p.Type == "tool_call" && p.ToolCall != nil {
				out = append(out, *p.ToolCall)
			}
		}
	}
	return out
}

func citations(m app.Message) []app.Citation {
	var out []app.Citation
	for _, t := range m.Messages {
		for _, p := range t.Parts {
			if p.Type == "citation" && p.Citation != nil {
				out = append(out, *p.Citation)
			}
		}
	}
	return out
}

// A model that keeps calling tools is cut at assistants.max_steps: the last request offers
// no tools and its answer ends the run; each call is a turn of the usage, each tool call a
// part of the message with its result, and the search's chunk is cited.
func TestToolLoopStopsAtMaxSteps(t *testing.T) {
	t.Parallel()
	oa := apitest.NewOpenAIServer(t)
	oa.Reply(apitest.LLMReply{ToolCalls: []apitest.LLMToolCall{call("c1", "search_knowledge", `{"query":"shop opens"}`)},
		Usage: &apitest.LLMUsage{Input: 10, Output: 2}})
	oa.Reply(apitest.LLMReply{ToolCalls: []apitest.LLMToolCall{call("c2", "search_knowledge", `{"query":"hours"}`)},
		Usage: &apitest.LLMUsage{Input: 20, Output: 2}})
	oa.Reply(apitest.LLMReply{Text: []string{"We open at 9."}, Usage: &apitest.LLMUsage{Input: 30, Output: 4}})
	e := newEnv(t, provider("oa", "openai", oa, 5*time.Second), func(c *cli.Config) { c.Assistants.MaxSteps = 3 })
	w := newWorld(t, e, e.AdminKey, "c", modelConfig("oa:gpt-4o-mini"))
	w.learn(t, "Opening hours", "The shop opens at 9 in the morning and closes at 6 in the evening.")
	w.say(t, "user", "When do you open?")
	w.debounce()
	m := w.reply(t, 1)
	if m.Status != "COMPLETED" || text(m) != "We open at 9." || m.Usage == nil || len(m.Usage.Turns) != 3 || m.Usage.InputTokens != 60 {
		t.Fatalf("reply %s %q usage %+v", m.Status, text(m), m.Usage)
	}
	reqs := oa.Requests()
	if len(reqs) != 3 || reqs[0].Body["tools"] == nil || reqs[1].Body["tools"] == nil || reqs[2].Body["tools"] != nil {
		t.Fatalf("%d requests; tools offered: %v %v %v", len(reqs), reqs[0].Body["tools"] != nil,
			len(reqs) > 1 && reqs[1].Body["tools"] != nil, len(reqs) > 2 && reqs[2].Body["tools"] != nil)
	}
	if !strings.Contains(string(reqs[1].Raw), `"role":"tool"`) || !strings.Contains(string(reqs[1].Raw), "opens at 9") {
		t.Fatalf("second request lacks the tool result: %s", reqs[1].Raw)
	}
	calls := toolCalls(m)
	if len(calls) != 2 || calls[0].Name != "search_knowledge" || calls[0].Error != "" ||
		!strings.Contains(string(calls[0].Result), "opens at 9") || string(calls[0].Arguments) != `{"query":"shop opens"}` {
		t.Fatalf("tool calls %+v", calls)
	}
	cites := citations(m)
	if len(cites) != 1 || cites[0].Title != "Opening hours" || cites[0].ContentID == "" || !strings.Contains(cites[0].Text, "opens at 9") {
		t.Fatalf("citations %+v", cites)
	}
	// Each call went out on the chat stream as it ended.
	var seen int
	for _, ev := range chatStreamEvents(t, w) {
		if ev == app.StreamMessageToolCall {
			seen++
		}
	}
	if seen != 2 {
		t.Fatalf("%d message.tool_call events, want 2", seen)
	}
}

// chatStreamEvents are the types of the chat's stored stream events (read from the store:
// what the chat stream replays after a Last-Event-ID).
func chatStreamEvents(t *testing.T, w *world) []string {
	t.Helper()
	evs, err := w.e.Runtime.Service.StreamEventsAfter(t.Context(), w.e.Org.ID, w.chat, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range evs {
		out = append(out, ev.Type)
	}
	return out
}

// Arguments that break the tool's schema are not executed: the model gets the validation
// error as the tool's result and the run goes on to its answer; nothing is handed off.
func TestSchemaInvalidCallAnsweredToTheModel(t *testing.T) {
	t.Parallel()
	an := apitest.NewAnthropicServer(t)
	an.Reply(apitest.LLMReply{ToolCalls: []apitest.LLMToolCall{call("toolu_1", "transfer_to_human", `{"summary":7}`)}})
	an.Reply(apitest.TextReply("Let me try again later."))
	e := newEnv(t, provider("an", "anthropic", an, 5*time.Second))
	w := newWorld(t, e, e.AdminKey, "c", toolConfig("an:claude-test", "enable_transfer_to_human_tool"))
	w.say(t, "user", "I want a person")
	w.debounce()
	m := w.reply(t, 1)
	calls := toolCalls(m)
	if m.Status != "COMPLETED" || len(calls) != 1 || !strings.Contains(calls[0].Error, "invalid arguments") ||
		!strings.Contains(calls[0].Error, "reason") {
		t.Fatalf("reply %s tool calls %+v", m.Status, calls)
	}
	reqs := an.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Raw), `"is_error":true`) || !strings.Contains(string(reqs[1].Raw), "invalid arguments") {
		t.Fatalf("the model was not told: %d requests, last %s", len(reqs), reqs[len(reqs)-1].Raw)
	}
	if c := w.getChat(t); !c.State.AIEnabled {
		t.Fatal("an invalid transfer turned the AI off")
	}
}

// decodeEvent is a webhook delivery's body.
func decodeEvent(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var ev map[string]any
	if err := json.Unmarshal(body, &ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

// transfer_to_human turns the AI off (the chat stays OPEN and unassigned), leaves a note
// with the reason and summary, fires chat.assigned once with the AI off, and the contact
// reads the model's final text. No run starts until a member turns the AI back on, even
// after the chat is closed and reopened.
func TestHandoffStopsRunsUntilAIIsBackOn(t *testing.T) {
	t.Parallel()
	an := apitest.NewAnthropicServer(t)
	rcv := apitest.NewReceiver(t)
	an.Reply(apitest.LLMReply{ToolCalls: []apitest.LLMToolCall{call("toolu_1", "transfer_to_human",
		`{"reason":"asks for a refund","summary":"order 42 arrived broken"}`)}})
	an.Reply(apitest.TextReply("A colleague will answer you here."))
	e := newEnv(t, provider("an", "anthropic", an, 5*time.Second))
	e.Webhook(e.AdminKey, "c", rcv.URL, app.EventChatAssigned)
	w := newWorld(t, e, e.AdminKey, "c", toolConfig("an:claude-test", "enable_transfer_to_human_tool"))
	w.say(t, "user", "I want my money back")
	w.debounce()
	m := w.reply(t, 1)
	if m.Status != "COMPLETED" || text(m) != "A colleague will answer you here." {
		t.Fatalf("reply %s %q", m.Status, text(m))
	}
	c := w.getChat(t)
	if c.State.AIEnabled || c.State.State != "OPEN" || c.AssignedUserID != "" {
		t.Fatalf("chat after handoff: ai %v state %s assigned %q", c.State.AIEnabled, c.State.State, c.AssignedUserID)
	}
	var notes []app.Note
	e.Do("GET", w.path("/contacts/"+w.contact+"/notes"), e.AdminKey, nil).Expect(200).JSON(&notes)
	if len(notes) != 1 || !strings.Contains(notes[0].Content, "asks for a refund") || !strings.Contains(notes[0].Content, "order 42") ||
		notes[0].User.ID != w.assistant || notes[0].User.Name != "Helper" {
		t.Fatalf("notes %+v", notes)
	}
	got := rcv.Wait(t, 1, 5*time.Second)
	ev := decodeEvent(t, got[0].Body)
	data, _ := ev["data"].(map[string]any)
	st, _ := data["state"].(map[string]any)
	if ev["type"] != app.EventChatAssigned || st["ai_enabled"] != false || st["channel_type"] != "custom" ||
		st["assistant"] == nil || st["assigned_user"] != nil {
		t.Fatalf("chat.assigned %s", got[0].Body)
	}

	// The contact writes again, the chat is closed and reopened: still no run.
	w.say(t, "user", "hello?")
	e.Do("PATCH", w.path("/chats/"+w.chat), e.AdminKey, map[string]any{"state": "CLOSED"}).Expect(200)
	e.Do("PATCH", w.path("/chats/"+w.chat), e.AdminKey, map[string]any{"state": "OPEN"}).Expect(200)
	w.say(t, "user", "anyone?")
	w.debounce()
	e.WaitIdle() // a run that was due would have run
	if n := len(w.replies(t)); n != 1 || len(an.Requests()) != 2 || w.getChat(t).State.AIEnabled {
		t.Fatalf("%d replies, %d model requests after the handoff", n, len(an.Requests()))
	}
	rcv.Quiet(t, 1, 50*time.Millisecond)

	// A member turns the AI back on: the next message gets an answer.
	an.Reply(apitest.TextReply("I am back."))
	e.Do("PATCH", w.path("/chats/"+w.chat), e.AdminKey, map[string]any{"ai_enabled": true}).Expect(200)
	w.say(t, "user", "hi again")
	w.debounce()
	if m := w.reply(t, 2); m.Status != "COMPLETED" || text(m) != "I am back." {
		t.Fatalf("after AI on: %s %q", m.Status, text(m))
	}
}

// builtin:retrieval's answers cite the chunks they quote.
func TestBuiltinAnswerCarriesCitations(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newWorld(t, e, e.AdminKey, "c", modelConfig("builtin:retrieval"))
	w.learn(t, "Returns", "Returns are accepted within thirty days with the receipt.")
	w.say(t, "user", "Can I make returns?")
	w.debounce()
	m := w.reply(t, 1)
	cites := citations(m)
	if m.Status != "COMPLETED" || len(cites) != 1 || cites[0].Title != "Returns" || !strings.Contains(cites[0].Text, "thirty days") {
		t.Fatalf("reply %s %q citations %+v", m.Status, text(m), cites)
	}
}
