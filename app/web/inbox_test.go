package web_test

import (
	"strings"
	"testing"

	"wsapi/app/apitest"
)

// The list's views and filters are the API's inbox filters; the waiting view holds the chats
// AI off, unassigned and open, and its count is what the tab's title shows.
func TestListViewsAndFilters(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	waiting := conversation(t, e, "Ivy Waiting")
	e.Do("PATCH", "/orgs/c/chats/"+waiting.ID, e.AdminKey, map[string]any{"ai_enabled": false}).Expect(200)
	unread := conversation(t, e, "Jon Unread")
	contactSays(t, e, unread.ID, "anyone about the invoice?")
	mine := conversation(t, e, "Kim Mine")
	e.Do("PATCH", "/orgs/c/chats/"+mine.ID, e.AdminKey, map[string]any{"assigned_user_id": e.Owner.ID}).Expect(200)
	closed := conversation(t, e, "Lou Closed")
	e.Do("PATCH", "/orgs/c/chats/"+closed.ID, e.AdminKey, map[string]any{"state": "CLOSED"}).Expect(200)
	b := signedIn(t, e, e.Owner)

	rows := func(query string) string {
		t.Helper()
		a := b.get("/app/"+query, "HX-Request", "true", "HX-Target", "list-pane").expect(t, 200)
		if strings.Contains(a.Body, "<html") {
			t.Fatal("the list request answered a whole page")
		}
		return a.Body
	}
	cases := []struct {
		query   string
		want    []string
		notWant []string
	}{
		// A chat with no assistant has the AI off: it waits for a human too.
		{"?view=WAITING", []string{waiting.ID, unread.ID}, []string{mine.ID, closed.ID}},
		{"?view=UNREAD", []string{unread.ID}, []string{waiting.ID, mine.ID}},
		{"?view=ASSIGNED_TO_ME", []string{mine.ID}, []string{waiting.ID, unread.ID}},
		{"?view=UNASSIGNED", []string{waiting.ID, unread.ID}, []string{mine.ID}},
		{"?view=RESOLVED", []string{closed.ID}, []string{waiting.ID, mine.ID}},
		{"?view=UNRESOLVED", []string{waiting.ID, unread.ID, mine.ID}, []string{closed.ID}},
		{"?view=ALL&q=invoice", []string{unread.ID}, []string{waiting.ID, mine.ID, closed.ID}},
		{"?ai=ENABLED", nil, []string{waiting.ID, unread.ID}},
		{"?state=CLOSED", []string{closed.ID}, []string{waiting.ID}},
		{"?channel=email", []string{waiting.ID, closed.ID}, nil},
		{"?channel=telegram", nil, []string{waiting.ID, unread.ID, mine.ID, closed.ID}},
	}
	for _, c := range cases {
		body := rows(c.query)
		for _, id := range c.want {
			if !strings.Contains(body, `id="row-`+id+`"`) {
				t.Errorf("%s: %s missing", c.query, id)
			}
		}
		for _, id := range c.notWant {
			if strings.Contains(body, `id="row-`+id+`"`) {
				t.Errorf("%s: %s listed", c.query, id)
			}
		}
	}
	if body := rows(""); !strings.Contains(body, `data-waiting="2"`) || !strings.Contains(body, `aria-label="1 unread"`) {
		t.Fatalf("waiting count or unread badge missing:\n%.2000s", body)
	}
	// A bad filter value says which and what is allowed.
	a := b.get("/app/?state=MAYBE", "HX-Request", "true", "HX-Target", "list-pane").expect(t, 400)
	if !strings.Contains(a.Body, "state must be one of") {
		t.Fatalf("bad filter: %s", a.Body)
	}
}
