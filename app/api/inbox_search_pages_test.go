package api_test

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

// TestInboxSearchPagesAndCursor: a search walked by cursor or by page number answers exactly
// the matching chats, in inbox order, with the same pagination-count on every page; with
// another filter too; chats sharing a millisecond included.
func TestInboxSearchPagesAndCursor(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	match := map[string]bool{}
	closed := map[string]bool{}
	for i := range 90 {
		if i%4 != 0 {
			e.Clock.Advance(time.Millisecond) // every fourth shares its millisecond
		}
		in := app.ChatInput{}
		if i%3 == 0 {
			title := fmt.Sprint("Walrus order ", i)
			in.Title = &title
		}
		id := chCreate(t, e, in).ID
		if i%3 == 0 {
			match[id] = true
		}
		if i%5 == 1 { // found by a message's text instead
			chMsg(e, e.AdminKey, "c", id, "user", "where is my walrus")
			match[id] = true
		}
		if i%2 == 0 {
			chPatch(e, e.AdminKey, "c", id, map[string]any{"state": "CLOSED"})
			closed[id] = true
		}
	}
	all, _ := ibxWalk(t, e, "take=100", nil)
	if len(all) != 90 {
		t.Fatalf("%d chats in the inbox, want 90", len(all))
	}
	cases := []struct {
		query string
		keep  func(id string) bool
	}{
		{chQ("search", "walrus"), func(id string) bool { return match[id] }},
		{chQ("search", "walr", "state", "CLOSED"), func(id string) bool { return match[id] && closed[id] }},
		{chQ("search", "walrus", "filter", "UNRESOLVED"), func(id string) bool { return match[id] && !closed[id] }},
		{chQ("search", "nothing-matches"), func(string) bool { return false }},
	}
	for _, c := range cases {
		want := slices.DeleteFunc(slices.Clone(all), func(id string) bool { return !c.keep(id) })
		got, _ := ibxWalk(t, e, c.query+"&take=7", func(int) {})
		chSameList(t, c.query+" by cursor", got, want)
		var paged []string
		for p := 1; p <= len(want)/7+1; p++ {
			path := "/orgs/c/inbox?" + c.query + "&take=7&page=" + strconv.Itoa(p)
			if n := e.Count(e.AdminKey, path); n != len(want) {
				t.Errorf("%s: pagination-count %d, want %d", path, n, len(want))
			}
			paged = append(paged, chInbox(e, e.AdminKey, c.query+"&take=7&page="+strconv.Itoa(p))...)
		}
		chSameList(t, c.query+" by page", paged, want)
	}
	// The count stays the list's on pages reached by cursor.
	res := e.Do("GET", "/orgs/c/inbox?search=walrus&take=7", e.AdminKey, nil).Expect(200)
	second := e.Do("GET", "/orgs/c/inbox?search=walrus&take=7&next="+res.Header.Get("pagination-next"), e.AdminKey, nil).Expect(200)
	if a, b := res.Header.Get("pagination-count"), second.Header.Get("pagination-count"); a != b || a != strconv.Itoa(len(match)) {
		t.Errorf("pagination-count %s on the first page, %s on the second, want %d", a, b, len(match))
	}
}
