package api_test

import (
	"bytes"
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
	"time"

	"wsapi/app/apitest"
)

// chMedia posts a media event and answers the in-flight message.
func chMedia(e *chEvents, data []byte, format string) map[string]any {
	e.T.Helper()
	return e.Do("POST", "/orgs/c/chats/"+e.id+"/events", e.AdminKey, map[string]any{"type": "media", "chat_id": e.id,
		"data": map[string]any{"audio": base64.StdEncoding.EncodeToString(data), "format": format, "sampleRate": 16000, "channels": 1}}).
		Expect(200).Map()
}

// chEvents is a server and the chat a test sends events to.
type chEvents struct {
	*apitest.Env
	id string
}

func TestChatMediaAndSyncEvents(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	e := &chEvents{Env: env, id: chConversation(env, env.AdminKey, "c", "Voice")["id"].(string)}
	events := "/orgs/c/chats/" + e.id + "/events"

	// sync with nothing in flight: null.
	if res := e.Do("POST", events, e.AdminKey, map[string]any{"type": "sync", "chat_id": e.id}).Expect(200); string(bytes.TrimSpace(res.Body)) != "null" {
		t.Errorf("sync with nothing in flight: %s", res.Body)
	}
	// A finished message is not in flight.
	chMsg(env, e.AdminKey, "c", e.id, "user", "typed text")
	if res := e.Do("POST", events, e.AdminKey, map[string]any{"type": "sync"}).Expect(200); string(bytes.TrimSpace(res.Body)) != "null" {
		t.Errorf("sync after a COMPLETED message: %s", res.Body)
	}

	audio1 := []byte("ID3\x03\x00fake mp3 frames \x00\xff\xfe")
	e.Clock.Advance(time.Second)
	m := chMedia(e, audio1, "mp3")
	apitest.ExpectShape(t, "media message", m, chMessageShape)
	if m["status"] != "RUNNING" || m["role"] != "user" {
		t.Errorf("media message %v", m)
	}
	parts := chObj(m["messages"].([]any)[0])["parts"].([]any)
	if len(parts) != 1 || chObj(parts[0])["type"] != "audio" {
		t.Fatalf("parts %v", parts)
	}
	a := chObj(parts[0], "audio")
	apitest.ExpectShape(t, "audio", a, map[string]string{"id": "string", "file_path": "string", "file_filename": "string",
		"file_size": "number", "file_mimetype": "string", "file_url": "string", "created_at": "time"})
	if a["file_size"] != float64(len(audio1)) || a["file_mimetype"] != "audio/mpeg" || !strings.HasSuffix(a["file_filename"].(string), ".mp3") {
		t.Errorf("audio %v", a)
	}
	// The message counts as the contact's.
	if st := chState(chGetChat(env, e.AdminKey, "c", e.id)); st["admin_unseen_count"] != 2.0 {
		t.Errorf("admin_unseen_count %v after a media message", st["admin_unseen_count"])
	}

	// The file URL serves the bytes with the MIME type.
	u, err := url.Parse(a["file_url"].(string))
	if err != nil || !strings.HasSuffix(u.Path, "/chats/"+e.id+"/files/"+a["id"].(string)) {
		t.Fatalf("file_url %v", a["file_url"])
	}
	f := e.Do("GET", u.Path, e.AdminKey, nil).Expect(200)
	if !bytes.Equal(f.Body, audio1) || f.Header.Get("Content-Type") != "audio/mpeg" {
		t.Errorf("file: %q %s", f.Body, f.Header.Get("Content-Type"))
	}
	e.Do("GET", u.Path, "", nil).Expect(401)

	// A second media event appends to the same in-flight message.
	audio2 := []byte("RIFF....WAVEfmt ")
	m2 := chMedia(e, audio2, "pcm-wav")
	if m2["id"] != m["id"] {
		t.Fatalf("second media made message %v, want %v", m2["id"], m["id"])
	}
	parts = chObj(m2["messages"].([]any)[0])["parts"].([]any)
	if len(parts) != 2 || chObj(parts[1], "audio")["file_mimetype"] != "audio/wav" || chObj(parts[0], "audio")["id"] != a["id"] {
		t.Errorf("parts after the second media %v", parts)
	}
	if n := env.Count(e.AdminKey, "/orgs/c/chats/"+e.id+"/messages"); n != 2 {
		t.Errorf("%d messages, want 2 (the typed one and the in-flight one)", n)
	}
	// sync answers the in-flight message.
	s := e.Do("POST", events, e.AdminKey, map[string]any{"type": "sync"}).Expect(200).Map()
	if s["id"] != m["id"] || len(chObj(s["messages"].([]any)[0])["parts"].([]any)) != 2 {
		t.Errorf("sync %v", s)
	}

	// Errors.
	bad := []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"type": "media", "data": map[string]any{"audio": "aGVsbG8=", "format": "wav"}}, "data.format"},
		{map[string]any{"type": "media", "data": map[string]any{"audio": "aGVsbG8=", "format": "MP3"}}, "data.format"},
		{map[string]any{"type": "media", "data": map[string]any{"audio": "not base64!", "format": "mp3"}}, "data.audio"},
		{map[string]any{"type": "media", "data": map[string]any{"audio": "", "format": "mp3"}}, "data.audio"},
		{map[string]any{"type": "media"}, "data"},
		{map[string]any{"type": "other"}, "type"},
		{map[string]any{}, "type"},
		{map[string]any{"type": "sync", "chat_id": "chat_00000000000000000000"}, "chat_id"},
		{map[string]any{"type": "media", "data": map[string]any{"audio": "aGVsbG8=", "format": "mp3", "bitrate": 1}}, "data.bitrate"},
	}
	for _, b := range bad {
		e.DoInvalid("POST", events, e.AdminKey, b.body).ExpectError(400, "invalid_argument", b.field)
	}
	e.Do("POST", "/orgs/c/chats/chat_00000000000000000000/events", e.AdminKey, map[string]any{"type": "sync"}).ExpectError(404, "not_found")
	// Another message does not end the flight: media keeps going to the RUNNING message.
	e.Do("POST", "/orgs/c/chats/"+e.id+"/messages", e.AdminKey, map[string]any{"role": "assistant", "messages": chText("assistant", "ok")}).Expect(201)
	if m3 := chMedia(e, audio1, "opus-ogg"); m3["id"] != m["id"] {
		t.Errorf("media after another message went to %v, want the in-flight %v", m3["id"], m["id"])
	}
}

