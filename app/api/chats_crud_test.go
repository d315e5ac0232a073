package api_test

import (
	"strings"
	"testing"
	"time"

	"wsapi/app/apitest"
)

func TestChatCreate(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	ct := chContact(e, e.AdminKey, "c", "Grace", map[string]any{"type": "telegram", "username": "grace"},
		map[string]any{"type": "email", "email": "grace@example.com"})

	// contact_id: the contact's oldest channel.
	c1 := chChat(e, e.AdminKey, "c", map[string]any{"contact_id": ct["id"], "assistant_integration_id": "ai_1", "conversation_id": "conv_1"})
	st := chState(c1)
	if st["state"] != "OPEN" || st["integration_id"] != "telegram" || st["channel_type"] != "telegram" || st["ai_enabled"] != false {
		t.Errorf("contact_id chat state %v", st)
	}
	if st["assistant_integration_id"] != "ai_1" || st["conversation_id"] != "conv_1" || chObj(st, "assistant_integration")["id"] != "ai_1" {
		t.Errorf("integration/conversation ids %v", st)
	}
	if c1["model"] != "auto:auto" || c1["link"] != "https://t.me/grace" {
		t.Errorf("model %v link %v", c1["model"], c1["link"])
	}

	// contact_channel_id: that channel.
	c2 := chChat(e, e.AdminKey, "c", map[string]any{"contact_channel_id": chChannel(ct, 1)})
	if st := chState(c2); st["integration_id"] != "email" || st["state"] != "OPEN" {
		t.Errorf("channel chat state %v", st)
	}
	if nc := chObj(chMember(c2["members"].([]any), "CONTACT"), "contact_channel"); nc["id"] != chChannel(ct, 1) {
		t.Errorf("contact member %v", nc)
	}
	// Both, agreeing; and a channel of another contact.
	chChat(e, e.AdminKey, "c", map[string]any{"contact_id": ct["id"], "contact_channel_id": chChannel(ct, 1)})
	other := chContact(e, e.AdminKey, "c", "Other", map[string]any{"type": "sms", "phone": "+15550001111"})
	e.Do("POST", "/orgs/c/chats", e.AdminKey, map[string]any{"contact_id": ct["id"], "contact_channel_id": chChannel(other, 0)}).
		ExpectError(400, "invalid_argument", "contact_channel_id")

	// Internal: no contact.
	c3 := chChat(e, e.AdminKey, "c", nil)
	if st := chState(c3); st["integration_id"] != "internal" || st["state"] != "OPEN" {
		t.Errorf("internal chat state %v", st)
	}
	if len(c3["members"].([]any)) != 1 {
		t.Errorf("internal chat members %v", c3["members"])
	}

	// An assistant turns the AI on (when it is enabled).
	on := chAssistant(e, e.AdminKey, "c", map[string]any{"name": "On"})
	off := chAssistant(e, e.AdminKey, "c", map[string]any{"name": "Off", "enabled": false})
	if st := chState(chChat(e, e.AdminKey, "c", map[string]any{"contact_id": other["id"], "assistant_id": on["id"]})); st["ai_enabled"] != true {
		t.Errorf("enabled assistant: ai_enabled %v", st["ai_enabled"])
	}
	if st := chState(chChat(e, e.AdminKey, "c", map[string]any{"contact_id": other["id"], "assistant_id": off["id"]})); st["ai_enabled"] != false {
		t.Errorf("disabled assistant: ai_enabled %v", st["ai_enabled"])
	}

	// Errors.
	bad := []struct {
		body   map[string]any
		status int
		field  string
	}{
		{map[string]any{"model": "gpt4"}, 400, "model"},
		{map[string]any{"model": "openai gpt"}, 400, "model"},
		{map[string]any{"visibility": "SECRET"}, 400, "visibility"},
		{map[string]any{"title": strings.Repeat("t", 256)}, 400, "title"},
		{map[string]any{"contact_id": "ct_00000000000000000000"}, 404, ""},
		{map[string]any{"contact_channel_id": "ch_00000000000000000000"}, 404, ""},
		{map[string]any{"assistant_id": "asst_00000000000000000000"}, 404, ""},
		{map[string]any{"color": "red"}, 400, "color"},
	}
	for _, b := range bad {
		res := e.DoInvalid("POST", "/orgs/c/chats", e.AdminKey, b.body)
		if b.status == 404 {
			res.ExpectError(404, "not_found")
		} else {
			res.ExpectError(b.status, "invalid_argument", b.field)
		}
	}
	// A contact without channel cannot start a conversation.
	lone := chContact(e, e.AdminKey, "c", "Lone")
	e.Do("POST", "/orgs/c/chats", e.AdminKey, map[string]any{"contact_id": lone["id"]}).ExpectError(400, "invalid_argument", "contact_id")

	// Delete.
	e.Do("DELETE", "/orgs/c/chats/"+c3["id"].(string), e.AdminKey, nil).Expect(204)
	e.Do("GET", "/orgs/c/chats/"+c3["id"].(string), e.AdminKey, nil).ExpectError(404, "not_found")
	e.Do("DELETE", "/orgs/c/chats/"+c3["id"].(string), e.AdminKey, nil).ExpectError(404, "not_found")
}

