package assist_test

import (
	"context"
	"strings"
	"testing"

	"wsapi/app"
)

// No run starts, and the waiting one is dropped, when a member takes the chat or
// ai_enabled turns false during the debounce; a member's message in a conversation does not
// start one either.
func TestNoRunWhenTakenOrAIDisabled(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, patch := range []map[string]any{{"assigned_user_id": e.Owner.ID}, {"ai_enabled": false}} {
		w := newWorld(t, e, e.AdminKey, "c", nil)
		w.say(t, "user", "hello")
		e.Do("PATCH", w.path("/chats/"+w.chat), e.AdminKey, patch).Expect(200)
		w.debounce()
		w.say(t, "user", "anyone?") // the chat may not run: this schedules nothing
		w.debounce()
		e.WaitIdle()
		if rs := w.replies(t); len(rs) != 0 {
			t.Fatalf("after %v: %d runs", patch, len(rs))
		}
	}
	w := newWorld(t, e, e.AdminKey, "c", nil)
	w.say(t, "admin", "a member writes to the contact")
	w.debounce()
	e.WaitIdle()
	if rs := w.replies(t); len(rs) != 0 {
		t.Fatalf("a member's message started %d runs", len(rs))
	}
	// The assistant disabled during the debounce: the waiting run is dropped when due.
	w.say(t, "user", "hello?")
	e.Do("PATCH", w.path("/assistants/"+w.assistant), e.AdminKey, map[string]any{"enabled": false}).Expect(200)
	w.debounce()
	e.WaitIdle()
	if rs := w.replies(t); len(rs) != 0 {
		t.Fatalf("a disabled assistant answered: %d runs", len(rs))
	}
}

// In a chat without a contact (the playground) a member's message starts a run.
func TestPlaygroundRunsOnMemberMessage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newWorld(t, e, e.AdminKey, "c", nil)
	w.learn(t, "Pricing", "The basic plan costs ten euros a month.")
	w.chat = e.Do("POST", "/orgs/c/chats", e.AdminKey, map[string]any{"assistant_id": w.assistant}).Expect(201).Map()["id"].(string)
	w.say(t, "user", "How much is the basic plan?")
	w.debounce()
	m := w.reply(t, 1)
	if m.Status != "COMPLETED" || !strings.Contains(text(m), "ten euros a month") {
		t.Fatalf("playground reply %s %q", m.Status, text(m))
	}
	ms := w.messages(t)
	if ms[0].Member == nil || ms[0].Member.User == nil || ms[0].Member.User.ID != e.Owner.ID {
		t.Fatalf("the member's message is not theirs: %+v", ms[0].Member)
	}
}

// A model of a provider that is not configured fails the run with an error that says so.
func TestUnknownProviderFails(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newWorld(t, e, e.AdminKey, "c", map[string]any{"model": "nope:big-model", "timezone": "UTC",
		"knowledge_scope": "all", "language": "auto", "conversation": map[string]any{"thread_mode": "new"}})
	w.say(t, "user", "hello")
	w.debounce()
	m := w.reply(t, 1)
	if m.Status != "FAILED" || m.Error == nil || !strings.Contains(*m.Error, `unknown model provider "nope"`) || m.Model != "nope:big-model" {
		t.Fatalf("reply %s model %s error %v", m.Status, m.Model, m.Error)
	}
}

// A run does not start when the organization's balance is 0 or less: its message fails
// with "balance exhausted" at once.
func TestBalanceExhaustedFailsTheRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	org, key := e.OrgWithAdmin("Broke")
	if _, err := e.Runtime.Service.SetBalance(context.Background(), org.ID, 0); err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, e, key, org.ID, nil)
	w.learn(t, "Hours", "We open at nine.")
	w.say(t, "user", "When do you open?")
	w.debounce()
	m := w.reply(t, 1)
	if m.Status != "FAILED" || m.Error == nil || *m.Error != app.ErrBalanceExhausted || m.Usage != nil {
		t.Fatalf("reply %s error %v usage %+v", m.Status, m.Error, m.Usage)
	}
	if c := w.getChat(t); c.Status != "FAILED" {
		t.Fatalf("chat status %s", c.Status)
	}
}

// Cancel: another organization's chat is 404; nothing to cancel is 409; a run still
// waiting out its debounce is dropped (200, null) and never starts.
func TestCancelWithoutRunInFlight(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newWorld(t, e, e.AdminKey, "c", nil)
	_, otherKey := e.OrgWithAdmin("Other")
	e.Do("POST", "/orgs/c/chats/"+w.chat+"/cancel", otherKey, nil).ExpectError(404, "not_found")
	e.Do("POST", w.path("/chats/"+w.chat+"/cancel"), e.AdminKey, nil).ExpectError(409, "conflict")
	w.say(t, "user", "hello")
	res := e.Do("POST", w.path("/chats/"+w.chat+"/cancel"), e.AdminKey, nil).Expect(200)
	if strings.TrimSpace(string(res.Body)) != "null" {
		t.Fatalf("cancel of a waiting run answered %s", res.Body)
	}
	w.debounce()
	e.WaitIdle()
	if rs := w.replies(t); len(rs) != 0 {
		t.Fatalf("a dropped run started: %d replies", len(rs))
	}
	readOnly := e.RoleKey(e.Org.ID, "inbox:read")
	e.Do("POST", w.path("/chats/"+w.chat+"/cancel"), readOnly, nil).ExpectError(403, "permission_denied")
}

// A contact's voice message during a run goes to a message of the contact, not into the
// assistant's reply in flight.
func TestMediaDuringRunIsTheContacts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	install(e, "fake", &hanging{pieces: []string{"Half ", "an answer"}})
	w := newWorld(t, e, e.AdminKey, "c", modelConfig("fake:m1"))
	w.say(t, "user", "hi")
	w.debounce()
	reply := w.streaming(t, 1, "Half an answer")
	var m app.Message
	e.Do("POST", w.path("/chats/"+w.chat+"/events"), e.AdminKey, map[string]any{"type": "media",
		"data": map[string]any{"audio": "aGVsbG8=", "format": "mp3"}}).Expect(200).JSON(&m)
	if m.Role != "user" || m.ID == reply.ID {
		t.Fatalf("the audio went to %s message %s (the reply is %s)", m.Role, m.ID, reply.ID)
	}
}