func TestChatFilesQuery(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	e := &chEvents{Env: env, id: chChat(env, env.AdminKey, "c", nil)["id"].(string)}
	var names = map[string]string{}
	for _, format := range []string{"mp3", "pcm-wav", "mp3", "m4a"} {
		e.Clock.Advance(time.Second)
		m := chMedia(e, []byte("data "+format), format)
		parts := chObj(m["messages"].([]any)[0])["parts"].([]any)
		a := chObj(parts[len(parts)-1], "audio")
		names[a["id"].(string)] = a["file_filename"].(string)
	}
	files := "/orgs/c/chats/" + e.id + "/files"
	list := func(q string) []string {
		t.Helper()
		var ids []string
		for _, f := range e.Do("GET", files+"?"+q, e.AdminKey, nil).Expect(200).List() {
			ids = append(ids, f["id"].(string))
		}
		return ids
	}
	if all := list(""); len(all) != 4 {
		t.Fatalf("files %v", all)
	}
	count := func(q string) int { t.Helper(); return len(list(q)) }
	for q, want := range map[string]int{
		"mimetype=audio/": 4, "mimetype=audio/mpeg": 2, "mimetype=audio/wav": 1, "mimetype=video/": 0, "mimetype=audio/mp": 3,
		"mimetype=AUDIO/": 0, "search=.mp3": 2, "search=.wav": 1, "search=file_": 4, "search=.m4a&mimetype=audio/mp4": 1,
		"search=.mp3&mimetype=audio/wav": 0, "search=%25": 0, "search=" + strings.Repeat("x", 256): 0,
	} {
		if got := count(q); got != want {
			t.Errorf("files?%s: %d, want %d", q, got, want)
		}
	}
	for id, name := range names {
		// A piece of the id's random part: ids made in the same second share their first six
		// characters after the prefix.
		if got := list(chQ("search", name[11:19])); len(got) != 1 || got[0] != id {
			t.Errorf("search by a piece of %s: %v", name, got)
		}
	}
	e.DoInvalid("GET", files+"?search="+strings.Repeat("x", 257), e.AdminKey, nil).ExpectError(400, "invalid_argument", "search")
	f := e.Do("GET", files+"?take=1", e.AdminKey, nil).Expect(200)
	if f.Header.Get("pagination-count") != "4" || len(f.List()) != 1 {
		t.Errorf("take=1: count %s, %d items", f.Header.Get("pagination-count"), len(f.List()))
	}
	e.Do("GET", files+"/file_00000000000000000000", e.AdminKey, nil).ExpectError(404, "not_found")
}

