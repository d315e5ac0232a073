package assist_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

// The run's stream events carry its message as written, not read back from the database
// (app/runwork.go): each must be exactly what GET /messages answers for it at that moment,
// author, reactions, usage and timestamps included.
func TestStreamedRunMessageIsWhatGETAnswers(t *testing.T) {
	t.Parallel()
	oa := apitest.NewOpenAIServer(t)
	step := make(chan struct{})
	oa.Reply(apitest.LLMReply{Text: []string{"Hello ", "Ana?"}, Step: step, Usage: &apitest.LLMUsage{Input: 12, Output: 3}})
	e := newEnv(t, provider("oa", "openai", oa, 5*time.Second))
	w := newWorld(t, e, e.AdminKey, "c", modelConfig("oa:gpt-4o-mini"))
	s, _ := w.watch(t, "")
	posted := w.say(t, "user", "Hi")
	sameAsListed(t, w, posted.ID, s.Expect(app.StreamMessageCreated).Data)
	w.debounce()
	var m app.Message
	created := s.Expect(app.StreamMessageCreated)
	created.JSON(t, &m)
	sameAsListed(t, w, m.ID, created.Data)

	// A member's reaction while the run streams must be on the final message.
	w.e.Do("PUT", w.path("/chats/"+w.chat+"/messages/"+m.ID+"/reaction"), w.key, map[string]any{"emoji": "👍"}).Expect(200)
	step <- struct{}{}
	step <- struct{}{}
	var final apitest.SSEEvent
	for final.Data == "" {
		ev := s.Next()
		var got app.Message
		if ev.Type == app.StreamMessageUpdated && json.Unmarshal([]byte(ev.Data), &got) == nil && got.Status == "COMPLETED" {
			final = ev
		}
	}
	listed := sameAsListed(t, w, m.ID, final.Data)
	if len(listed.Reactions) != 1 || listed.Usage == nil || listed.Usage.OutputTokens != 3 {
		t.Fatalf("final message %+v: want the reaction and the reported usage", listed)
	}
}

// sameAsListed checks that data, a streamed message, equals the chat's message id as GET
// /messages answers it, and answers that message.
func sameAsListed(t *testing.T, w *world, id, data string) app.Message {
	t.Helper()
	var list []json.RawMessage
	w.e.Do("GET", w.path("/chats/"+w.chat+"/messages"), w.key, nil).Expect(200).JSON(&list)
	for _, raw := range list {
		var m app.Message
		if err := json.Unmarshal(raw, &m); err != nil || m.ID != id {
			continue
		}
		var streamed, stored any
		if err := json.Unmarshal([]byte(data), &streamed); err != nil {
			t.Fatalf("streamed message %s: %v", data, err)
		}
		_ = json.Unmarshal(raw, &stored)
		if !reflect.DeepEqual(streamed, stored) {
			t.Fatalf("streamed message\n%s\nGET answers\n%s", data, raw)
		}
		return m
	}
	t.Fatalf("message %s not listed", id)
	return app.Message{}
}
