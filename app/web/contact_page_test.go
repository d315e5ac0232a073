package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"wsapi/app/apitest"
)

// TestContactPageCreatesEditsAndDeletes: a member with contacts:write adds a contact from
// the list (name and email), is taken to its page, renames and blocks it, adds a WhatsApp
// number, and deletes it; each step is the API's, as the API then reads it. Bad input names
// its field and changes nothing.
func TestContactPageCreatesEditsAndDeletes(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	b := signedIn(t, e, e.Owner)
	b.get("/app/contacts").expect(t, 200)
	bad := b.do("POST", "/app/contacts", url.Values{"csrf": {b.csrf}, "name": {"Ann Bad"}, "email": {"not an address"}}).expect(t, 400)
	if !strings.Contains(bad.Body, `id="new-contact-email-error">must be an email address`) || !strings.Contains(bad.Body, `value="Ann Bad"`) ||
		len(e.Do("GET", "/orgs/c/contacts", e.AdminKey, nil).Expect(200).List()) != 0 {
		t.Fatalf("a bad new contact: %.600s", bad.Body)
	}
	made := b.do("POST", "/app/contacts", url.Values{"csrf": {b.csrf}, "name": {"Ann Lee"}, "email": {"ann@example.com"}}).expect(t, http.StatusSeeOther)
	page := made.Header.Get("Location")
	id := strings.TrimPrefix(page, "/app/contact/")
	if !strings.HasPrefix(page, "/app/contact/ct_") {
		t.Fatalf("after adding: %q", page)
	}
	if p := b.get(page).expect(t, 200); !strings.Contains(p.Body, `<h1 id="contact-name">Ann Lee</h1>`) || !strings.Contains(p.Body, "ann@example.com") {
		t.Fatalf("the contact's page: %.800s", p.Body)
	}
	if b.get("/app/contacts").expect(t, 200); !strings.Contains(b.get("/app/contacts").Body, `<a href="/app/contact/`+id+`">Ann Lee</a>`) {
		t.Fatal("the list does not link the contact's page")
	}

	b.do("POST", page, url.Values{"csrf": {b.csrf}, "name": {"Ann Lee-Park"}, "blocked": {"on"}}).expect(t, http.StatusSeeOther)
	b.do("POST", page+"/channels", url.Values{"csrf": {b.csrf}, "phone": {"+49 151 2345 678"}}).expect(t, http.StatusSeeOther)
	badPhone := b.do("POST", page+"/channels", url.Values{"csrf": {b.csrf}, "phone": {"12"}}).expect(t, 400)
	if !strings.Contains(badPhone.Body, `id="contact-channel-phone-error">must be 5 to 20 digits`) {
		t.Fatalf("a bad phone: %.800s", badPhone.Body)
	}
	var c struct {
		Name     string
		Blocked  bool
		Channels []struct{ Type, Email, Phone string }
	}
	e.Do("GET", "/orgs/c/contacts/"+id, e.AdminKey, nil).Expect(200).JSON(&c)
	if c.Name != "Ann Lee-Park" || !c.Blocked || len(c.Channels) != 2 || c.Channels[0].Email != "ann@example.com" ||
		c.Channels[1].Type != "whatsapp" || c.Channels[1].Phone == "" {
		t.Fatalf("the contact through the API: %+v", c)
	}
	b.do("POST", page+"/delete", url.Values{"csrf": {b.csrf}}).expect(t, http.StatusSeeOther)
	e.Do("GET", "/orgs/c/contacts/"+id, e.AdminKey, nil).Expect(404)
	b.get(page).expect(t, http.StatusNotFound)
}

// TestContactPageRules: a read-only member sees a contact's page without its forms and may
// change nothing; another organization's contact is not found, to read or to change.
func TestContactPageRules(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	var mine, theirs struct{ ID string }
	e.Do("POST", "/orgs/c/contacts", e.AdminKey, map[string]any{"name": "Mine"}).Expect(201).JSON(&mine)
	o, key := e.OrgWithAdmin("Other")
	e.Do("POST", "/orgs/"+o.ID+"/contacts", key, map[string]any{"name": "Theirs"}).Expect(201).JSON(&theirs)

	reader := signedIn(t, e, roleMember(t, e, "contacts:read"))
	if p := reader.get("/app/contact/"+mine.ID).expect(t, 200); strings.Contains(p.Body, `id="contact-edit"`) || strings.Contains(p.Body, `id="contact-delete"`) {
		t.Fatalf("a reader sees the forms: %.600s", p.Body)
	}
	reader.do("POST", "/app/contacts", url.Values{"csrf": {reader.csrf}, "name": {"Nope"}}).expect(t, http.StatusForbidden)
	reader.do("POST", "/app/contact/"+mine.ID, url.Values{"csrf": {reader.csrf}, "name": {"Nope"}}).expect(t, http.StatusForbidden)
	reader.do("POST", "/app/contact/"+mine.ID+"/delete", url.Values{"csrf": {reader.csrf}}).expect(t, http.StatusForbidden)

	admin := signedIn(t, e, e.Owner)
	admin.get("/app/contact/"+theirs.ID).expect(t, http.StatusNotFound)
	admin.do("POST", "/app/contact/"+theirs.ID, url.Values{"csrf": {admin.csrf}, "name": {"Mine now"}}).expect(t, http.StatusNotFound)
	admin.do("POST", "/app/contact/"+theirs.ID+"/channels", url.Values{"csrf": {admin.csrf}, "email": {"x@example.com"}}).expect(t, http.StatusNotFound)
	admin.do("POST", "/app/contact/"+theirs.ID+"/delete", url.Values{"csrf": {admin.csrf}}).expect(t, http.StatusNotFound)
	var got struct{ Name string }
	e.Do("GET", "/orgs/"+o.ID+"/contacts/"+theirs.ID, key, nil).Expect(200).JSON(&got)
	if got.Name != "Theirs" {
		t.Fatalf("the other organization's contact became %q", got.Name)
	}
}
