package api_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
)

// Helpers of the chats, inbox and assistants tests; every name starts with ch so that it
// cannot clash with the helpers of the other test files of the package.

// chText is the messages body of a one-part text turn.
func chText(role, text string) []map[string]any {
	return []map[string]any{{"role": role, "parts": []map[string]any{{"type": "text", "text": text}}}}
}

// chContact creates a contact with channels and answers it.
func chContact(e *apitest.Env, key, org, name string, channels ...map[string]any) map[string]any {
	e.T.Helper()
	if channels == nil {
		channels = []map[string]any{}
	}
	return e.Do("POST", "/orgs/"+org+"/contacts", key, map[string]any{"name": name, "channels": channels}).Expect(201).Map()
}

// chChannel is the id of a contact's i-th channel.
func chChannel(c map[string]any, i int) string {
	return c["channels"].([]any)[i].(map[string]any)["id"].(string)
}

// chChat creates a chat and answers it.
func chChat(e *apitest.Env, key, org string, body map[string]any) map[string]any {
	e.T.Helper()
	if body == nil {
		body = map[string]any{}
	}
	return e.Do("POST", "/orgs/"+org+"/chats", key, body).Expect(201).Map()
}

var chPhones atomic.Int64

// chConversation creates a contact with one whatsapp channel and a chat with it.
func chConversation(e *apitest.Env, key, org, name string) map[string]any {
	e.T.Helper()
	phone := fmt.Sprintf("+1 415 %07d", chPhones.Add(1))
	c := chContact(e, key, org, name, map[string]any{"type": "whatsapp", "phone": phone})
	return chChat(e, key, org, map[string]any{"contact_id": c["id"]})
}

// chMsg posts a one-part text message with role and answers it.
func chMsg(e *apitest.Env, key, org, chatID, role, text string) map[string]any {
	e.T.Helper()
	return e.Do("POST", "/orgs/"+org+"/chats/"+chatID+"/messages", key,
		map[string]any{"role": role, "messages": chText(role, text)}).Expect(201).Map()
}

// chPatch patches a chat and answers it.
func chPatch(e *apitest.Env, key, org, chatID string, body map[string]any) map[string]any {
	e.T.Helper()
	return e.Do("PATCH", "/orgs/"+org+"/chats/"+chatID, key, body).Expect(200).Map()
}

// chGetChat reads a chat.
func chGetChat(e *apitest.Env, key, org, chatID string) map[string]any {
	e.T.Helper()
	return e.Do("GET", "/orgs/"+org+"/chats/"+chatID, key, nil).Expect(200).Map()
}

// chState is a chat's state object.
func chState(c map[string]any) map[string]any {
	st, _ := c["state"].(map[string]any)
	return st
}

// chAssistant creates an assistant and answers it.
func chAssistant(e *apitest.Env, key, org string, body map[string]any) map[string]any {
	e.T.Helper()
	return e.Do("POST", "/orgs/"+org+"/assistants", key, body).Expect(201).Map()
}

// chInbox answers the ids of one inbox page for a query (without the leading ?).
func chInbox(e *apitest.Env, key, query string) []string {
	e.T.Helper()
	var ids []string
	for _, c := range e.Do("GET", "/orgs/c/inbox?"+query, key, nil).Expect(200).List() {
		ids = append(ids, c["id"].(string))
	}
	return ids
}

// chQ builds a query string from pairs.
func chQ(kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v.Encode()
}

// chCaller is the bootstrap owner acting on the bootstrap organization, for creating data
// through the service faster than over HTTP.
func chCaller(e *apitest.Env) app.Caller {
	return app.Caller{Principal: app.Principal{Member: e.Owner}, OrgID: e.Org.ID}
}

// chCreate creates a chat through the service.
func chCreate(t *testing.T, e *apitest.Env, in app.ChatInput) app.Chat {
	t.Helper()
	c, err := e.Runtime.Service.CreateChat(context.Background(), chCaller(e), in)
	if err != nil {
		t.Fatalf("CreateChat: %v", err)
	}
	return c
}

