package sqlite_test

import (
	"fmt"
	"testing"

	"wsapi/app"
	"wsapi/sqlite"
)

// inboxScene writes four chats of one organization (and one of another) that differ in
// every column the inbox filters on; chat_1 and chat_2 share their updated_at.
func inboxScene(t *testing.T, db *sqlite.DB) (org string, member app.Member) {
	t.Helper()
	o, m, _ := seedOrg(t, db, "agent@example.com")
	org = o.ID
	other := newOrg(t, db, "org_other", "", 0).ID
	asst, conv, csatLow, csatHigh := "asst_1", "conv_1", 1, 5
	write(t, db, func(tx app.Tx) error {
		err := firstErr(tx.CreateContact(contact(org, "ct_1", "Carol", 0)),
			tx.CreateChannel(org, channel("ch_1", "ct_1", 0, app.ChannelProfile{Type: "whatsapp", Phone: "+1 555 010 0001"})),
			tx.CreateSegment(app.Segment{ID: "seg_1", OrgID: org, Name: "S", Color: "red", CreatedAt: at(0), UpdatedAt: at(0)}),
			tx.AddToSegment(org, "seg_1", []string{"ct_1"}),
			tx.CreateAssistant(app.Assistant{ID: asst, OrgID: org, Name: "Helper", Enabled: true, CreatedAt: at(0), UpdatedAt: at(0)}))
		if err != nil {
			return err
		}
		type spec struct {
			id, org, state string
			updated        int
			edit           func(c *app.Chat)
		}
		for _, s := range []spec{
			{"chat_1", org, "OPEN", 10, func(c *app.Chat) {
				c.ContactID, c.ContactChannelID, c.AssignedUserID = "ct_1", "ch_1", m.ID
				c.State.AIEnabled, c.State.AdminUnseenCount, c.State.CSATScore = true, 2, &csatLow
			}},
			{"chat_2", org, "CLOSED", 10, func(c *app.Chat) { c.State.CSATScore = &csatHigh }},
			{"chat_3", org, "SNOOZED", 12, func(c *app.Chat) { c.State.AssistantID, c.Status = &asst, "RUNNING" }},
			{"chat_4", org, "OPEN", 13, func(c *app.Chat) { c.State.IntegrationID, c.State.ConversationID = "email", &conv }},
			{"chat_x", other, "OPEN", 14, func(c *app.Chat) {}},
		} {
			c := testChat(s.org, s.id, 1)
			c.State.State = s.state
			s.edit(&c)
			if err := tx.CreateChat(c, app.ChatMember{}); err != nil {
				return err
			}
			if s.id == "chat_3" {
				msg := message("chat_3", "msg_3", "user", "COMPLETED", "", "where is my refund", 11)
				if err := tx.CreateMessage(org, msg); err != nil {
					return err
				}
			}
			c.UpdatedAt = at(s.updated)
			if err := tx.UpdateChat(c); err != nil {
				return err
			}
		}
		return nil
	})
	return org, m
}

// inbox lists chat ids of org under f.
func inbox(t *testing.T, db *sqlite.DB, org string, f app.InboxFilter, after *app.InboxCursor, offset, limit, total int) ([]string, int) {
	t.Helper()
	var ids []string
	read(t, db, func(tx app.Tx) error {
		chats, n, err := tx.ListInbox(org, f, after, offset, limit, total)
		ids, total = idsOf(chats, func(c app.Chat) string { return c.ID }), n
		if chats == nil {
			t.Errorf("a nil page for %+v", f)
		}
		return err
	})
	return ids, total
}

// TestInboxFilters: each inbox filter alone, newest first with the id breaking a tie on
// updated_at; the search finds message text and phone digits; another organization's chat
// never shows.
func TestInboxFilters(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org, m := inboxScene(t, db)
	cases := []struct {
		name string
		f    app.InboxFilter
		want string
	}{
		{"none", app.InboxFilter{}, "[chat_4 chat_3 chat_2 chat_1]"},
		{"ALL", app.InboxFilter{Status: "ALL", State: "ALL"}, "[chat_4 chat_3 chat_2 chat_1]"},
		{"status", app.InboxFilter{Status: "RUNNING"}, "[chat_3]"},
		{"state", app.InboxFilter{State: "OPEN"}, "[chat_4 chat_1]"},
		{"unread", app.InboxFilter{Filter: "UNREAD"}, "[chat_1]"},
		{"unresolved", app.InboxFilter{Filter: "UNRESOLVED"}, "[chat_4 chat_3 chat_1]"},
		{"resolved", app.InboxFilter{Filter: "RESOLVED"}, "[chat_2]"},
		{"assigned to me", app.InboxFilter{Filter: "ASSIGNED_TO_ME", MemberID: m.ID}, "[chat_1]"},
		{"unassigned", app.InboxFilter{Filter: "UNASSIGNED"}, "[chat_4 chat_3 chat_2]"},
		{"AI on", app.InboxFilter{AIStatus: "ENABLED"}, "[chat_1]"},
		{"AI off", app.InboxFilter{AIStatus: "DISABLED"}, "[chat_4 chat_3 chat_2]"},
		{"low CSAT", app.InboxFilter{CSATMax: 3}, "[chat_1]"},
		{"contact", app.InboxFilter{ContactID: "ct_1"}, "[chat_1]"},
		{"segment", app.InboxFilter{SegmentID: "seg_1"}, "[chat_1]"},
		{"integration", app.InboxFilter{IntegrationID: "email"}, "[chat_4]"},
		{"conversation", app.InboxFilter{ConversationID: "conv_1"}, "[chat_4]"},
		{"assistant", app.InboxFilter{AssistantID: "asst_1"}, "[chat_3]"},
		{"message text", app.InboxFilter{Search: "refund"}, "[chat_3]"},
		{"message prefix", app.InboxFilter{Search: "ref"}, "[chat_3]"},
		{"phone digits", app.InboxFilter{Search: "555 0100"}, "[chat_1]"},
		{"search and filter", app.InboxFilter{Search: "refund", State: "OPEN"}, "[]"},
		{"no hit", app.InboxFilter{Search: "nothing"}, "[]"},
	}
	for _, c := range cases {
		for _, total := range []int{-1, 7} { // counted, or the caller's count kept
			ids, n := inbox(t, db, org, c.f, nil, 0, 10, total)
			if fmt.Sprint(ids) != c.want || (total < 0 && n != len(ids)) || (total >= 0 && n != total) {
				t.Errorf("%s (total %d): %v total %d, want %s", c.name, total, ids, n, c.want)
			}
		}
	}
}

