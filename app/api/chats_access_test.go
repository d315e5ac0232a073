package api_test

import (
	"encoding/base64"
	"net/url"
	"testing"

	"wsapi/app/apitest"
)

// TestChatRoutesOfAnotherOrg: every chat, message, file and assistant id of another
// organization is 404 on every route, reached through `c` or through the other org's id.
func TestChatRoutesOfAnotherOrg(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	// Two sibling sub-organizations, each with its own ADMIN key.
	a, akey := e.OrgWithAdmin("Alpha")
	b, bkey := e.OrgWithAdmin("Beta")
	_ = a

	// Beta's data.
	asst := chAssistant(e, bkey, "c", map[string]any{"name": "B bot"})["id"].(string)
	ct := chContact(e, bkey, "c", "B contact", map[string]any{"type": "email", "email": "b@example.com"})
	chat := chChat(e, bkey, "c", map[string]any{"contact_id": ct["id"], "assistant_id": asst})["id"].(string)
	msg := chMsg(e, bkey, "c", chat, "user", "hello")["id"].(string)
	media := e.Do("POST", "/orgs/c/chats/"+chat+"/events", bkey, map[string]any{"type": "media",
		"data": map[string]any{"audio": base64.StdEncoding.EncodeToString([]byte("x")), "format": "mp3"}}).Expect(200).Map()
	audio := chObj(chObj(media["messages"].([]any)[0])["parts"].([]any)[0], "audio")
	fileURL, _ := url.Parse(audio["file_url"].(string))
	file := audio["id"].(string)
	e.Do("PUT", "/orgs/c/chats/"+chat+"/messages/"+msg+"/reaction", bkey, map[string]any{"emoji": "👍"}).Expect(200)
	if fileURL.Path != "/orgs/"+b.ID+"/chats/"+chat+"/files/"+file {
		t.Fatalf("file_url %v", fileURL)
	}

	text := map[string]any{"role": "user", "messages": chText("user", "x")}
	routes := []struct {
		method, path string
		body         any
	}{
		{"GET", "/chats/" + chat, nil},
		{"PATCH", "/chats/" + chat, map[string]any{"title": "mine now"}},
		{"PATCH", "/chats/" + chat, map[string]any{"assigned_user_id": nil}},
		{"POST", "/chats/" + chat + "/read", nil},
		{"GET", "/chats/" + chat + "/messages", nil},
		{"POST", "/chats/" + chat + "/messages", text},
		{"POST", "/chats/" + chat + "/events", map[string]any{"type": "sync"}},
		{"POST", "/chats/" + chat + "/events", map[string]any{"type": "media", "data": map[string]any{"audio": "eA==", "format": "mp3"}}},
		{"PUT", "/chats/" + chat + "/messages/" + msg + "/reaction", map[string]any{"emoji": "👎"}},
		{"DELETE", "/chats/" + chat + "/messages/" + msg + "/reaction", nil},
		{"GET", "/chats/" + chat + "/files", nil},
		{"GET", "/chats/" + chat + "/files/" + file, nil},
		{"GET", "/assistants/" + asst, nil},
		{"PATCH", "/assistants/" + asst, map[string]any{"name": "mine"}},
		{"DELETE", "/assistants/" + asst, nil},
		{"DELETE", "/chats/" + chat, nil},
	}
	for _, r := range routes {
		for _, org := range []string{"c", b.ID} {
			t.Run(r.method+" "+org+r.path, func(t *testing.T) {
				e.For(t).Do(r.method, "/orgs/"+org+r.path, akey, r.body).ExpectError(404, "not_found")
			})
		}
	}
	// Alpha's own chat with Beta's message id: still 404.
	own := chChat(e, akey, "c", nil)["id"].(string)
	e.Do("PUT", "/orgs/c/chats/"+own+"/messages/"+msg+"/reaction", akey, map[string]any{"emoji": "👍"}).ExpectError(404, "not_found")
	e.Do("GET", "/orgs/c/chats/"+own+"/files/"+file, akey, nil).ExpectError(404, "not_found")
	// Nor do Beta's chats show in Alpha's inbox or Beta's assistant in Alpha's list.
	if ids := chInbox(e, akey, ""); len(ids) != 1 || ids[0] != own {
		t.Errorf("Alpha's inbox %v", ids)
	}
	if ids := chInbox(e, akey, chQ("assistant_id", asst)); len(ids) != 0 {
		t.Errorf("Alpha's inbox by Beta's assistant %v", ids)
	}
	if l := e.Do("GET", "/orgs/c/assistants", akey, nil).Expect(200).List(); len(l) != 0 {
		t.Errorf("Alpha's assistants %v", l)
	}
	// Nothing of Beta's changed.
	got := chGetChat(e, bkey, "c", chat)
	if got["title"] != nil || chState(got)["admin_unseen_count"] != 2.0 || chObj(got, "state", "assistant")["deleted"] != false {
		t.Errorf("Beta's chat changed: %v", got)
	}
	msgs := e.Do("GET", "/orgs/c/chats/"+chat+"/messages", bkey, nil).Expect(200).List()
	if len(msgs) != 2 || msgs[0]["id"] != msg || len(msgs[0]["reactions"].([]any)) != 1 {
		t.Errorf("Beta's messages changed: %v", msgs)
	}
	e.Do("GET", fileURL.Path, bkey, nil).Expect(200)
	e.Do("GET", "/orgs/c/assistants/"+asst, bkey, nil).Expect(200)
	// The parent organization's key reaches Beta by its id.
	e.Do("GET", "/orgs/"+b.ID+"/chats/"+chat, e.AdminKey, nil).Expect(200)
	e.Do("GET", "/orgs/c/chats/"+chat, e.AdminKey, nil).ExpectError(404, "not_found")
}

