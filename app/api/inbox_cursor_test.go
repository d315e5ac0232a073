package api_test

import (
	"fmt"
	"net/url"
	"sort"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

// ibxWalk follows pagination-next from the first page to the end; between answers it calls
// between with the page number.
func ibxWalk(t *testing.T, e *apitest.Env, query string, between func(page int)) (ids []string, pages int) {
	t.Helper()
	next := ""
	for {
		q := query
		if next != "" {
			q += "&next=" + url.QueryEscape(next)
		}
		res := e.Do("GET", "/orgs/c/inbox?"+q, e.AdminKey, nil).Expect(200)
		for _, c := range res.List() {
			ids = append(ids, c["id"].(string))
		}
		pages++
		if next = res.Header.Get("pagination-next"); next == "" {
			return ids, pages
		}
		if pages > 1000 {
			t.Fatalf("the walk does not end")
		}
		if between != nil {
			between(pages)
		}
	}
}

// ibxCheckWalk fails unless walked holds every id of want exactly once, in want's order
// (other ids may be mixed in).
func ibxCheckWalk(t *testing.T, walked, want []string) {
	t.Helper()
	inWant := map[string]bool{}
	for _, id := range want {
		inWant[id] = true
	}
	seen := map[string]int{}
	var order []string
	for _, id := range walked {
		seen[id]++
		if seen[id] == 2 {
			t.Errorf("%s answered twice", id)
		}
		if inWant[id] && seen[id] == 1 {
			order = append(order, id)
		}
	}
	missing := 0
	for _, id := range want {
		if seen[id] == 0 {
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d chats never answered", missing, len(want))
	}
	if missing == 0 {
		chSameList(t, "walk order", order, want)
	}
}

// TestInboxCursorWalkWhileChatsArrive walks 1,000 chats 100 at a time while new chats are
// created between pages: every original chat once, in order.
func TestInboxCursorWalkWhileChatsArrive(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	ct := chContact(e, e.AdminKey, "c", "Walker", map[string]any{"type": "email", "email": "walker@example.com"})
	var created []app.Chat
	for i := range 1000 {
		e.Clock.Advance(time.Millisecond)
		in := app.ChatInput{}
		if i%2 == 0 {
			in.ContactID = ct["id"].(string)
		}
		if i%7 == 0 { // some share their millisecond with the next one
			e.Clock.Advance(-time.Millisecond)
		}
		created = append(created, chCreate(t, e, in))
	}
	want := ibxOrder(created)

	var arrived []app.Chat
	walked, pages := ibxWalk(t, e, "take=100", func(page int) {
		for range 7 { // newer than everything: they sort before the cursor
			e.Clock.Advance(time.Millisecond)
			arrived = append(arrived, chCreate(t, e, app.ChatInput{}))
		}
	})
	ibxCheckWalk(t, walked, want)
	if pages != 10 {
		t.Errorf("%d pages, want 10 (the new chats sort before the cursor)", pages)
	}
	for _, c := range arrived {
		for _, id := range walked {
			if id == c.ID {
				t.Errorf("chat %s created after the walk began was answered", c.ID)
			}
		}
	}
	// A fresh walk sees them all, with a smaller page size.
	all, _ := ibxWalk(t, e, "take=73", nil)
	ibxCheckWalk(t, all, ibxOrder(append(created, arrived...)))
	if n := e.Count(e.AdminKey, "/orgs/c/inbox?take=1"); n != len(created)+len(arrived) {
		t.Errorf("pagination-count %d, want %d", n, len(created)+len(arrived))
	}

	// With filters the cursor walks the filtered list.
	var mine []app.Chat
	for _, c := range created {
		if c.ContactID != "" {
			mine = append(mine, c)
		}
	}
	got, _ := ibxWalk(t, e, chQ("take", "100", "integration_id", "email"), nil)
	ibxCheckWalk(t, got, ibxOrder(mine))
	if len(got) != 500 {
		t.Errorf("email chats walked %d, want 500", len(got))
	}
}

// TestInboxCursorEqualTimestamps walks chats that all share one updated_at: the id orders
// them and the cursor keeps its place.
func TestInboxCursorEqualTimestamps(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	var created []app.Chat
	for range 250 {
		created = append(created, chCreate(t, e, app.ChatInput{}))
	}
	want := ibxOrder(created)
	got, pages := ibxWalk(t, e, "take=100", nil)
	ibxCheckWalk(t, got, want)
	if len(got) != 250 || pages != 3 {
		t.Errorf("%d chats in %d pages", len(got), pages)
	}
	// New chats at the very same moment land before or after the cursor by their id; the
	// original ones are still each answered once.
	got, _ = ibxWalk(t, e, "take=30", func(int) {
		for range 3 {
			chCreate(t, e, app.ChatInput{})
		}
	})
	ibxCheckWalk(t, got, want)
	// Page numbers agree with the cursor order.
	all, _ := ibxWalk(t, e, "take=100", nil)
	var paged []string
	for p := 1; len(paged) < len(all) && p < 10; p++ {
		paged = append(paged, chInbox(e, e.AdminKey, chQ("take", "100", "page", fmt.Sprint(p)))...)
	}
	chSameList(t, "page numbers", paged, all)
	e.Do("GET", "/orgs/c/inbox?next=eyJ1IjoxfQ", e.AdminKey, nil).ExpectError(400, "invalid_argument", "next")
}

// ibxOrder sorts chats as the inbox does: updated_at desc, then id desc.
func ibxOrder(chats []app.Chat) []string {
	cs := append([]app.Chat(nil), chats...)
	sort.Slice(cs, func(i, j int) bool {
		a, b := cs[i].UpdatedAt.String(), cs[j].UpdatedAt.String()
		if a != b {
			return a > b
		}
		return cs[i].ID > cs[j].ID
	})
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	return ids
}
