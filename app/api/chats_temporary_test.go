package api_test

import (
	"context"
	"testing"
	"time"

	"wsapi/app/apitest"
)

// TestTemporaryChatLifetime: the janitor deletes a temporary chat 24 hours after its last
// activity, not a moment before; a message is activity; other chats stay.
func TestTemporaryChatLifetime(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	ctx := context.Background()
	exists := func(id string) bool {
		t.Helper()
		return e.Do("GET", "/orgs/c/chats/"+id, e.AdminKey, nil).Status == 200
	}
	at := func(d time.Duration) {
		e.Clock.Set(apitest.Start.Add(d))
		e.Runtime.Janitor.RunOnce(ctx)
	}

	// T = Start.
	quiet := chChat(e, e.AdminKey, "c", map[string]any{"temporary": true})["id"].(string)
	talked := chConversation(e, e.AdminKey, "c", "Temp")["id"].(string)
	chPatch(e, e.AdminKey, "c", talked, map[string]any{"title": "t"})
	e.DoInvalid("PATCH", "/orgs/c/chats/"+talked, e.AdminKey, map[string]any{"temporary": true}).ExpectError(400, "invalid_argument", "temporary")
	talkedTemp := chContact(e, e.AdminKey, "c", "Temp2", map[string]any{"type": "email", "email": "t2@example.com"})
	tt := chChat(e, e.AdminKey, "c", map[string]any{"contact_id": talkedTemp["id"], "temporary": true})["id"].(string)
	kept := chChat(e, e.AdminKey, "c", map[string]any{"temporary": false})["id"].(string)

	// At T+20h a message is activity for tt.
	e.Clock.Set(apitest.Start.Add(20 * time.Hour))
	m := chMsg(e, e.AdminKey, "c", tt, "user", "still here")
	if c := chGetChat(e, e.AdminKey, "c", tt); c["updated_at"] != m["created_at"] {
		t.Fatalf("a message did not move updated_at: %v, message %v", c["updated_at"], m["created_at"])
	}

	at(23*time.Hour + 59*time.Minute)
	if !exists(quiet) || !exists(tt) {
		t.Fatalf("a temporary chat is gone before 24 hours")
	}
	at(24 * time.Hour)
	if !exists(quiet) {
		t.Fatalf("a temporary chat is gone at exactly 24 hours")
	}
	at(24*time.Hour + time.Second)
	if exists(quiet) {
		t.Errorf("a temporary chat outlived 24 hours of inactivity")
	}
	if !exists(tt) || !exists(kept) || !exists(talked) {
		t.Errorf("a chat with recent activity or not temporary was deleted")
	}
	// Its messages went with it.
	e.Do("GET", "/orgs/c/chats/"+quiet+"/messages", e.AdminKey, nil).ExpectError(404, "not_found")

	at(20*time.Hour + 24*time.Hour - time.Minute)
	if !exists(tt) {
		t.Errorf("the chat with a message at T+20h is gone before T+44h")
	}
	at(20*time.Hour + 24*time.Hour + time.Second)
	if exists(tt) {
		t.Errorf("the chat with a message at T+20h outlived T+44h")
	}
	if !exists(kept) || !exists(talked) {
		t.Errorf("a chat that is not temporary was deleted")
	}
	for _, id := range chInbox(e, e.AdminKey, "") {
		if id == tt || id == quiet {
			t.Errorf("the inbox still lists a deleted temporary chat")
		}
	}
}