// chSameList fails unless got and want hold the same strings in the same order.
func chSameList(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%s:\n got %v\nwant %v", what, got, want)
	}
}

// Field lists of the spec (with the few fields the service adds, marked).
var (
	chChatShape = map[string]string{
		"id": "string", "title": "string?", "model": "string", "members": "array", "temporary": "boolean",
		"visibility": "string", "pinned": "boolean", "status": "string", "shared_url": "string?",
		"created_at": "time", "updated_at": "time", "tools": "array", "features": "object", "org_id": "string",
		"state": "object", "link": "string", "last_message": "object",
	}
	chStateShape = map[string]string{
		"id": "string", "state": "string", "integration_id": "string",
		"channel_type": "string", // named by the chat.assigned payload
		"assistant_id": "string?", "assistant_integration_id": "string?", "conversation_id": "string?",
		"ai_enabled": "boolean", "admin_unseen_count": "number", "user_unseen_count": "number",
		"assistant": "object?", "assistant_integration": "object?", "assigned_user": "absent",
		"assigned_at": "time?", "assistant_config": "object?", "follow_up_at": "time?", "csat_score": "number?",
		"last_contact_message_at": "time?",
	}
	chAssignedShape  = map[string]string{"id": "string", "name": "string", "email": "string", "avatar": "string", "seen_at": "time?"}
	chStateAsstShape = map[string]string{
		"id": "string", "name": "string", "enabled": "boolean", "avatar_url": "string", "deleted": "boolean", "config": "object",
	}
	chStateAsstConvShape = map[string]string{
		"welcome_banner": "string", "suggested_messages": "array", "auto_intro_message": "string", "enable_auto_csat": "boolean",
	}
	chUserMemberShape = map[string]string{
		"id": "string", "role": "string", "user": "object", "session": "null", "contact_channel": "null",
	}
	chContactMemberShape = map[string]string{
		"id": "string", "role": "string", "user": "null", "session": "object", "contact_channel": "object",
	}
	chNestedChannelShape = map[string]string{
		"id": "string", "type": "string", "user_id": "string", "avatar": "string", "name": "string", "username": "string",
		"email": "string", "phone": "string", "country": "string", "agent": "string", "ip": "string", "language": "string",
		"link": "string", "contact": "object",
		"platform_data": "absent", "created_at": "absent", "updated_at": "absent",
	}
	chMessageShape = map[string]string{
		"id": "string", "role": "string", "model": "string", "status": "string", "created_at": "time", "updated_at": "time",
		"messages": "array", "tools": "array", "features": "object", "member": "object?", "error": "string?",
		"broadcast_id": "string?", "is_broadcast_message": "boolean", "usage": "object?",
		"reactions": "array", "chat_id": "string", // added by the service
		"delivery": "object?", // set on replies the server delivers to the contact
	}
	chConfigShape = map[string]string{
		"language": "string", "model": "string", "stt": "object", "tts": "object", "conversation": "object",
		"knowledge_scope": "string", "timezone": "string", "instructions": "string",
	}
	chConversationShape = map[string]string{
		"thread_mode": "string", "enable_memories": "boolean", "enable_transfer_to_human_tool": "boolean",
		"enable_end_conversation_tool": "boolean", "enable_block_contact_tool": "boolean", "enable_auto_resolve": "boolean",
		"enable_auto_follow_ups": "boolean", "enable_auto_csat": "boolean", "enable_private_chats": "boolean",
		"welcome_banner": "string", "auto_intro_message": "string", "suggested_messages": "array",
	}
)

// chWith is a copy of shape with some fields changed.
func chWith(shape map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range shape {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// chObj is the object at a path of nested keys, nil when any step is missing.
func chObj(v any, path ...string) map[string]any {
	for _, k := range path {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	m, _ := v.(map[string]any)
	return m
}

// chMember is the first entry of a members array with role, or nil.
func chMember(members []any, role string) map[string]any {
	for _, m := range members {
		if mm, _ := m.(map[string]any); mm["role"] == role {
			return mm
		}
	}
	return nil
}
