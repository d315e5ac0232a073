package api_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"wsapi/app/apitest"
)

// TestMessageInputIsChecked: turns, usage counters, broadcast_id and audio parts are checked
// on POST and PATCH alike, and a refused write changes nothing.
func TestMessageInputIsChecked(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	chat := chConversation(e, e.AdminKey, "c", "Grace")["id"].(string)
	msgs := "/orgs/c/chats/" + chat + "/messages"
	m := chMsg(e, e.AdminKey, "c", chat, "admin", "hello")
	one := msgs + "/" + m["id"].(string)
	text := chText("admin", "x")

	e.DoInvalid("PATCH", one, e.AdminKey, map[string]any{"messages": []any{nil}}).ExpectError(400, "invalid_argument", "messages[0].role")
	e.DoInvalid("PATCH", one, e.AdminKey, map[string]any{"messages": []any{}}).ExpectError(400, "invalid_argument", "messages")
	e.DoInvalid("PATCH", one, e.AdminKey, map[string]any{"messages": []any{map[string]any{"role": "admin", "parts": []any{nil}}}}).
		ExpectError(400, "invalid_argument", "messages[0].parts[0].type")
	e.DoInvalid("POST", msgs, e.AdminKey, map[string]any{"role": "admin", "messages": []any{nil}}).ExpectError(400, "invalid_argument", "messages[0].role")

	for _, bad := range []float64{-1, 1e308, 1e12 + 1} {
		usage := map[string]any{"input_tokens": bad, "turns": []any{map[string]any{"output_tokens": bad}}}
		e.DoInvalid("PATCH", one, e.AdminKey, map[string]any{"usage": usage}).
			ExpectError(400, "invalid_argument", "usage.input_tokens", "usage.turns[0].output_tokens")
		e.DoInvalid("POST", msgs, e.AdminKey, map[string]any{"role": "admin", "messages": text, "usage": usage}).
			ExpectError(400, "invalid_argument", "usage.input_tokens", "usage.turns[0].output_tokens")
	}
	e.Do("PATCH", one, e.AdminKey, map[string]any{"usage": map[string]any{"input_tokens": 1e12, "output_tokens": 0}}).Expect(200)

	e.Do("POST", msgs, e.AdminKey, map[string]any{"role": "admin", "messages": text, "broadcast_id": "bc_nope"}).
		ExpectError(404, "not_found")
	other, otherKey := e.OrgWithAdmin("Other")
	ct := chContact(e, otherKey, other.ID, "Zed", map[string]any{"type": "custom", "email": "zed@dest.test"})
	b := e.Do("POST", "/orgs/"+other.ID+"/broadcasts", otherKey, map[string]any{"name": "B", "integration_id": "custom", "text": "x",
		"contact_ids": []string{ct["id"].(string)}}).Expect(201).Map()
	e.Do("POST", msgs, e.AdminKey, map[string]any{"role": "admin", "messages": text, "broadcast_id": b["id"]}).
		ExpectError(404, "not_found")

	audioPart := func(id string) []any {
		return []any{map[string]any{"role": "user", "parts": []any{map[string]any{"type": "audio",
			"audio": map[string]any{"id": id, "file_url": "https://evil.example/x.mp3"}}}}}
	}
	e.Do("POST", msgs, e.AdminKey, map[string]any{"role": "user", "messages": audioPart("file_nope")}).ExpectError(404, "not_found")
	e.Do("PATCH", one, e.AdminKey, map[string]any{"messages": audioPart("file_nope")}).ExpectError(404, "not_found")
	e.Do("POST", msgs, e.AdminKey, map[string]any{"role": "user", "messages": []any{map[string]any{"role": "user",
		"parts": []any{map[string]any{"type": "audio"}}}}}).ExpectError(400, "invalid_argument", "messages[0].parts[0].audio")

	// A real audio file of this chat may be referred to; its stored description wins.
	media := e.Do("POST", "/orgs/c/chats/"+chat+"/events", e.AdminKey, map[string]any{"type": "media", "chat_id": chat,
		"data": map[string]any{"audio": base64.StdEncoding.EncodeToString([]byte("ID3 frames")), "format": "mp3"}}).Expect(200).Map()
	stored := chObj(chObj(media["messages"].([]any)[0])["parts"].([]any)[0], "audio")
	got := e.Do("PATCH", one, e.AdminKey, map[string]any{"messages": audioPart(stored["id"].(string))}).Expect(200).Map()
	a := chObj(chObj(got["messages"].([]any)[0])["parts"].([]any)[0], "audio")
	if a["file_url"] != stored["file_url"] || strings.Contains(a["file_url"].(string), "evil") {
		t.Fatalf("audio part %v, want the stored file %v", a, stored)
	}

	// Nothing of the refused calls was stored.
	if l := e.Do("GET", msgs, e.AdminKey, nil).Expect(200).List(); len(l) != 2 {
		t.Fatalf("%d messages, want 2 (hello and the media one)", len(l))
	}
}

// TestBroadcastSubjectIsBoundedForEveryIntegration: the subject is at most 998 characters
// (the longest header line) whatever the integration.
func TestBroadcastSubjectIsBoundedForEveryIntegration(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	ct := chContact(e, e.AdminKey, "c", "Zed", map[string]any{"type": "custom", "email": "zed@dest.test"})
	for _, integ := range []string{"custom", "internal"} {
		body := func(n int) map[string]any {
			return map[string]any{"name": "B", "integration_id": integ, "text": "x", "subject": strings.Repeat("é", n),
				"contact_ids": []string{ct["id"].(string)}}
		}
		e.DoInvalid("POST", "/orgs/c/broadcasts", e.AdminKey, body(5000)).ExpectError(400, "invalid_argument", "subject")
		e.DoInvalid("POST", "/orgs/c/broadcasts", e.AdminKey, body(999)).ExpectError(400, "invalid_argument", "subject")
		e.Do("POST", "/orgs/c/broadcasts", e.AdminKey, body(998)).Expect(201)
	}
}
