package assist_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"wsapi/app/assist"
	"wsapi/cli"
)

// The model request holds the assistant's instructions, language, the current time in its
// timezone, the contact's name and channel, and the last history_messages messages of the
// chat as user/assistant turns (a member's reply to the contact speaks for the business).
func TestPromptCarriesContextAndHistory(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *cli.Config) { c.Assistants.HistoryMessages = 3 })
	var mu sync.Mutex
	var got assist.Request
	install(e, "fake", providerFunc(func(ctx context.Context, req assist.Request, onText func(string)) (assist.Result, error) {
		mu.Lock()
		got = req
		mu.Unlock()
		return assist.Result{Text: "ok"}, nil
	}))
	cfg := modelConfig("fake:m1")
	cfg["instructions"], cfg["timezone"], cfg["language"] = "Be brief and kind.", "Europe/Paris", "fr"
	w := newWorld(t, e, e.AdminKey, "c", cfg)
	w.say(t, "user", "first, out of the window")
	w.say(t, "user", "hi")
	w.say(t, "admin", "hello from the team")
	w.say(t, "user", "what now?")
	w.debounce()
	if m := w.reply(t, 1); m.Status != "COMPLETED" {
		t.Fatalf("reply %s", m.Status)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{"Be brief and kind.", `"fr"`, "Friday, 2 January 2026 04:04 (Europe/Paris)", "Ana", "custom channel"} {
		if !strings.Contains(got.System, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, got.System)
		}
	}
	want := []assist.Message{{Role: "user", Text: "hi"}, {Role: "assistant", Text: "hello from the team"}, {Role: "user", Text: "what now?"}}
	if len(got.Messages) != len(want) {
		t.Fatalf("messages %+v", got.Messages)
	}
	for i := range want {
		if got.Messages[i].Role != want[i].Role || got.Messages[i].Text != want[i].Text {
			t.Fatalf("message %d: %+v, want %+v", i, got.Messages[i], want[i])
		}
	}
	if got.Model != "m1" || got.Language != "fr" || got.AssistantID != w.assistant || got.KnowledgeScope != nil {
		t.Fatalf("request %+v", got)
	}
}
