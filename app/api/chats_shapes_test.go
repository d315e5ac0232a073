package api_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"wsapi/app/apitest"
)

// TestChatJSONShape compares a chat, its members, state and messages with the spec's field
// lists, before and after a message, an assignment and a CSAT score.
func TestChatJSONShape(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	asst := chAssistant(e, e.AdminKey, "c", map[string]any{"name": "Helper", "avatar_url": "https://cdn.example.com/a.png",
		"config": map[string]any{"language": "en", "model": "openai:gpt-4o", "conversation": map[string]any{
			"welcome_banner": "Hi!", "suggested_messages": []string{"Pricing?", "Hours?"}, "auto_intro_message": "I am Helper",
			"enable_auto_csat": true, "enable_memories": true}}})
	ct := chContact(e, e.AdminKey, "c", "Ada Lovelace", map[string]any{"type": "email", "email": "ada@example.com", "name": "Ada",
		"platform_data": map[string]any{"crm": 1}})
	chat := chChat(e, e.AdminKey, "c", map[string]any{"contact_id": ct["id"], "assistant_id": asst["id"], "model": "openai:gpt-4o",
		"features": map[string]any{"reasoning": map[string]any{"effort": "low"}},
		"tools": []map[string]any{{"name": "lookup", "display_name": "Lookup", "action_name": "crm:lookup", "description": "d",
			"icon": "search", "icon_url": "https://cdn.example.com/i.png", "connection_id": "conn_1", "callback": "https://x.example.com/cb",
			"parameters": map[string]any{"type": "object"}, "enabled_by_default": true}}})

	apitest.ExpectShape(t, "chat", chat, chWith(chChatShape, "last_message", "absent"))
	apitest.CheckID(t, chat["id"], "chat")
	if chat["title"] != nil || chat["shared_url"] != nil || chat["temporary"] != false || chat["pinned"] != false {
		t.Errorf("new chat: title %v shared_url %v temporary %v pinned %v", chat["title"], chat["shared_url"], chat["temporary"], chat["pinned"])
	}
	if chat["visibility"] != "PRIVATE" || chat["status"] != "COMPLETED" || chat["model"] != "openai:gpt-4o" || chat["org_id"] != e.Org.ID {
		t.Errorf("new chat: visibility %v status %v model %v org %v", chat["visibility"], chat["status"], chat["model"], chat["org_id"])
	}
	if chat["link"] != "mailto:ada@example.com" || chat["created_at"] != chat["updated_at"] {
		t.Errorf("link %v, created %v updated %v", chat["link"], chat["created_at"], chat["updated_at"])
	}
	if f := chObj(chat, "features", "reasoning"); f["effort"] != "low" {
		t.Errorf("features %v", chat["features"])
	}
	tools := chat["tools"].([]any)
	if len(tools) != 1 {
		t.Fatalf("tools %v", tools)
	}
	apitest.ExpectShape(t, "tool", tools[0].(map[string]any), map[string]string{"name": "string", "display_name": "string",
		"action_name": "string", "description": "string", "icon": "string", "icon_url": "string", "connection_id": "string",
		"callback": "string", "parameters": "object", "enabled_by_default": "boolean"})

	// Members: the creator as user, the contact as its channel in the nested form.
	members := chat["members"].([]any)
	if len(members) != 2 {
		t.Fatalf("members %v", members)
	}
	user, contact := chMember(members, "ADMIN"), chMember(members, "CONTACT")
	apitest.ExpectShape(t, "member(user)", user, chUserMemberShape)
	apitest.ExpectShape(t, "member.user", chObj(user, "user"), map[string]string{"id": "string", "name": "string", "avatar": "string"})
	if user["role"] != "ADMIN" || chObj(user, "user")["id"] != e.Owner.ID {
		t.Errorf("user member %v", user)
	}
	apitest.ExpectShape(t, "member(contact)", contact, chContactMemberShape)
	apitest.ExpectShape(t, "member.session", chObj(contact, "session"), map[string]string{"id": "string"})
	nested := chObj(contact, "contact_channel")
	apitest.ExpectShape(t, "member.contact_channel", nested, chNestedChannelShape)
	apitest.ExpectShape(t, "member.contact_channel.contact", chObj(nested, "contact"),
		map[string]string{"id": "string", "name": "string", "blocked": "boolean", "is_admin": "boolean"})
	if nested["email"] != "ada@example.com" || nested["type"] != "email" || chObj(nested, "contact")["name"] != "Ada Lovelace" {
		t.Errorf("nested channel %v", nested)
	}

	// State: conversation on the channel's integration, the assistant and its config.
	st := chState(chat)
	apitest.ExpectShape(t, "state", st, chStateShape)
	if st["state"] != "OPEN" || st["integration_id"] != "email" || st["assistant_id"] != asst["id"] || st["ai_enabled"] != true {
		t.Errorf("state %v", st)
	}
	if st["csat_score"] != nil || st["assigned_at"] != nil || st["follow_up_at"] != nil || st["last_contact_message_at"] != nil {
		t.Errorf("unset state fields must be null: %v", st)
	}
	if st["admin_unseen_count"] != 0.0 || st["user_unseen_count"] != 0.0 {
		t.Errorf("counters %v / %v", st["admin_unseen_count"], st["user_unseen_count"])
	}
	sa := chObj(st, "assistant")
	apitest.ExpectShape(t, "state.assistant", sa, chStateAsstShape)
	apitest.ExpectShape(t, "state.assistant.config", chObj(sa, "config"), map[string]string{"conversation": "object"})
	conv := chObj(sa, "config", "conversation")
	apitest.ExpectShape(t, "state.assistant.config.conversation", conv, chStateAsstConvShape)
	if conv["welcome_banner"] != "Hi!" || conv["auto_intro_message"] != "I am Helper" || conv["enable_auto_csat"] != true ||
		len(conv["suggested_messages"].([]any)) != 2 || sa["avatar_url"] != "https://cdn.example.com/a.png" || sa["deleted"] != false {
		t.Errorf("state.assistant %v", sa)
	}
	cfg := chObj(st, "assistant_config")
	apitest.ExpectShape(t, "state.assistant_config", cfg, chConfigShape)
	apitest.ExpectShape(t, "state.assistant_config.conversation", chObj(cfg, "conversation"), chConversationShape)
	apitest.ExpectShape(t, "state.assistant_config.stt", chObj(cfg, "stt"), map[string]string{"model": "string"})
	apitest.ExpectShape(t, "state.assistant_config.tts", chObj(cfg, "tts"), map[string]string{"model": "string", "voice_id": "string"})
	if cfg["model"] != "openai:gpt-4o" || cfg["language"] != "en" || chObj(cfg, "conversation")["enable_memories"] != true {
		t.Errorf("assistant_config %v", cfg)
	}

	// A message: the spec's Chat message, usage returned exactly as given.
	id := chat["id"].(string)
	usage := map[string]any{"input_tokens": 12.0, "output_tokens": 30.0, "total_tokens": 42.0, "reasoning_tokens": 5.0,
		"input_tokens_cache_read": 2.0, "input_tokens_cache_write": 1.0, "turns": []any{
			map[string]any{"input_tokens": 5.0, "output_tokens": 10.0, "total_tokens": 15.0, "reasoning_tokens": 2.0,
				"input_tokens_cache_read": 1.0, "input_tokens_cache_write": 0.0},
			map[string]any{"input_tokens": 7.0, "output_tokens": 20.0, "total_tokens": 27.0, "reasoning_tokens": 3.0,
				"input_tokens_cache_read": 1.0, "input_tokens_cache_write": 1.0}}}
	msg := e.Do("POST", "/orgs/c/chats/"+id+"/messages", e.AdminKey, map[string]any{"role": "user",
		"messages": chText("user", "Hello, I need help"), "usage": usage}).Expect(201).Map()
	apitest.ExpectShape(t, "message", msg, chMessageShape)
	apitest.CheckID(t, msg["id"], "msg")
	if msg["role"] != "user" || msg["model"] != "openai:gpt-4o" || msg["status"] != "COMPLETED" || msg["error"] != nil ||
		msg["broadcast_id"] != nil || msg["is_broadcast_message"] != false || msg["chat_id"] != id {
		t.Errorf("message %v", msg)
	}
	turns := msg["messages"].([]any)
	turn := turns[0].(map[string]any)
	apitest.ExpectShape(t, "message.messages[0]", turn, map[string]string{"role": "string", "parts": "array"})
	apitest.ExpectShape(t, "message.messages[0].parts[0]", turn["parts"].([]any)[0].(map[string]any), map[string]string{"type": "string", "text": "string"})
	if turn["role"] != "user" || turn["parts"].([]any)[0].(map[string]any)["text"] != "Hello, I need help" {
		t.Errorf("turn %v", turn)
	}
	if !reflect.DeepEqual(msg["usage"], usage) {
		got, _ := json.Marshal(msg["usage"])
		t.Errorf("usage %s, want what was given", got)
	}
	apitest.ExpectShape(t, "message.member", chObj(msg, "member"), chContactMemberShape)
	if chObj(msg, "member")["id"] != contact["id"] {
		t.Errorf("message member %v, want the contact entry %v", msg["member"], contact["id"])
	}

	// The chat now has last_message, an assignee and a score.
	e.Clock.Advance(time.Second)
	got := chPatch(e, e.AdminKey, "c", id, map[string]any{"assigned_user_id": e.Owner.ID, "csat_score": 4})
	apitest.ExpectShape(t, "chat", got, chChatShape)
	apitest.ExpectShape(t, "last_message", chObj(got, "last_message"), chMessageShape)
	// The contact's first message earned the assistant's auto_intro_message, which came after it.
	last := chObj(got, "last_message")
	if last["role"] != "assistant" || last["status"] != "COMPLETED" ||
		!reflect.DeepEqual(last["messages"], []any{map[string]any{"role": "assistant",
			"parts": []any{map[string]any{"type": "text", "text": "I am Helper"}}}}) {
		t.Errorf("last_message %v, want the intro", got["last_message"])
	}
	st = chState(got)
	apitest.ExpectShape(t, "state(assigned)", st, chWith(chStateShape, "assigned_user", "object", "assigned_at", "time",
		"csat_score", "number", "last_contact_message_at", "time"))
	au := chObj(st, "assigned_user")
	apitest.ExpectShape(t, "state.assigned_user", au, chAssignedShape)
	if au["id"] != e.Owner.ID || au["email"] != e.Owner.Email || au["seen_at"] != nil || st["csat_score"] != 4.0 {
		t.Errorf("assigned state %v", st)
	}

	// GET and the inbox answer the same object.
	read := chGetChat(e, e.AdminKey, "c", id)
	if !reflect.DeepEqual(read, got) {
		t.Errorf("GET differs from the PATCH answer:\n%v\n%v", read, got)
	}
	list := e.Do("GET", "/orgs/c/inbox", e.AdminKey, nil).Expect(200).List()
	if len(list) != 1 || !reflect.DeepEqual(list[0], got) {
		t.Errorf("inbox %v", list)
	}
}

