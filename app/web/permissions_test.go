package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"wsapi/app/apitest"
)

// Each area of the web app is enforced on the server: a page or an action the role does not
// allow answers 403 (and the page does not offer it), whatever the browser sends.

func TestPermissionInboxRead(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	c := conversation(t, e, "Cy Nobody")
	b := signedIn(t, e, roleMember(t, e, "contacts:read"))
	b.get("/app/").expect(t, http.StatusForbidden)
	b.get("/app/chats/"+c.ID, "HX-Request", "true").expect(t, http.StatusForbidden)
	b.get("/app/chats/"+c.ID+"/header", "HX-Request", "true").expect(t, http.StatusForbidden)
	b.get("/app/events").expect(t, http.StatusForbidden)
	if a := b.get("/app/chats/"+c.ID+"/contact", "HX-Request", "true").expect(t, 200); !strings.Contains(a.Body, "Cy Nobody") {
		t.Fatalf("contact pane: %.300s", a.Body)
	}
}

func TestPermissionInboxWrite(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	c := conversation(t, e, "Dee Reader")
	contactSays(t, e, c.ID, "hello?")
	b := signedIn(t, e, roleMember(t, e, "inbox:read", "contacts:write"))
	page := b.get("/app/?chat="+c.ID).expect(t, 200)
	for _, absent := range []string{`id="composer"`, `id="takeover"`, `id="resolve"`, `/read"`} {
		if strings.Contains(page.Body, absent) {
			t.Fatalf("a role without inbox:write is offered %s", absent)
		}
	}
	if !strings.Contains(page.Body, `id="readonly-note"`) {
		t.Fatal("no read-only note")
	}
	for _, action := range []string{"reply", "read", "takeover", "handback", "assign", "snooze", "resolve", "reopen"} {
		a := b.htmx("POST", "/app/chats/"+c.ID+"/"+action, url.Values{"text": {"forged"}})
		if a.Status != http.StatusForbidden || !strings.Contains(a.Body, "inbox:write") {
			t.Fatalf("%s: %d %s", action, a.Status, a.Body)
		}
	}
	if got := chatState(t, e, c.ID); got.State.State != "OPEN" || got.State.AdminUnseenCount != 1 || got.AssignedUserID != "" {
		t.Fatalf("a refused action changed the chat: %+v", got.State)
	}
	// The note is the contacts area, which this role may write.
	b.htmx("POST", "/app/chats/"+c.ID+"/note", url.Values{"text": {"Called back on Monday"}}).expect(t, 200)
}

func TestPermissionContacts(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	c := conversation(t, e, "Eve Hidden")
	b := signedIn(t, e, roleMember(t, e, "inbox:write"))
	page := b.get("/app/?chat="+c.ID).expect(t, 200)
	if strings.Contains(page.Body, `class="contact"`) || strings.Contains(page.Body, `value="note"`) {
		t.Fatal("a role without contacts:read sees the contact pane or the note box")
	}
	b.get("/app/chats/"+c.ID+"/contact", "HX-Request", "true").expect(t, http.StatusForbidden)
	a := b.htmx("POST", "/app/chats/"+c.ID+"/note", url.Values{"text": {"secret"}}).expect(t, http.StatusForbidden)
	if !strings.Contains(a.Body, "contacts:write") {
		t.Fatalf("refusal does not name the permission: %s", a.Body)
	}
	// inbox:write still answers the contact.
	b.htmx("POST", "/app/chats/"+c.ID+"/reply", url.Values{"text": {"On it."}}).expect(t, 200)
}

func TestPermissionMembers(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	none := signedIn(t, e, roleMember(t, e, "inbox:read"))
	none.get("/app/members").expect(t, http.StatusForbidden)
	if strings.Contains(none.get("/app/").Body, `href="/app/members"`) {
		t.Fatal("the members link shows without members:read")
	}
	reader := signedIn(t, e, roleMember(t, e, "inbox:read", "members:read"))
	page := reader.get("/app/members").expect(t, 200)
	if strings.Contains(page.Body, `id="invite-submit"`) {
		t.Fatal("invite form shown without members:write")
	}
	reader.do("POST", "/app/members", url.Values{"csrf": {reader.csrf}, "name": {"X"}, "email": {"x@example.com"}}).expect(t, http.StatusForbidden)
	reader.do("POST", "/app/members/"+e.Owner.ID+"/link", url.Values{"csrf": {reader.csrf}}).expect(t, http.StatusForbidden)
	var list []map[string]any
	e.Do("GET", "/orgs/c/members", e.AdminKey, nil).Expect(200).JSON(&list)
	for _, m := range list {
		if m["email"] == "x@example.com" {
			t.Fatal("a refused invite created the member")
		}
	}
}

// An admin invites a member: the one-time link is shown once and lets them in; a role the
// admin's own permissions do not cover cannot be granted (the API's rule, not a copy).
func TestInviteLink(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	admin := signedIn(t, e, e.Owner)
	admin.get("/app/members").expect(t, 200)
	a := admin.do("POST", "/app/members", url.Values{"csrf": {admin.csrf}, "name": {"Fay Newcomer"}, "email": {"fay@example.com"}, "role": {"MEMBER"}}).expect(t, 200)
	i := strings.Index(a.Body, "/app/setup?token=")
	if i < 0 {
		t.Fatalf("no link shown: %.500s", a.Body)
	}
	token := a.Body[i+len("/app/setup?token=") : i+len("/app/setup?token=")+46]
	if strings.Contains(admin.get("/app/members").Body, token) {
		t.Fatal("the link is shown again")
	}
	fay := newTab(t, e)
	fay.get("/app/setup?token="+token).expect(t, 200)
	fay.do("POST", "/app/setup", url.Values{"token": {token}, "password": {testPassword}, "password_again": {testPassword}}).expect(t, http.StatusSeeOther)
	fay.get("/app/").expect(t, 200)
	// A bad invite names the field and what to do.
	a = admin.do("POST", "/app/members", url.Values{"csrf": {admin.csrf}, "name": {"No Mail"}, "email": {"not an address"}}).expect(t, 400)
	if !strings.Contains(a.Body, `id="inv-email-error">must be an email address`) || !strings.Contains(a.Body, `value="No Mail"`) {
		t.Fatalf("bad invite: %.800s", a.Body)
	}
	// Members:write without ADMIN's permissions cannot invite an ADMIN.
	hr := signedIn(t, e, roleMember(t, e, "members:write", "inbox:read"))
	hr.do("POST", "/app/members", url.Values{"csrf": {hr.csrf}, "name": {"Boss"}, "email": {"boss@example.com"}, "role": {"ADMIN"}}).expect(t, 403)
}