func TestChatPatch(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	chat := chConversation(e, e.AdminKey, "c", "Linus")
	id := chat["id"].(string)
	patch := func(body map[string]any) map[string]any { t.Helper(); return chPatch(e, e.AdminKey, "c", id, body) }
	bad := func(body map[string]any, field string) {
		t.Helper()
		e.DoInvalid("PATCH", "/orgs/c/chats/"+id, e.AdminKey, body).ExpectError(400, "invalid_argument", field)
	}

	e.Clock.Advance(time.Minute)
	c := patch(map[string]any{"title": "Refund"})
	if c["title"] != "Refund" || c["updated_at"] == chat["updated_at"] || c["created_at"] != chat["created_at"] {
		t.Errorf("title: %v, updated %v", c["title"], c["updated_at"])
	}
	if c = patch(map[string]any{"pinned": true}); c["title"] != "Refund" || c["pinned"] != true {
		t.Errorf("absent title must stay: %v, pinned %v", c["title"], c["pinned"])
	}
	if c = patch(map[string]any{"title": nil}); c["title"] != nil {
		t.Errorf("title null: %v", c["title"])
	}
	for _, v := range []string{"PUBLIC_READ", "PUBLIC_WRITE", "PRIVATE"} {
		if c = patch(map[string]any{"visibility": v}); c["visibility"] != v {
			t.Errorf("visibility %v, want %s", c["visibility"], v)
		}
	}
	bad(map[string]any{"visibility": "public"}, "visibility")
	for _, v := range []string{"SNOOZED", "CLOSED", "OPEN"} {
		if c = patch(map[string]any{"state": v}); chState(c)["state"] != v {
			t.Errorf("state %v, want %s", chState(c)["state"], v)
		}
	}
	bad(map[string]any{"state": "ALL"}, "state")
	bad(map[string]any{"state": "open"}, "state")

	c = patch(map[string]any{"follow_up_at": "2026-02-03T04:05:06+02:00"})
	if chState(c)["follow_up_at"] != "2026-02-03T02:05:06.000Z" {
		t.Errorf("follow_up_at %v", chState(c)["follow_up_at"])
	}
	if c = patch(map[string]any{"follow_up_at": nil}); chState(c)["follow_up_at"] != nil {
		t.Errorf("follow_up_at null: %v", chState(c)["follow_up_at"])
	}
	bad(map[string]any{"follow_up_at": "tomorrow"}, "follow_up_at")

	if c = patch(map[string]any{"ai_enabled": true}); chState(c)["ai_enabled"] != true {
		t.Errorf("ai_enabled %v", chState(c)["ai_enabled"])
	}
	if c = patch(map[string]any{"ai_enabled": false}); chState(c)["ai_enabled"] != false {
		t.Errorf("ai_enabled %v", chState(c)["ai_enabled"])
	}
	for _, v := range []int{0, 5, 3} {
		if c = patch(map[string]any{"csat_score": v}); chState(c)["csat_score"] != float64(v) {
			t.Errorf("csat_score %v, want %d", chState(c)["csat_score"], v)
		}
	}
	for _, v := range []any{6, -1, 2.5, "4"} {
		bad(map[string]any{"csat_score": v}, "csat_score")
	}
	if c = patch(map[string]any{"csat_score": nil}); chState(c)["csat_score"] != nil {
		t.Errorf("csat_score null: %v", chState(c)["csat_score"])
	}
	// Every bad field at once; nothing applied.
	before := chGetChat(e, e.AdminKey, "c", id)
	e.DoInvalid("PATCH", "/orgs/c/chats/"+id, e.AdminKey, map[string]any{"title": "x", "visibility": "x", "state": "x", "csat_score": 9}).
		ExpectError(400, "invalid_argument", "visibility", "state", "csat_score")
	if after := chGetChat(e, e.AdminKey, "c", id); after["title"] != before["title"] || after["updated_at"] != before["updated_at"] {
		t.Errorf("a refused PATCH changed the chat")
	}
	e.DoInvalid("PATCH", "/orgs/c/chats/"+id, e.AdminKey, map[string]any{"model": "openai:gpt-4o"}).ExpectError(400, "invalid_argument", "model")
}