// TestInternalChatAndMessageShape checks a chat without contact or assistant, and an admin
// message in it.
func TestInternalChatAndMessageShape(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	chat := chChat(e, e.AdminKey, "c", map[string]any{"title": "Notes", "visibility": "PUBLIC_READ", "temporary": true,
		"features": map[string]any{"web_search": map[string]any{}}})
	apitest.ExpectShape(t, "chat", chat, chWith(chChatShape, "last_message", "absent"))
	st := chState(chat)
	apitest.ExpectShape(t, "state", st, chWith(chStateShape, "assistant", "null", "assistant_config", "null", "assistant_integration", "null"))
	if chat["title"] != "Notes" || chat["visibility"] != "PUBLIC_READ" || chat["temporary"] != true || chat["link"] != "" {
		t.Errorf("chat %v", chat)
	}
	if st["integration_id"] != "internal" || st["state"] != "OPEN" || st["ai_enabled"] != false {
		t.Errorf("state %v", st)
	}
	// web_search switched on with no options is an empty object, not dropped.
	if ws, ok := chObj(chat, "features")["web_search"]; !ok || apitest.JSONKind(ws) != "object" {
		t.Errorf("features %v, want web_search {} kept", chat["features"])
	}
	if m := chat["members"].([]any); len(m) != 1 {
		t.Errorf("members %v, want the creator only", m)
	}
	msg := chMsg(e, e.AdminKey, "c", chat["id"].(string), "admin", "a note")
	apitest.ExpectShape(t, "message", msg, chMessageShape)
	apitest.ExpectShape(t, "message.member", chObj(msg, "member"), chUserMemberShape)
	if msg["usage"] != nil || msg["member"].(map[string]any)["user"].(map[string]any)["id"] != e.Owner.ID {
		t.Errorf("message %v", msg)
	}
	// An assistant message has no member entry.
	am := chMsg(e, e.AdminKey, "c", chat["id"].(string), "assistant", "a reply")
	if am["member"] != nil {
		t.Errorf("assistant message member %v, want null", am["member"])
	}
}

