package api_test

import (
	"fmt"
	"net/url"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

func TestMessageCountersAndRead(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	chat := chConversation(e, e.AdminKey, "c", "Barbara")
	id := chat["id"].(string)
	agent := e.Member(e.AdminKey, "c", "Agent Carter", "MEMBER")
	agentKey := e.Key(e.AdminKey, "c", agent.ID)

	e.Clock.Advance(time.Minute)
	m1 := chMsg(e, e.AdminKey, "c", id, "user", "first question")
	t1 := m1["created_at"]
	e.Clock.Advance(time.Minute)
	m2 := chMsg(e, e.AdminKey, "c", id, "user", "second question")
	c := chGetChat(e, e.AdminKey, "c", id)
	st := chState(c)
	if st["admin_unseen_count"] != 2.0 || st["user_unseen_count"] != 0.0 || st["last_contact_message_at"] != m2["created_at"] {
		t.Errorf("after two contact messages: %v", st)
	}
	if t1 == m2["created_at"] || c["updated_at"] != m2["created_at"] {
		t.Errorf("updated_at %v, want the newest message's %v", c["updated_at"], m2["created_at"])
	}
	if chObj(c, "last_message")["id"] != m2["id"] {
		t.Errorf("last_message %v, want %v", chObj(c, "last_message")["id"], m2["id"])
	}

	// A member's and the assistant's messages count for the contact, and leave
	// last_contact_message_at alone.
	e.Clock.Advance(time.Minute)
	m3 := chMsg(e, agentKey, "c", id, "admin", "we are on it")
	m4 := chMsg(e, e.AdminKey, "c", id, "assistant", "automatic reply")
	c = chGetChat(e, e.AdminKey, "c", id)
	st = chState(c)
	if st["admin_unseen_count"] != 2.0 || st["user_unseen_count"] != 2.0 || st["last_contact_message_at"] != m2["created_at"] {
		t.Errorf("after member and assistant messages: %v", st)
	}
	if chObj(c, "last_message")["id"] != m4["id"] {
		t.Errorf("last_message %v, want the newest %v", chObj(c, "last_message")["id"], m4["id"])
	}
	if u := chObj(m3, "member", "user"); u["id"] != agent.ID {
		t.Errorf("admin message member %v, want the agent", m3["member"])
	}

	// read clears the members' count; with an assignee it stamps seen_at.
	e.Clock.Advance(time.Minute)
	c = e.Do("POST", "/orgs/c/chats/"+id+"/read", e.AdminKey, nil).Expect(200).Map()
	if st := chState(c); st["admin_unseen_count"] != 0.0 || st["user_unseen_count"] != 2.0 {
		t.Errorf("after read: %v", st)
	}
	if _, ok := chState(c)["assigned_user"]; ok {
		t.Errorf("read must not assign: %v", chState(c))
	}
	chPatch(e, e.AdminKey, "c", id, map[string]any{"assigned_user_id": agent.ID})
	chMsg(e, e.AdminKey, "c", id, "user", "third")
	e.Clock.Advance(time.Minute)
	now := e.Clock.Now().Format("2006-01-02T15:04:05.000Z")
	c = e.Do("POST", "/orgs/c/chats/"+id+"/read", agentKey, nil).Expect(200).Map()
	if st := chState(c); st["admin_unseen_count"] != 0.0 || chObj(st, "assigned_user")["seen_at"] != now {
		t.Errorf("read with assignee: %v, want seen_at %s", st, now)
	}
	if chState(chGetChat(e, e.AdminKey, "c", id))["admin_unseen_count"] != 0.0 {
		t.Errorf("read did not persist")
	}

	// Validation.
	bad := []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"role": "robot", "messages": chText("user", "x")}, "role"},
		{map[string]any{"messages": chText("user", "x")}, "role"},
		{map[string]any{"role": "user", "messages": []any{}}, "messages"},
		{map[string]any{"role": "user"}, "messages"},
		{map[string]any{"role": "user", "status": "DONE", "messages": chText("user", "x")}, "status"},
		{map[string]any{"role": "user", "model": "gpt4", "messages": chText("user", "x")}, "model"},
		{map[string]any{"role": "user", "messages": []map[string]any{{"parts": []any{}}}}, "messages[0].role"},
		{map[string]any{"role": "user", "messages": []map[string]any{{"role": "user", "parts": []map[string]any{{"text": "x"}}}}}, "messages[0].parts[0].type"},
	}
	for _, b := range bad {
		e.DoInvalid("POST", "/orgs/c/chats/"+id+"/messages", e.AdminKey, b.body).ExpectError(400, "invalid_argument", b.field)
	}
	e.Do("POST", "/orgs/c/chats/chat_00000000000000000000/messages", e.AdminKey,
		map[string]any{"role": "user", "messages": chText("user", "x")}).ExpectError(404, "not_found")
	e.Do("POST", "/orgs/c/chats/chat_00000000000000000000/read", e.AdminKey, nil).ExpectError(404, "not_found")
}

func TestMessageStatusSetsChatStatus(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	id := chChat(e, e.AdminKey, "c", nil)["id"].(string)
	for _, s := range []string{"RUNNING", "FAILED", "CANCELED", "COMPLETED"} {
		body := map[string]any{"role": "assistant", "status": s, "messages": chText("assistant", s)}
		if s == "FAILED" {
			body["error"] = "model timed out"
		}
		m := e.Do("POST", "/orgs/c/chats/"+id+"/messages", e.AdminKey, body).Expect(201).Map()
		if m["status"] != s {
			t.Errorf("message status %v, want %s", m["status"], s)
		}
		if s == "FAILED" && m["error"] != "model timed out" {
			t.Errorf("error %v", m["error"])
		}
		if c := chGetChat(e, e.AdminKey, "c", id); c["status"] != s {
			t.Errorf("chat status %v, want %s", c["status"], s)
		}
	}
}

