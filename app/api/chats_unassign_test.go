package api_test

import (
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

// TestDeletingTheAssigneeUnassignsWithTheEvent deletes a member who is assigned two chats
// (one of them internal): both lose their assignee and assigned_at, and the conversation
// chat, like a PATCH to null, fires chat.assigned carrying the unassigned chat.
func TestDeletingTheAssigneeUnassignsWithTheEvent(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	rcv := apitest.NewReceiver(t)
	e.Webhook(e.AdminKey, "c", rcv.URL, app.EventChatAssigned)
	conv := chConversation(e, e.AdminKey, "c", "Ruth")["id"].(string)
	internal := chChat(e, e.AdminKey, "c", nil)["id"].(string)
	m := e.Member(e.AdminKey, "c", "Leaving Agent", "MEMBER")
	chPatch(e, e.AdminKey, "c", conv, map[string]any{"assigned_user_id": m.ID})
	chPatch(e, e.AdminKey, "c", internal, map[string]any{"assigned_user_id": m.ID})
	rcv.Wait(t, 1, 5*time.Second)

	e.Do("DELETE", "/orgs/c/members/"+m.ID, e.AdminKey, nil).Expect(204)
	for _, id := range []string{conv, internal} {
		st := chState(chGetChat(e, e.AdminKey, "c", id))
		if _, ok := st["assigned_user"]; ok || st["assigned_at"] != nil {
			t.Fatalf("chat %s after its assignee was deleted: state %v", id, st)
		}
	}
	rcv.Wait(t, 2, 5*time.Second)
	for _, env := range rcv.Envelopes(t) {
		t.Log(env["data"].(map[string]any)["id"], chState(env["data"].(map[string]any))["assigned_at"])
	}
	rcv.Quiet(t, 2, 100*time.Millisecond) // the internal chat fires nothing
	envs := rcv.Envelopes(t)
	var last map[string]any
	for _, env := range envs {
		if d := env["data"].(map[string]any); chState(d)["assigned_at"] == nil {
			last = d
		}
	}
	if last == nil || last["id"] != conv {
		t.Fatalf("no chat.assigned for the unassignment: %v", envs)
	}
	if got := chGetChat(e, e.AdminKey, "c", conv); got["updated_at"] != last["updated_at"] {
		t.Fatalf("event data %v differs from the chat %v", last, got)
	}
	if _, ok := chState(last)["assigned_user"]; ok {
		t.Fatalf("event still shows an assignee: %v", last)
	}
}
