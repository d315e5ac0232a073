package assist_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/app/assist"
)

// automationConfig is an assistant configuration on model with the conversation settings.
func automationConfig(model string, conversation map[string]any) map[string]any {
	cfg := modelConfig(model)
	conv := cfg["conversation"].(map[string]any)
	for k, v := range conversation {
		conv[k] = v
	}
	return cfg
}

// janitor runs one janitor pass, as the minute ticker would.
func (w *world) janitor() { w.e.Runtime.Janitor.RunOnce(context.Background()) }

// chatState is the chat's state object as the API answers it.
func (w *world) chatState(t *testing.T) map[string]any {
	t.Helper()
	return w.e.Do("GET", w.path("/chats/"+w.chat), w.key, nil).Expect(200).Map()["state"].(map[string]any)
}

func (w *world) close(t *testing.T) {
	t.Helper()
	w.e.Do("PATCH", w.path("/chats/"+w.chat), w.key, map[string]any{"state": "CLOSED"}).Expect(200)
}

// noRun asserts that nothing is scheduled nor in flight: the cancel route finds nothing.
func (w *world) noRun(t *testing.T) {
	t.Helper()
	w.e.Do("POST", w.path("/chats/"+w.chat+"/cancel"), w.key, nil).Expect(409)
}

// The chat shows the assistant's banner, suggestions, intro and CSAT switch for UIs; the
// first contact message gets the intro as an assistant message before the run's answer,
// later ones do not.
func TestAutomationIntroAndBanner(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newWorld(t, e, e.AdminKey, "c", automationConfig(app.AutoModel, map[string]any{
		"welcome_banner": "Welcome to Acme", "suggested_messages": []string{"Prices?", "Opening hours?"},
		"auto_intro_message": "Hi, I am the Acme assistant.", "enable_auto_csat": true}))
	got := w.chatState(t)["assistant"].(map[string]any)["config"].(map[string]any)["conversation"]
	want := map[string]any{"welcome_banner": "Welcome to Acme", "suggested_messages": []any{"Prices?", "Opening hours?"},
		"auto_intro_message": "Hi, I am the Acme assistant.", "enable_auto_csat": true}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("state.assistant.config.conversation = %v, want %v", got, want)
	}
	w.say(t, "user", "hello")
	ms := w.messages(t)
	if len(ms) != 2 || ms[1].Role != "assistant" || ms[1].Status != "COMPLETED" || text(ms[1]) != "Hi, I am the Acme assistant." {
		t.Fatalf("after the first contact message: %+v", ms)
	}
	w.debounce()
	if r := w.reply(t, 2); r.Status != "COMPLETED" || text(r) == "Hi, I am the Acme assistant." {
		t.Fatalf("the run's answer %s %q", r.Status, text(r))
	}
	w.say(t, "user", "and another thing")
	w.debounce()
	w.reply(t, 3)
	if rs := w.replies(t); len(rs) != 3 {
		t.Fatalf("a second contact message got an intro too: %d assistant messages", len(rs))
	}
}

// A chat whose last message is the assistant's closes after 24 h of contact silence, not
// before, with chat.updated and the rating question (enable_auto_csat); a chat whose last
// message is the contact's stays open.
func TestAutomationAutoResolve(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newWorld(t, e, e.AdminKey, "c", automationConfig(app.AutoModel, map[string]any{
		"enable_auto_resolve": true, "enable_auto_csat": true}))
	w.say(t, "user", "hello")
	w.debounce()
	w.reply(t, 1)
	e.Clock.Advance(24*time.Hour - time.Second)
	w.janitor()
	if st := w.chatState(t)["state"]; st != "OPEN" {
		t.Fatalf("closed before 24 h of silence: %v", st)
	}
	s := e.Stream(w.path("/chats/"+w.chat+"/stream"), w.key, "")
	defer s.Close()
	if ev := s.Next(); ev.Type != "sync" {
		t.Fatalf("first stream event %s", ev.Type)
	}
	e.Clock.Advance(time.Second)
	w.janitor()
	if st := w.chatState(t)["state"]; st != "CLOSED" {
		t.Fatalf("after 24 h of silence: state %v", st)
	}
	ev := s.Next()
	if ev.Type != "chat.updated" || ev.Map(t)["state"].(map[string]any)["state"] != "CLOSED" {
		t.Fatalf("stream event %s %s", ev.Type, ev.Data)
	}
	if ev := s.Next(); ev.Type != "message.created" || !strings.Contains(ev.Data, "rate this conversation") {
		t.Fatalf("stream event %s %s", ev.Type, ev.Data)
	}

	// The contact spoke last (AI off, so nobody answered): no auto resolve.
	w2 := newWorld(t, e, e.AdminKey, "c", automationConfig(app.AutoModel, map[string]any{"enable_auto_resolve": true}))
	w2.say(t, "user", "hello")
	w2.debounce()
	w2.reply(t, 1)
	e.Do("PATCH", w2.path("/chats/"+w2.chat), w2.key, map[string]any{"ai_enabled": false}).Expect(200)
	w2.say(t, "user", "anyone?")
	e.Clock.Advance(48 * time.Hour)
	w2.janitor()
	if st := w2.chatState(t)["state"]; st != "OPEN" {
		t.Fatalf("closed although the contact spoke last: %v", st)
	}

	// A member took the chat after the assistant's answer: it is the member's to close.
	w3 := newWorld(t, e, e.AdminKey, "c", automationConfig(app.AutoModel, map[string]any{"enable_auto_resolve": true}))
	w3.say(t, "user", "hello")
	w3.debounce()
	w3.reply(t, 1)
	e.Do("PATCH", w3.path("/chats/"+w3.chat), w3.key, map[string]any{"assigned_user_id": e.Owner.ID}).Expect(200)
	e.Clock.Advance(48 * time.Hour)
	w3.janitor()
	if st := w3.chatState(t)["state"]; st != "OPEN" {
		t.Fatalf("closed although a member took the chat: %v", st)
	}
}