// TestMessageCursorWalk walks 250 messages with take=100 and the pagination-next cursor.
func TestMessageCursorWalk(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	id := chConversation(e, e.AdminKey, "c", "Walker")["id"].(string)
	var want []string
	roles := []string{"user", "assistant", "admin"}
	for i := range 250 {
		if i%50 == 0 { // many messages share a millisecond; insertion order still holds
			e.Clock.Advance(time.Millisecond)
		}
		want = append(want, chMsg(e, e.AdminKey, "c", id, roles[i%3], fmt.Sprint("message ", i))["id"].(string))
	}
	var got []string
	next, pages := "", 0
	for {
		q := "?take=100"
		if next != "" {
			q += "&next=" + url.QueryEscape(next)
		}
		res := e.Do("GET", "/orgs/c/chats/"+id+"/messages"+q, e.AdminKey, nil).Expect(200)
		if res.Header.Get("pagination-count") != "250" {
			t.Errorf("pagination-count %q", res.Header.Get("pagination-count"))
		}
		page := res.List()
		for _, m := range page {
			got = append(got, m["id"].(string))
		}
		pages++
		next = res.Header.Get("pagination-next")
		if next == "" {
			if len(page) != 50 {
				t.Errorf("last page holds %d, want 50", len(page))
			}
			break
		}
		if len(page) != 100 || pages > 3 {
			t.Fatalf("page %d holds %d with a next cursor", pages, len(page))
		}
	}
	chSameList(t, "walk", got, want)
	if pages != 3 {
		t.Errorf("%d pages, want 3", pages)
	}
	// Page numbers agree with the cursor.
	var paged []string
	for p := 1; p <= 3; p++ {
		for _, m := range e.Do("GET", fmt.Sprintf("/orgs/c/chats/%s/messages?take=100&page=%d", id, p), e.AdminKey, nil).Expect(200).List() {
			paged = append(paged, m["id"].(string))
		}
	}
	chSameList(t, "pages", paged, want)
	// A message added after a cursor was answered shows on the last page of the walk.
	res := e.Do("GET", "/orgs/c/chats/"+id+"/messages?take=100&page=1", e.AdminKey, nil).Expect(200)
	c1 := res.Header.Get("pagination-next")
	late := chMsg(e, e.AdminKey, "c", id, "user", "late")["id"].(string)
	res = e.Do("GET", "/orgs/c/chats/"+id+"/messages?take=100&next="+url.QueryEscape(c1), e.AdminKey, nil).Expect(200)
	res = e.Do("GET", "/orgs/c/chats/"+id+"/messages?take=100&next="+url.QueryEscape(res.Header.Get("pagination-next")), e.AdminKey, nil).Expect(200)
	last := res.List()
	if len(last) != 51 || last[50]["id"] != late || res.Header.Get("pagination-next") != "" {
		t.Errorf("last page after a late message: %d items, next %q", len(last), res.Header.Get("pagination-next"))
	}
	e.Do("GET", "/orgs/c/chats/"+id+"/messages?next=garbage", e.AdminKey, nil).ExpectError(400, "invalid_argument", "next")
}

// A RUNNING message is finished by PATCH; the chat's status follows its newest message.
func TestFinishRunningMessage(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	var chat app.Chat
	e.Do("POST", "/orgs/c/chats", e.AdminKey, map[string]any{}).Expect(201).JSON(&chat)
	var m app.Message
	e.Do("POST", "/orgs/c/chats/"+chat.ID+"/messages", e.AdminKey, map[string]any{"role": "assistant", "status": "RUNNING",
		"messages": []map[string]any{{"role": "assistant", "parts": []map[string]any{{"type": "text", "text": "thinking"}}}}}).
		Expect(201).JSON(&m)
	e.Do("GET", "/orgs/c/chats/"+chat.ID, e.AdminKey, nil).Expect(200).JSON(&chat)
	if chat.Status != "RUNNING" {
		t.Fatalf("chat status %s", chat.Status)
	}
	e.Do("PATCH", "/orgs/c/chats/"+chat.ID+"/messages/"+m.ID, e.AdminKey, map[string]any{"status": "COMPLETED",
		"messages": []map[string]any{{"role": "assistant", "parts": []map[string]any{{"type": "text", "text": "done: 42"}}}},
		"usage":    map[string]any{"input_tokens": 3, "output_tokens": 4, "total_tokens": 7}}).Expect(200).JSON(&m)
	if m.Status != "COMPLETED" || m.Usage == nil || m.Usage.TotalTokens != 7 {
		t.Fatalf("message %+v", m)
	}
	e.Do("GET", "/orgs/c/chats/"+chat.ID, e.AdminKey, nil).Expect(200).JSON(&chat)
	if chat.Status != "COMPLETED" {
		t.Fatalf("chat status %s after finishing", chat.Status)
	}
	e.DoInvalid("PATCH", "/orgs/c/chats/"+chat.ID+"/messages/"+m.ID, e.AdminKey, map[string]any{"status": "DONE"}).
		ExpectError(400, "invalid_argument", "status")
	var sync *app.Message
	e.Do("POST", "/orgs/c/chats/"+chat.ID+"/events", e.AdminKey, map[string]any{"type": "sync"}).Expect(200).JSON(&sync)
	if sync != nil {
		t.Fatalf("sync after finishing answers %+v", sync)
	}
}
