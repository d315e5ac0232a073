package api_test

import (
	"testing"

	"wsapi/app/apitest"
)

// visitorStream is one visitor of the widget asi that has written once, with its chat's
// stream open and synced.
type visitorStream struct {
	token, chatID string
	s             *apitest.SSEStream
}

func openVisitor(t *testing.T, e *apitest.Env, asi string) *visitorStream {
	t.Helper()
	api := "/widget/" + asi + "/api"
	var start, sent map[string]any
	e.Do("POST", api+"/session", "", map[string]any{}).Expect(201).JSON(&start)
	v := &visitorStream{token: start["token"].(string)}
	req := e.Request("POST", api+"/messages", "", map[string]any{"text": "hello"})
	req.Header.Set("X-Session-Token", v.token)
	e.Send(req).Expect(201).JSON(&sent)
	v.chatID = sent["chat"].(map[string]any)["id"].(string)
	v.s = e.Stream(api+"/stream?token="+v.token+"&chat_id="+v.chatID, "", "")
	t.Cleanup(v.s.Close)
	v.s.Expect("sync")
	return v
}

// reply posts a member's message to the visitor's chat.
func (v *visitorStream) reply(e *apitest.Env, text string) {
	e.Do("POST", "/orgs/c/chats/"+v.chatID+"/messages", e.AdminKey, map[string]any{"role": "admin",
		"messages": []map[string]any{{"role": "admin", "parts": []map[string]any{{"type": "text", "text": text}}}}}).Expect(201)
}

// live fails the test unless a member's reply still reaches the visitor's open stream.
func (v *visitorStream) live(t *testing.T, e *apitest.Env, what string) {
	t.Helper()
	v.reply(e, "still there?")
	if ev := nextOf(v.s, "message.created"); ev.Map(t)["text"] != "still there?" {
		t.Fatalf("%s: the stream carried %v", what, ev.Map(t))
	}
}

// TestVisitorStreamEndsWithItsWidgetOrSession: a deleted integration refuses inbound
// (DESIGN.md, "Channels"), so its visitors' open streams end within a second of the DELETE's
// answer, and a new session or stream is refused 404; the same for a deleted assistant, and a
// deleted contact's session (401 after). A disabled integration still takes messages: its
// streams stay open and carry replies. Streams of other widgets go on throughout.
func TestVisitorStreamEndsWithItsWidgetOrSession(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.NoRuns)
	asst := newAssistant(t, e, e.AdminKey, map[string]any{"name": "Aria"})
	widget := func() string {
		var d map[string]any
		e.Do("POST", asiPath(asst), e.AdminKey, map[string]any{"integration_id": "internal", "name": "Site"}).Expect(201).JSON(&d)
		return d["id"].(string)
	}
	bystander := openVisitor(t, e, widget())

	// Disabled: the stream stays and carries a member's reply.
	disabled := widget()
	v := openVisitor(t, e, disabled)
	e.Do("PATCH", asiPath(asst, "/", disabled), e.AdminKey, map[string]any{"enabled": false}).Expect(200)
	v.live(t, e, "disabled integration")

	// Deleted: the stream ends, a new session and a new stream are 404.
	deleted := widget()
	v = openVisitor(t, e, deleted)
	e.Do("DELETE", asiPath(asst, "/", deleted), e.AdminKey, nil).Expect(204)
	if !v.s.Ended(revokeWithin) {
		t.Errorf("integration deleted: the visitor's stream still open after %s", revokeWithin)
	}
	e.Do("POST", "/widget/"+deleted+"/api/session", "", map[string]any{}).Expect(404)
	e.Do("GET", "/widget/"+deleted+"/api/stream?token="+v.token+"&chat_id="+v.chatID, "", nil).Expect(404)
	bystander.live(t, e, "after another widget was deleted")

	// The visitor's contact deleted: its session goes with it (401 after).
	gone := widget()
	v = openVisitor(t, e, gone)
	var sess map[string]any
	req := e.Request("GET", "/widget/"+gone+"/api/session", "", nil)
	req.Header.Set("X-Session-Token", v.token)
	e.Send(req).Expect(200).JSON(&sess)
	e.Do("DELETE", "/orgs/c/contacts/"+sess["session"].(map[string]any)["contact_id"].(string), e.AdminKey, nil).Expect(204)
	if !v.s.Ended(revokeWithin) {
		t.Errorf("contact deleted: the visitor's stream still open after %s", revokeWithin)
	}
	e.Do("GET", "/widget/"+gone+"/api/stream?token="+v.token, "", nil).Expect(401)

	// The assistant deleted: every widget of it refuses inbound.
	other := newAssistant(t, e, e.AdminKey, map[string]any{"name": "Other"})
	var d map[string]any
	e.Do("POST", asiPath(other), e.AdminKey, map[string]any{"integration_id": "internal", "name": "Site"}).Expect(201).JSON(&d)
	v = openVisitor(t, e, d["id"].(string))
	e.Do("DELETE", "/orgs/c/assistants/"+other, e.AdminKey, nil).Expect(204)
	if !v.s.Ended(revokeWithin) {
		t.Errorf("assistant deleted: the visitor's stream still open after %s", revokeWithin)
	}
	e.Do("POST", "/widget/"+d["id"].(string)+"/api/session", "", map[string]any{}).Expect(404)
	bystander.live(t, e, "after the others ended")
}
