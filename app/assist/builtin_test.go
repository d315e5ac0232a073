package assist_test

import (
	"strings"
	"testing"
	"time"
)

// With no provider configured, a contact's message gets a COMPLETED answer from
// builtin:retrieval that quotes the matching TEXT knowledge under its title; the chat shows
// the reply as its last message and its usage is marked estimated.
func TestBuiltinAnswersFromKnowledge(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newWorld(t, e, e.AdminKey, "c", nil)
	w.learn(t, "Opening hours", "Our shop is open from nine to five on weekdays.\n\nOn Saturdays we open at ten.")
	w.learn(t, "Returns", "Products can be returned within thirty days with the receipt.")
	w.say(t, "user", "When is the shop open on Saturdays?")
	if rs := w.replies(t); len(rs) != 0 {
		t.Fatalf("a run started before the debounce: %+v", rs)
	}
	w.debounce()
	m := w.reply(t, 1)
	got := text(m)
	if m.Status != "COMPLETED" || m.Model != "builtin:retrieval" || m.Error != nil {
		t.Fatalf("reply %s model %s error %v", m.Status, m.Model, m.Error)
	}
	if !strings.Contains(got, `From "Opening hours":`) || !strings.Contains(got, "Saturdays we open at ten") {
		t.Fatalf("reply does not quote the knowledge: %q", got)
	}
	if strings.Contains(got, "Returns") {
		t.Fatalf("reply quotes unrelated knowledge: %q", got)
	}
	if m.Usage == nil || !m.Usage.Estimated || m.Usage.OutputTokens <= 0 || len(m.Usage.Turns) != 1 {
		t.Fatalf("usage %+v", m.Usage)
	}
	c := w.getChat(t)
	if c.LastMessage == nil || c.LastMessage.ID != m.ID || c.Status != "COMPLETED" {
		t.Fatalf("chat last message %+v status %s", c.LastMessage, c.Status)
	}
}

// Nothing in the knowledge matches: the builtin says so, in the assistant's language.
func TestBuiltinSaysWhenNothingMatches(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newWorld(t, e, e.AdminKey, "c", map[string]any{"language": "es", "model": "auto:auto", "timezone": "Europe/Madrid",
		"knowledge_scope": "all", "conversation": map[string]any{"thread_mode": "new"}})
	w.learn(t, "Horario", "Abrimos de nueve a cinco.")
	w.say(t, "user", "¿Venden bicicletas eléctricas?")
	w.debounce()
	m := w.reply(t, 1)
	if m.Status != "COMPLETED" || text(m) != "No encontré nada sobre eso en mi conocimiento." {
		t.Fatalf("reply %s %q", m.Status, text(m))
	}
}

// A burst of contact messages inside the debounce gives one run, which starts only once
// the clock passes the debounce after the last of them.
func TestDebounceBurstGivesOneRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := newWorld(t, e, e.AdminKey, "c", nil)
	w.learn(t, "Shipping", "We ship to every country in Europe.")
	for _, s := range []string{"Hi", "do you ship", "to Europe?"} {
		w.say(t, "user", s)
		e.Clock.Advance(600 * time.Millisecond) // less than the 1 s debounce
	}
	e.WaitIdle() // whatever was due has run: nothing may have started yet
	if rs := w.replies(t); len(rs) != 0 {
		t.Fatalf("%d runs started inside the debounce", len(rs))
	}
	e.Clock.Advance(400 * time.Millisecond)
	m := w.reply(t, 1)
	if !strings.Contains(text(m), "We ship to every country in Europe.") {
		t.Fatalf("reply %q", text(m))
	}
	e.WaitIdle()
	if rs := w.replies(t); len(rs) != 1 {
		t.Fatalf("%d replies to one burst", len(rs))
	}
}