func TestChatAssignment(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	chat := chConversation(e, e.AdminKey, "c", "Ken")
	id := chat["id"].(string)
	agent := e.Member(e.AdminKey, "c", "Agent Smith", "MEMBER")

	e.Clock.Advance(time.Minute)
	c := chPatch(e, e.AdminKey, "c", id, map[string]any{"assigned_user_id": agent.ID})
	st := chState(c)
	au := chObj(st, "assigned_user")
	if au["id"] != agent.ID || au["name"] != "Agent Smith" || au["email"] != agent.Email || au["seen_at"] != nil {
		t.Errorf("assigned_user %v", au)
	}
	if st["assigned_at"] != c["updated_at"] || st["assigned_at"] == nil {
		t.Errorf("assigned_at %v, updated_at %v", st["assigned_at"], c["updated_at"])
	}
	// The assignee joins the chat's members.
	found := false
	for _, m := range c["members"].([]any) {
		if u := chObj(m, "user"); u != nil && u["id"] == agent.ID {
			found = true
		}
	}
	if !found {
		t.Errorf("assignee not among members %v", c["members"])
	}
	// Another PATCH leaves the assignment alone.
	if st := chState(chPatch(e, e.AdminKey, "c", id, map[string]any{"pinned": true})); chObj(st, "assigned_user")["id"] != agent.ID {
		t.Errorf("assignment lost on an unrelated PATCH: %v", st)
	}

	// null unassigns: the key is absent, assigned_at null.
	c = chPatch(e, e.AdminKey, "c", id, map[string]any{"assigned_user_id": nil})
	if _, ok := chState(c)["assigned_user"]; ok || chState(c)["assigned_at"] != nil {
		t.Errorf("unassigned state %v", chState(c))
	}
	if _, ok := chState(chGetChat(e, e.AdminKey, "c", id))["assigned_user"]; ok {
		t.Errorf("GET after unassign still has assigned_user")
	}

	// Unknown member, and a member of another organization: 404.
	o, okey := e.OrgWithAdmin("Elsewhere")
	stranger := e.Member(okey, o.ID, "Stranger", "MEMBER")
	e.Do("PATCH", "/orgs/c/chats/"+id, e.AdminKey, map[string]any{"assigned_user_id": stranger.ID}).ExpectError(404, "not_found")
	e.Do("PATCH", "/orgs/c/chats/"+id, e.AdminKey, map[string]any{"assigned_user_id": "mem_00000000000000000000"}).ExpectError(404, "not_found")
	if _, ok := chState(chGetChat(e, e.AdminKey, "c", id))["assigned_user"]; ok {
		t.Errorf("a refused assignment was applied")
	}
}
