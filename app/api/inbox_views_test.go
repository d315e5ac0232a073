package api_test

import (
	"context"
	"net/url"
	"strconv"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/sqlite"
)

// Search views (sqlite/inboxview.go) are patched after a write from the log of changed chats
// (migration 00022) instead of read again. Each step here caches every view (asks twice),
// makes one kind of write through the API, and then asks each view again: its page and
// pagination-count must equal a fresh read through a second handle on the same file that
// has no cache at all. Steps whose write touches one chat must have been patched, not read
// whole (the counters of InboxViewStats), so that the battery tests the patching.

// ivFresh answers the inbox query as a service without any cache reads it from the file.
type ivFresh struct {
	svc      *app.Service
	orgID    string
	memberID string
}

func newIVFresh(t *testing.T, e *apitest.Env) ivFresh {
	t.Helper()
	db, err := sqlite.Open(e.Runtime.Config.DB.Path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return ivFresh{svc: app.NewService(app.Deps{Store: db, Clock: e.Clock}), orgID: e.Org.ID, memberID: e.Owner.ID}
}

// page reads query (with take and page, or next) uncached: the ids and the count.
func (r ivFresh) page(t *testing.T, query string) ([]string, int, string) {
	t.Helper()
	v, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	f, err := app.ParseInboxFilter(v.Get, r.memberID)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	take, _ := strconv.Atoi(v.Get("take"))
	pageNo, _ := strconv.Atoi(v.Get("page"))
	l, err := r.svc.Inbox(context.Background(), r.orgID, f, v.Get("next"), app.Page{Page: max(pageNo, 1), Take: take})
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	ids := []string{}
	for _, c := range l.Items {
		ids = append(ids, c.ID)
	}
	return ids, l.Total, l.Next
}

func TestInboxSearchViewsPatched(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	fresh := newIVFresh(t, e)
	k := e.AdminKey
	agent := e.Member(k, "c", "Agent Smith", "MEMBER")
	var chats []string
	var evePhone string // digits: the search that finds a chat by its channel's phone
	for i, name := range []string{"Ann", "Ben", "Cleo", "Dan", "Eve", "Finn"} {
		chat := chConversation(e, k, "c", name)
		id := chat["id"].(string)
		chats = append(chats, id)
		if name == "Eve" {
			evePhone = app.PhoneDigits(icContactOf(t, chat)["phone"].(string))
		}
		text := "nothing here"
		if i%2 == 0 {
			text = "a zebra crossing"
		}
		chMsg(e, k, "c", id, "user", text)
		icStep(e)
	}
	chPatch(e, k, "c", chats[1], map[string]any{"state": "CLOSED", "csat_score": 2})
	icStep(e)
	chPatch(e, k, "c", chats[2], map[string]any{"assigned_user_id": e.Owner.ID, "ai_enabled": false})
	icStep(e)
	// A cursor after the first chat of the search, taken once: asked again after every write.
	_, _, next := fresh.page(t, "search=zebra&take=1")
	if next == "" {
		t.Fatal("no cursor after the first match")
	}
	views := []string{"search=zebra", "search=zeb", "search=zebra&state=OPEN", "search=zebra&state=CLOSED",
		"search=zebra&filter=UNASSIGNED", "search=zebra&filter=UNREAD", "search=zebra&filter=RESOLVED",
		"search=zebra&filter=ASSIGNED_TO_ME", "search=zebra&csat_max=3", "search=zebra&ai_status=ENABLED",
		"search=zebra&ai_status=DISABLED", "search=cleo", "search=ann", "search=zoltan", "search=crossing&filter=UNRESOLVED",
		"search=" + evePhone, "search=" + evePhone + "&filter=UNRESOLVED",
		"search=zebra&take=2&page=2", "search=zebra&take=1&page=3", "search=zebra&take=2&next=" + url.QueryEscape(next)}
	check := func(step string, wantPatched bool) {
		t.Helper()
		patched0, whole0 := e.Runtime.DB.InboxViewStats()
		for _, q := range views {
			if _, err := url.ParseQuery(q); err != nil {
				t.Fatal(err)
			}
			query := q
			if !containsParam(q, "take") {
				query += "&take=100"
			}
			got := icGet(e, query)
			wantIDs, wantCount, _ := fresh.page(t, query)
			chSameList(t, step+": "+query, got.ids(), wantIDs)
			if got.count != wantCount {
				t.Errorf("%s: %s: pagination-count %d, want %d", step, query, got.count, wantCount)
			}
		}
		patched, whole := e.Runtime.DB.InboxViewStats()
		if wantPatched && patched == patched0 {
			t.Errorf("%s: no view was patched", step)
		}
		if !wantPatched && (whole == whole0 || patched != patched0) {
			t.Errorf("%s: %d views patched, %d read whole: want every one read whole", step, patched-patched0, whole-whole0)
		}
	}
	prime := func() {
		for _, q := range views {
			if !containsParam(q, "take") {
				q += "&take=100"
			}
			icPrime(e, q)
		}
	}
	steps := []struct {
		name    string
		patched bool // one chat changed: views are patched, not read whole
		write   func()
	}{
		{"new message with the word", true, func() { chMsg(e, k, "c", chats[1], "user", "zebra again") }},
		{"new message without the word", true, func() { chMsg(e, k, "c", chats[0], "admin", "hello") }},
		{"message edited to drop the word", true, func() {
			id := chMsg(e, k, "c", chats[3], "user", "zebras are here")["id"].(string)
			prime()
			icStep(e)
			e.Do("PATCH", "/orgs/c/chats/"+chats[3]+"/messages/"+id, k, map[string]any{"messages": chText("user", "horses")}).Expect(200)
		}},
		{"state closed", true, func() { chPatch(e, k, "c", chats[4], map[string]any{"state": "CLOSED"}) }},
		{"state reopened", true, func() { chPatch(e, k, "c", chats[1], map[string]any{"state": "OPEN"}) }},
		{"assigned to another member", true, func() { chPatch(e, k, "c", chats[0], map[string]any{"assigned_user_id": agent.ID}) }},
		{"assigned to me", true, func() { chPatch(e, k, "c", chats[4], map[string]any{"assigned_user_id": e.Owner.ID}) }},
		{"unassigned", true, func() { chPatch(e, k, "c", chats[2], map[string]any{"assigned_user_id": nil}) }},
		{"read", true, func() { e.Do("POST", "/orgs/c/chats/"+chats[0]+"/read", k, nil).Expect(200) }},
		{"unread again", true, func() { chMsg(e, k, "c", chats[0], "user", "are you there") }},
		{"csat scored", true, func() { chPatch(e, k, "c", chats[0], map[string]any{"csat_score": 1}) }},
		{"csat cleared", true, func() { chPatch(e, k, "c", chats[1], map[string]any{"csat_score": nil}) }},
		{"ai_status on", true, func() { chPatch(e, k, "c", chats[2], map[string]any{"ai_enabled": true}) }},
		{"title with the word", true, func() { chPatch(e, k, "c", chats[5], map[string]any{"title": "Zebra order"}) }},
		{"title without it", true, func() { chPatch(e, k, "c", chats[5], map[string]any{"title": "Horse order"}) }},
		{"new chat", true, func() {
			id := chChat(e, k, "c", map[string]any{"title": "zebra from a new chat"})["id"].(string)
			chats = append(chats, id)
		}},
		{"contact renamed", false, func() { // a contact touches no chat row: read whole (a gap)
			contact := chObj(icContactOf(t, icGet(e, "search=ann&take=100").chat(t, chats[0])), "contact")["id"].(string)
			e.Do("PATCH", "/orgs/c/contacts/"+contact, k, map[string]any{"name": "Zoltan"}).Expect(200)
		}},
		{"chat deleted", false, func() { e.Do("DELETE", "/orgs/c/chats/"+chats[2], k, nil).Expect(204) }},
		{"after a whole read, patched again", true, func() { chMsg(e, k, "c", chats[3], "user", "zebra at last") }},
	}
	for _, s := range steps {
		prime()
		icStep(e)
		s.write()
		check(s.name, s.patched)
	}
}

// containsParam reports whether the query has the parameter.
func containsParam(query, name string) bool {
	v, _ := url.ParseQuery(query)
	return v.Has(name)
}