// TestInboxPermissions: GET /inbox needs inbox:read; writing chats needs inbox:write.
func TestInboxPermissions(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	chat := chChat(e, e.AdminKey, "c", nil)["id"].(string)
	none := e.RoleKey(e.Org.ID, "contacts:read")
	read := e.RoleKey(e.Org.ID, "inbox:read")
	write := e.RoleKey(e.Org.ID, "inbox:write")
	assistantsRead := e.RoleKey(e.Org.ID, "assistants:read")

	e.Do("GET", "/orgs/c/inbox", none, nil).ExpectError(403, "permission_denied")
	e.Do("GET", "/orgs/c/chats/"+chat, none, nil).ExpectError(403, "permission_denied")
	e.Do("GET", "/orgs/c/assistants", none, nil).ExpectError(403, "permission_denied")
	e.Do("GET", "/orgs/c/inbox", read, nil).Expect(200)
	e.Do("GET", "/orgs/c/chats/"+chat+"/messages", read, nil).Expect(200)
	e.Do("POST", "/orgs/c/chats", read, map[string]any{}).ExpectError(403, "permission_denied")
	e.Do("PATCH", "/orgs/c/chats/"+chat, read, map[string]any{"pinned": true}).ExpectError(403, "permission_denied")
	e.Do("POST", "/orgs/c/chats/"+chat+"/messages", read, map[string]any{"role": "admin", "messages": chText("admin", "x")}).
		ExpectError(403, "permission_denied")
	e.Do("GET", "/orgs/c/inbox", write, nil).Expect(200)
	chChat(e, write, "c", nil)
	e.Do("GET", "/orgs/c/assistants", assistantsRead, nil).Expect(200)
	e.Do("POST", "/orgs/c/assistants", assistantsRead, map[string]any{"name": "x"}).ExpectError(403, "permission_denied")
	e.Do("GET", "/orgs/c/inbox", "", nil).ExpectError(401, "unauthenticated")
	// A MEMBER works the inbox.
	m := e.Member(e.AdminKey, "c", "Plain Member", "MEMBER")
	mk := e.Key(e.AdminKey, "c", m.ID)
	e.Do("GET", "/orgs/c/inbox", mk, nil).Expect(200)
	chPatch(e, mk, "c", chat, map[string]any{"pinned": true})
}
