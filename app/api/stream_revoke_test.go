package api_test

import (
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

// revokeWithin is how soon after the change's answer an open stream must end.
const revokeWithin = time.Second

// watcher is a member with a role that reads the inbox, its key, and two open streams of
// it: the organization's and a chat's.
type watcher struct {
	member     app.Member
	role       app.Role
	key, keyID string
	org, chat  *apitest.SSEStream
	chatID     string
}

func openWatcher(t *testing.T, e *apitest.Env) *watcher {
	t.Helper()
	w := &watcher{}
	e.Do("POST", "/orgs/c/roles", e.AdminKey, map[string]any{"name": "reader " + app.RandomBase62(6),
		"permissions": []string{"inbox:read", "contacts:read"}}).Expect(201).JSON(&w.role)
	w.member = e.Member(e.AdminKey, "c", "watcher "+app.RandomBase62(6), w.role.ID)
	var nk app.NewKey
	e.Do("POST", "/orgs/c/keys", e.AdminKey, map[string]any{"name": "watch", "member_id": w.member.ID}).Expect(201).JSON(&nk)
	w.key, w.keyID = nk.Token, nk.ID
	w.chatID = chConversation(e, e.AdminKey, "c", "Ada")["id"].(string)
	w.org = orgOpen(t, e, w.key, "")
	w.chat, _ = e.Synced(chatStreamPath("c", w.chatID), w.key)
	// Both deliver before the change: a message reaches them.
	chMsg(e, e.AdminKey, "c", w.chatID, "user", "before")
	w.chat.Expect(app.StreamMessageCreated)
	for ev := w.org.Next(); ev.Type != app.StreamMessageCreated; ev = w.org.Next() {
	}
	return w
}

// ended marks the test failed unless both streams of w end within revokeWithin, while the admin's
// stream opened beside them goes on.
func (w *watcher) ended(t *testing.T, e *apitest.Env, bystander *apitest.SSEStream, what string) {
	t.Helper()
	start := time.Now()
	if !w.org.Ended(revokeWithin) {
		t.Errorf("%s: the organization stream still open after %s", what, revokeWithin)
	}
	if !w.chat.Ended(max(revokeWithin-time.Since(start), time.Millisecond)) {
		t.Errorf("%s: the chat stream still open after %s", what, revokeWithin)
	}
	w.org.Close()
	w.chat.Close()
	chMsg(e, e.AdminKey, "c", w.chatID, "user", "after")
	for ev := bystander.Next(); ev.Type != app.StreamMessageCreated; ev = bystander.Next() {
	}
}

// TestRevocationEndsOpenStreams: "deleting a key revokes access immediately" holds for open
// streams too. After each change that revokes a stream's principal, its streams end within a
// second of the change's answer; a stream of an untouched key goes on.
func TestRevocationEndsOpenStreams(t *testing.T) {
	e := stEnv(t)
	bystander := orgOpen(t, e, e.AdminKey, "")
	changes := []struct {
		what   string
		revoke func(w *watcher)
	}{
		{"key deleted", func(w *watcher) { e.Do("DELETE", "/orgs/c/keys/"+w.keyID, e.AdminKey, nil).Expect(204) }},
		{"key rotated", func(w *watcher) { e.Do("POST", "/orgs/c/keys/"+w.keyID+"/rotate", e.AdminKey, nil).Expect(200) }},
		{"member deleted", func(w *watcher) { e.Do("DELETE", "/orgs/c/members/"+w.member.ID, e.AdminKey, nil).Expect(204) }},
		{"role demoted", func(w *watcher) {
			e.Do("PATCH", "/orgs/c/roles/"+w.role.ID, e.AdminKey, map[string]any{"permissions": []string{"contacts:read"}}).Expect(200)
		}},
		{"member moved to a lesser role", func(w *watcher) {
			var none app.Role
			e.Do("POST", "/orgs/c/roles", e.AdminKey, map[string]any{"name": "none " + app.RandomBase62(6),
				"permissions": []string{}}).Expect(201).JSON(&none)
			e.Do("PATCH", "/orgs/c/members/"+w.member.ID, e.AdminKey, map[string]any{"role": none.ID}).Expect(200)
		}},
	}
	for _, c := range changes { // one environment: a failing change is reported, the next still runs
		w := openWatcher(t, e)
		c.revoke(w)
		w.ended(t, e, bystander, c.what)
	}
}
