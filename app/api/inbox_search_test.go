package api_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"wsapi/app/apitest"
)

// TestInboxSearch matches message text, title, contact name and channel email, phone and
// username; words are prefixes, case and accents do not matter, and FTS syntax is literal.
func TestInboxSearch(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	k := e.AdminKey
	alice := chContact(e, k, "c", "Alice Martin", map[string]any{"type": "email", "email": "alice@example.com"})
	bob := chContact(e, k, "c", "Bob Stone", map[string]any{"type": "whatsapp", "phone": "+33 6 12 34 56 78"})
	carol := chContact(e, k, "c", "Carol Dupré", map[string]any{"type": "telegram", "username": "carol_t"})
	step := func() { e.Clock.Advance(time.Second) }

	step()
	c1 := chChat(e, k, "c", map[string]any{"contact_id": alice["id"], "title": "Billing issue"})["id"].(string)
	chMsg(e, k, "c", c1, "user", "My invoice is wrong (NEAR the total)")
	step()
	c2 := chChat(e, k, "c", map[string]any{"contact_id": bob["id"]})["id"].(string)
	chMsg(e, k, "c", c2, "admin", "shipping update: \"express\" * delivery")
	step()
	c3 := chChat(e, k, "c", map[string]any{"contact_id": carol["id"], "title": "Café order"})["id"].(string)
	chMsg(e, k, "c", c3, "user", "refund please")
	step()
	c4 := chChat(e, k, "c", map[string]any{"title": "team notes"})["id"].(string)
	chMsg(e, k, "c", c4, "admin", "quarterly INVOICE review")
	step()
	c5 := chChat(e, k, "c", map[string]any{"contact_id": alice["id"]})["id"].(string)
	// Another organization's matching chat never shows.
	o, okey := e.OrgWithAdmin("Other")
	oc := chChat(e, okey, o.ID, map[string]any{"title": "invoice elsewhere"})["id"].(string)
	chMsg(e, okey, o.ID, oc, "user", "invoice invoice")

	cases := []struct {
		search string
		want   []string // inbox order: newest first
	}{
		{"invoice", []string{c4, c1}},           // message text, any case
		{"INVO", []string{c4, c1}},              // a prefix
		{`"invoice"`, []string{c4, c1}},         // quotes are literal
		{"invoice wrong", []string{c1}},         // every word
		{"wrong invoice", []string{c1}},         // in any order
		{"billing", []string{c1}},               // title
		{"cafe", []string{c3}},                  // without its accent
		{"dupre", []string{c3}},                 // contact name
		{"Alice", []string{c5, c1}},             // contact name, both chats
		{"alice@example.com", []string{c5, c1}}, // channel email
		{"example", []string{c5, c1}},
		{"+33612345678", []string{c2}},      // phone, as typed without spaces
		{"+33 6 12 34 56 78", []string{c2}}, // and with
		{"carol_t", []string{c3}},           // username
		{"refund", []string{c3}},
		{"elsewhere", nil},
		{"nothing-matches-this", nil},
	}
	for _, c := range cases {
		got := chInbox(e, k, chQ("search", c.search))
		if c.want == nil {
			c.want = []string{}
		}
		if got == nil {
			got = []string{}
		}
		chSameList(t, "search "+c.search, got, c.want)
		if n := e.Count(k, "/orgs/c/inbox?"+chQ("search", c.search)); n != len(c.want) {
			t.Errorf("search %q: pagination-count %d, want %d", c.search, n, len(c.want))
		}
	}

	// FTS5 syntax is taken literally: never an error, never an operator.
	for _, s := range []string{`"`, `""`, `*`, `(`, `)`, `NEAR`, `NEAR(invoice wrong)`, `invoice OR refund`, `invoice AND`,
		`NOT invoice`, `-invoice`, `^invoice`, `invoice:`, `title:billing`, `text:invoice`, `{text}: invoice`, `invoice*`,
		`a"b`, `'`, `\`, `%`, `_`, "a\x00b", "\xff", `" OR "" = "`, strings.Repeat("(", 256)} {
		e.Do("GET", "/orgs/c/inbox?"+chQ("search", s), k, nil).Expect(200)
	}
	// A search without a word is refused, not read as "no filter".
	for _, s := range []string{" ", "\t", "\x00", " \x00\n"} {
		e.Do("GET", "/orgs/c/inbox?"+chQ("search", s), k, nil).ExpectError(400, "invalid_argument", "search")
	}
	chSameList(t, "OR is a word", chInbox(e, k, chQ("search", "invoice OR refund")), []string{})
	chSameList(t, "NEAR is a word", chInbox(e, k, chQ("search", "NEAR total")), []string{c1})
	chSameList(t, "* is punctuation", chInbox(e, k, chQ("search", "invoice*")), []string{c4, c1})
	chSameList(t, "NUL separates words", chInbox(e, k, chQ("search", "invoice\x00wrong")), []string{c1})
	chSameList(t, "quoted word in text", chInbox(e, k, chQ("search", `"express"`)), []string{c2})

	// Search with filters.
	chSameList(t, "search+integration", chInbox(e, k, chQ("search", "invoice", "integration_id", "internal")), []string{c4})
	chSameList(t, "search+contact", chInbox(e, k, chQ("search", "alice", "contact_id", alice["id"].(string), "take", "1")), []string{c5})
	chPatch(e, k, "c", c1, map[string]any{"state": "CLOSED"})
	chSameList(t, "search+state", chInbox(e, k, chQ("search", "invoice", "state", "OPEN", "filter", "UNASSIGNED")), []string{c4})

	// The index follows changes: a new title, a renamed contact, a new message, a deletion.
	chPatch(e, k, "c", c4, map[string]any{"title": "Roadmap"})
	chSameList(t, "new title", chInbox(e, k, chQ("search", "roadmap")), []string{c4})
	chSameList(t, "old title", chInbox(e, k, chQ("search", "team notes")), []string{})
	e.Do("PATCH", "/orgs/c/contacts/"+carol["id"].(string), k, map[string]any{"name": "Caroline Zed"}).Expect(200)
	chSameList(t, "renamed contact", chInbox(e, k, chQ("search", "zed")), []string{c3})
	chSameList(t, "old name", chInbox(e, k, chQ("search", "dupre")), []string{})
	chMsg(e, k, "c", c5, "user", "zebra crossing")
	chSameList(t, "new message", chInbox(e, k, chQ("search", "zebra")), []string{c5})
	e.Do("DELETE", "/orgs/c/chats/"+c1, k, nil).Expect(204)
	chSameList(t, "deleted chat", chInbox(e, k, chQ("search", "invoice")), []string{c4})
}

// TestInboxSearchAfterDeletes: a deleted chat's messages leave the search index, also when
// the chat goes with its contact or the janitor, and a new chat does not inherit them (SQLite
// may give it the deleted chat's rowid).
func TestInboxSearchAfterDeletes(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	k := e.AdminKey
	keep := chChat(e, k, "c", nil)["id"].(string)
	chMsg(e, k, "c", keep, "admin", "kept zanzibar")
	for round, del := range []func(chat, contact string){
		func(chat, _ string) { e.Do("DELETE", "/orgs/c/chats/"+chat, k, nil).Expect(204) },
		func(_, contact string) { e.Do("DELETE", "/orgs/c/contacts/"+contact, k, nil).Expect(204) },
	} {
		ct := chContact(e, k, "c", "Gone", map[string]any{"type": "email", "email": "gone@example.com"})
		gone := chChat(e, k, "c", map[string]any{"contact_id": ct["id"]})["id"].(string)
		chMsg(e, k, "c", gone, "user", "zanzibar quokka")
		apitest.SameSet(t, "before delete", chInbox(e, k, chQ("search", "zanzibar")), []string{keep, gone})
		del(gone, ct["id"].(string))
		// The newest chat's rowid is free again: the next chat may take it.
		fresh := chChat(e, k, "c", nil)["id"].(string)
		chSameList(t, "quokka after delete", chInbox(e, k, chQ("search", "quokka")), []string{})
		chSameList(t, "zanzibar after delete", chInbox(e, k, chQ("search", "zanzibar")), []string{keep})
		chMsg(e, k, "c", fresh, "admin", "quokka again")
		chSameList(t, "new chat's own message", chInbox(e, k, chQ("search", "quokka")), []string{fresh})
		e.Do("DELETE", "/orgs/c/chats/"+fresh, k, nil).Expect(204)
		if t.Failed() {
			t.Fatalf("round %d", round)
		}
	}
	// The janitor's temporary chats too.
	tmp := chChat(e, k, "c", map[string]any{"temporary": true})["id"].(string)
	chMsg(e, k, "c", tmp, "admin", "ephemeral wombat")
	e.Clock.Advance(25 * time.Hour)
	e.Runtime.Janitor.RunOnce(context.Background())
	next := chChat(e, k, "c", nil)["id"].(string)
	chSameList(t, "after the janitor", chInbox(e, k, chQ("search", "wombat")), []string{})
	chMsg(e, k, "c", next, "admin", "wombat")
	chSameList(t, "new chat after the janitor", chInbox(e, k, chQ("search", "wombat")), []string{next})
	// Media events rewrite a message (its text too): the index follows.
	chSameList(t, "kept", chInbox(e, k, chQ("search", "zanzibar")), []string{keep})
}
