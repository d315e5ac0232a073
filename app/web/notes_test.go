package web_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"wsapi/app/apitest"
)

// A private note shows in the conversation among the messages of its time (members only:
// the contact's channel never gets it), and in the contact pane.
func TestPrivateNotesInTheTimeline(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	c := conversation(t, e, "Nia Notes")
	contactSays(t, e, c.ID, "first question")
	e.Clock.Advance(time.Second)
	b := signedIn(t, e, e.Owner)
	a := b.htmx("POST", "/app/chats/"+c.ID+"/note", url.Values{"text": {"VIP customer, be quick"}}).expect(t, 200)
	if !strings.Contains(a.Body, "role-note") || !strings.Contains(a.Body, `hx-swap-oob="afterbegin:#contact-notes"`) {
		t.Fatalf("note answer: %s", a.Body)
	}
	e.Clock.Advance(time.Second)
	contactSays(t, e, c.ID, "second question")
	page := b.get("/app/?chat="+c.ID).expect(t, 200).Body
	page = page[strings.Index(page, `id="messages"`):] // the conversation, not the list's preview
	first, note, second := strings.Index(page, "first question"), strings.Index(page, "VIP customer, be quick"), strings.Index(page, "second question")
	if first < 0 || note < first || second < note {
		t.Fatalf("timeline order: first %d, note %d, second %d", first, note, second)
	}
	var ms []map[string]any
	e.Do("GET", "/orgs/c/chats/"+c.ID+"/messages", e.AdminKey, nil).Expect(200).JSON(&ms)
	if len(ms) != 2 {
		t.Fatalf("the note became a message: %d messages", len(ms))
	}
	// An empty note is refused with what to do.
	a = b.htmx("POST", "/app/chats/"+c.ID+"/note", url.Values{"text": {"   "}}).expect(t, 400)
	if !strings.Contains(a.Body, "Please fix: content") {
		t.Fatalf("empty note: %s", a.Body)
	}
	a = b.htmx("POST", "/app/chats/"+c.ID+"/reply", url.Values{"text": {""}}).expect(t, 400)
	if !strings.Contains(a.Body, "write a reply first") {
		t.Fatalf("empty reply: %s", a.Body)
	}
}