// TestInboxCursorAndTotals: a cursor continues after its chat, also when that chat was
// deleted since; the total is counted when the page cannot tell it (an offset past the end,
// a page that may have more after it).
func TestInboxCursorAndTotals(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org, _ := inboxScene(t, db)
	cursor := func(id string, sec int) *app.InboxCursor {
		return &app.InboxCursor{UpdatedAt: at(sec).String(), ID: id}
	}
	type page struct {
		after         *app.InboxCursor
		offset, limit int
		f             app.InboxFilter
		want          string
		total         int
	}
	check := func(name string, p page) {
		t.Helper()
		ids, total := inbox(t, db, org, p.f, p.after, p.offset, p.limit, -1)
		if fmt.Sprint(ids) != p.want || total != p.total {
			t.Errorf("%s: %v total %d, want %s total %d", name, ids, total, p.want, p.total)
		}
	}
	check("first page", page{limit: 2, want: "[chat_4 chat_3]", total: 4})
	check("after the tie's first", page{after: cursor("chat_2", 10), limit: 2, want: "[chat_1]", total: 4})
	check("exact last page", page{after: cursor("chat_3", 12), limit: 2, want: "[chat_2 chat_1]", total: 4})
	check("offset past the end", page{offset: 10, limit: 2, want: "[]", total: 4})
	check("short page", page{offset: 1, limit: 10, want: "[chat_3 chat_2 chat_1]", total: 4})
	check("search, whole", page{limit: 10, f: app.InboxFilter{Search: "refund"}, want: "[chat_3]", total: 1})
	check("search after the hit", page{after: cursor("chat_3", 12), limit: 10, f: app.InboxFilter{Search: "refund"}, want: "[]", total: 1})
	check("search before the hit", page{after: cursor("chat_4", 13), limit: 10, f: app.InboxFilter{Search: "refund"}, want: "[chat_3]", total: 1})
	write(t, db, func(tx app.Tx) error { return tx.DeleteChat(org, "chat_3") })
	check("after a deleted chat", page{after: cursor("chat_3", 12), limit: 5, want: "[chat_2 chat_1]", total: 3})
	ids, _ := inbox(t, db, org, app.InboxFilter{}, cursor("chat_3", 12), 0, 1, 3)
	if fmt.Sprint(ids) != "[chat_2]" {
		t.Errorf("a page of one after a deleted chat, total given: %v", ids)
	}
	var searched []string
	read(t, db, func(tx app.Tx) error { // searchPage: the caller knows the total
		chats, n, err := tx.ListInbox(org, app.InboxFilter{Search: "555"}, cursor("chat_4", 13), 0, 1, 9)
		searched = idsOf(chats, func(c app.Chat) string { return c.ID })
		if n != 9 {
			t.Errorf("search kept total %d", n)
		}
		return err
	})
	if fmt.Sprint(searched) != "[chat_1]" {
		t.Errorf("search page after chat_4: %v", searched)
	}
}

// TestInboxChatCache: with the chat cache on, a read that finds a chat at the version it was
// cached at reuses it, and a write to the chat (a new version) is seen on the next read.
func TestInboxChatCache(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	db.CacheChats(8)
	org, _ := inboxScene(t, db)
	titles := func() string {
		var out []string
		read(t, db, func(tx app.Tx) error {
			chats, _, err := tx.ListInbox(org, app.InboxFilter{}, nil, 0, 10, -1)
			for _, c := range chats {
				title := "-"
				if c.Title != nil {
					title = *c.Title
				}
				out = append(out, c.ID+":"+title)
			}
			return err
		})
		return fmt.Sprint(out)
	}
	const want = "[chat_4:- chat_3:- chat_2:- chat_1:-]"
	if first, second := titles(), titles(); first != want || second != want {
		t.Fatalf("cold %s, warm %s", first, second)
	}
	write(t, db, func(tx app.Tx) error {
		c, err := tx.GetChatRow(org, "chat_2")
		if err != nil {
			return err
		}
		title := "Renamed"
		c.Title = &title
		if err := tx.UpdateChat(c); err != nil {
			return err
		}
		chats, _, err := tx.ListInbox(org, app.InboxFilter{State: "CLOSED"}, nil, 0, 10, -1) // a write reads around the cache
		if err == nil && (len(chats) != 1 || *chats[0].Title != "Renamed") {
			err = fmt.Errorf("inside the write: %+v", chats)
		}
		return err
	})
	if got := titles(); got != "[chat_4:- chat_3:- chat_2:Renamed chat_1:-]" {
		t.Errorf("after the rename: %s", got)
	}
}