// TestAssistantJSONShape checks an assistant's fields and every assistant_config field
// against the OpenAPI document's Assistant (each field required, no other: the harness
// validates every answer), then its values.
func TestAssistantJSONShape(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	a := chAssistant(e, e.AdminKey, "c", map[string]any{"name": "  Aria  "})
	apitest.CheckID(t, a["id"], "asst")
	cfg := chObj(a, "config")
	if a["name"] != "Aria" || a["enabled"] != true || a["deleted"] != false || cfg["language"] != "auto" ||
		cfg["model"] != "auto:auto" || cfg["knowledge_scope"] != "all" || chObj(cfg, "conversation")["thread_mode"] != "new" {
		t.Errorf("assistant defaults %v", a)
	}

	full := map[string]any{"language": "pt-BR", "model": "anthropic:claude-sonnet", "stt": map[string]any{"model": "openai:whisper-1"},
		"tts": map[string]any{"model": "elevenlabs:turbo", "voice_id": "v1"}, "knowledge_scope": "none", "timezone": "Europe/Paris",
		"instructions": "Be brief.", "conversation": map[string]any{"thread_mode": "continue", "enable_memories": true,
			"enable_transfer_to_human_tool": true, "enable_end_conversation_tool": true, "enable_block_contact_tool": true,
			"enable_auto_resolve": true, "enable_auto_follow_ups": true, "enable_auto_csat": true, "enable_private_chats": true,
			"welcome_banner": "W", "auto_intro_message": "I", "suggested_messages": []any{"a", "b"}}}
	b := chAssistant(e, e.AdminKey, "c", map[string]any{"name": "Full", "enabled": false, "config": full})
	if !reflect.DeepEqual(b["config"], full) || b["enabled"] != false {
		t.Errorf("config %v, want exactly %v", b["config"], full)
	}
	got := e.Do("GET", "/orgs/c/assistants/"+b["id"].(string), e.AdminKey, nil).Expect(200).Map()
	if !reflect.DeepEqual(got, b) {
		t.Errorf("GET %v, want %v", got, b)
	}
}