func TestMessageReactions(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	id := chChat(e, e.AdminKey, "c", nil)["id"].(string)
	msg := chMsg(e, e.AdminKey, "c", id, "admin", "react to me")["id"].(string)
	path := "/orgs/c/chats/" + id + "/messages/" + msg + "/reaction"
	other := e.Member(e.AdminKey, "c", "Reactor", "MEMBER")
	otherKey := e.Key(e.AdminKey, "c", other.ID)
	reactions := func(m map[string]any) map[string]string {
		out := map[string]string{}
		for _, r := range m["reactions"].([]any) {
			out[chObj(r)["user_id"].(string)] = chObj(r)["emoji"].(string)
		}
		return out
	}

	for _, emoji := range []string{"👍", "👍🏽", "🇫🇷", "👨‍👩‍👧", "1️⃣", "❤️", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "#️⃣"} {
		m := e.Do("PUT", path, e.AdminKey, map[string]any{"emoji": emoji}).Expect(200).Map()
		if r := reactions(m); len(r) != 1 || r[e.Owner.ID] != emoji {
			t.Errorf("PUT %q: reactions %v", emoji, r)
		}
	}
	for _, emoji := range []string{"ab", "👍👍", "", " ", "👍 ", "🇫", "🇫🇷🇩🇪", "1", "a️⃣", "👨‍", "\u200d👍"} {
		e.Do("PUT", path, e.AdminKey, map[string]any{"emoji": emoji}).ExpectError(400, "invalid_argument", "emoji")
	}
	e.DoInvalid("PUT", path, e.AdminKey, map[string]any{}).ExpectError(400, "invalid_argument", "emoji")

	// Another member's reaction is separate; a second PUT replaces one's own.
	e.Do("PUT", path, e.AdminKey, map[string]any{"emoji": "👍"}).Expect(200)
	m := e.Do("PUT", path, otherKey, map[string]any{"emoji": "🎉"}).Expect(200).Map()
	if r := reactions(m); len(r) != 2 || r[e.Owner.ID] != "👍" || r[other.ID] != "🎉" {
		t.Errorf("two members: %v", r)
	}
	m = e.Do("PUT", path, otherKey, map[string]any{"emoji": "😂"}).Expect(200).Map()
	if r := reactions(m); len(r) != 2 || r[other.ID] != "😂" || r[e.Owner.ID] != "👍" {
		t.Errorf("replaced: %v", r)
	}
	// The messages list shows them; DELETE removes only the caller's.
	e.Do("DELETE", path, e.AdminKey, nil).Expect(204)
	e.Do("DELETE", path, e.AdminKey, nil).ExpectError(404, "not_found")
	list := e.Do("GET", "/orgs/c/chats/"+id+"/messages", e.AdminKey, nil).Expect(200).List()
	if r := reactions(list[0]); len(r) != 1 || r[other.ID] != "😂" {
		t.Errorf("after DELETE: %v", r)
	}
	if r := reactions(chObj(chGetChat(e, e.AdminKey, "c", id), "last_message")); len(r) != 1 {
		t.Errorf("last_message reactions %v", r)
	}
	// Unknown message, or a message of another chat.
	id2 := chChat(e, e.AdminKey, "c", nil)["id"].(string)
	e.Do("PUT", "/orgs/c/chats/"+id2+"/messages/"+msg+"/reaction", e.AdminKey, map[string]any{"emoji": "👍"}).ExpectError(404, "not_found")
	e.Do("PUT", "/orgs/c/chats/"+id+"/messages/msg_00000000000000000000/reaction", e.AdminKey, map[string]any{"emoji": "👍"}).ExpectError(404, "not_found")
}