// An answer that ends with a question sets follow_up_at 4 h later; then the assistant
// writes one follow-up (a run whose prompt asks for it), and no second one in the same
// silence; a contact message starts a new count.
func TestAutomationFollowUps(t *testing.T) {
	t.Parallel()
	oa := apitest.NewOpenAIServer(t)
	oa.Reply(apitest.TextReply("Which plan are you on?"), apitest.TextReply("Still there? Which plan is it?"),
		apitest.TextReply("Do you want to upgrade?"), apitest.TextReply("Any news about the upgrade?"))
	e := newEnv(t, provider("oa", "openai", oa, 5*time.Second))
	w := newWorld(t, e, e.AdminKey, "c", automationConfig("oa:gpt-4o-mini", map[string]any{"enable_auto_follow_ups": true}))
	w.say(t, "user", "my invoice is wrong")
	w.debounce()
	answered := e.Clock.Now()
	w.reply(t, 1)
	if at := w.getChat(t).State.FollowUpAt; !at.Equal(answered.Add(4 * time.Hour)) {
		t.Fatalf("follow_up_at %v, want %v", at, answered.Add(4*time.Hour))
	}
	e.Clock.Advance(4*time.Hour - time.Second)
	w.janitor()
	w.noRun(t)
	e.Clock.Advance(time.Second)
	w.janitor()
	if r := w.reply(t, 2); r.Status != "COMPLETED" || text(r) != "Still there? Which plan is it?" {
		t.Fatalf("follow-up %s %q", r.Status, text(r))
	}
	if raw := string(oa.Requests()[1].Raw); !strings.Contains(raw, jsonEscaped(assist.FollowUpInstruction)) {
		t.Fatalf("the follow-up's prompt lacks the instruction: %s", raw)
	}
	if c := w.getChat(t); !c.State.FollowUpAt.IsZero() {
		t.Fatalf("follow_up_at %v after the follow-up", c.State.FollowUpAt)
	}
	e.Clock.Advance(5 * time.Hour)
	w.janitor()
	w.noRun(t)
	if n := len(w.replies(t)); n != 2 {
		t.Fatalf("%d assistant messages: a second follow-up in one silence", n)
	}

	w.say(t, "user", "the basic plan")
	w.debounce()
	w.reply(t, 3)
	e.Clock.Advance(4 * time.Hour)
	w.janitor()
	if r := w.reply(t, 4); text(r) != "Any news about the upgrade?" {
		t.Fatalf("follow-up after a new silence %q", text(r))
	}
}

// jsonEscaped is s as it appears inside a JSON string.
func jsonEscaped(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// Closing a chat asks the contact for a rating; a "5" sets csat_score and starts no run; a
// normal reply after that runs normally.
func TestAutomationCSAT(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newWorld(t, e, e.AdminKey, "c", automationConfig(app.AutoModel, map[string]any{"enable_auto_csat": true}))
	w.say(t, "user", "hello")
	w.debounce()
	w.reply(t, 1)
	w.close(t)
	if r := w.reply(t, 2); r.Status != "COMPLETED" || text(r) != app.CSATQuestion {
		t.Fatalf("after close: %s %q", r.Status, text(r))
	}
	w.say(t, "user", "5")
	w.noRun(t)
	if got := w.getChat(t).State.CSATScore; got == nil || *got != 5 {
		t.Fatalf("csat_score %v", got)
	}
	w.say(t, "user", "one more question about prices")
	w.debounce()
	if r := w.reply(t, 3); r.Status != "COMPLETED" || text(r) == app.CSATQuestion {
		t.Fatalf("a normal reply after the rating: %s %q", r.Status, text(r))
	}
	if got := w.getChat(t).State.CSATScore; got == nil || *got != 5 {
		t.Fatalf("csat_score %v after a normal reply", got)
	}
}
