package sqlite_test

import (
	"fmt"
	"slices"
	"testing"

	"wsapi/app"
	"wsapi/sqlite"
)

func contact(org, id, name string, sec int) app.Contact {
	return app.Contact{ID: id, OrgID: org, Name: name, CreatedAt: at(sec), UpdatedAt: at(sec)}
}

func channel(id, contactID string, sec int, p app.ChannelProfile) app.Channel {
	return app.Channel{ID: id, ContactID: contactID, ChannelProfile: p, CreatedAt: at(sec), UpdatedAt: at(sec)}
}

// contactBook writes four contacts of one organization (in one multi-row insert each for
// contacts and channels) and two segments: ct_1 and ct_4 are in seg_1, ct_4 also in seg_2.
func contactBook(t *testing.T, db *sqlite.DB, org string) {
	t.Helper()
	c2, c3 := contact(org, "ct_2", "Bob_Smith", 2), contact(org, "ct_3", "100% Carl", 3)
	c2.Blocked, c2.BlockedAt = true, at(2)
	c3.Unsubscribed, c3.UnsubscribedAt = true, at(3)
	write(t, db, func(tx app.Tx) error {
		return firstErr(
			tx.InsertContacts([]app.Contact{contact(org, "ct_1", "Ann Lee", 1), c2, c3, contact(org, "ct_4", "Dana", 4)}),
			tx.InsertChannels(org, []app.Channel{
				channel("ch_1", "ct_1", 1, app.ChannelProfile{Type: "email", Email: "Ann@Example.com", Phone: "+1 (555) 010-0001"}),
				channel("ch_2", "ct_2", 2, app.ChannelProfile{Type: "telegram", Username: "bobby"}),
				channel("ch_3", "ct_3", 3, app.ChannelProfile{Type: "internal", UserID: "u3"}),
			}),
			tx.CreateSegment(app.Segment{ID: "seg_1", OrgID: org, Name: "First", Color: "red", CreatedAt: at(0), UpdatedAt: at(0)}),
			tx.CreateSegment(app.Segment{ID: "seg_2", OrgID: org, Name: "Second", Color: "blue", CreatedAt: at(0), UpdatedAt: at(0)}),
			tx.AddToSegment(org, "seg_1", []string{"ct_1", "ct_4", "ct_1"}),
			tx.AddToSegment(org, "seg_2", []string{"ct_4"}),
		)
	})
}

// TestContactFilters: each filter of the contact list alone and combined, with LIKE's
// wildcards searched literally and phone numbers found by their digits.
func TestContactFilters(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org := newOrg(t, db, "org_c", "", 0).ID
	contactBook(t, db, org)
	yes, no := true, false
	cases := []struct {
		name string
		f    app.ContactFilter
		want string
	}{
		{"none", app.ContactFilter{}, "[ct_1 ct_2 ct_3 ct_4]"},
		{"name and email", app.ContactFilter{Search: "ann"}, "[ct_1]"},
		{"email case", app.ContactFilter{Search: "ANN@EXAMPLE"}, "[ct_1]"},
		{"phone digits", app.ContactFilter{Search: "555 0100"}, "[ct_1]"},
		{"username", app.ContactFilter{Search: "bobby"}, "[ct_2]"},
		{"literal underscore", app.ContactFilter{Search: "_"}, "[ct_2]"},
		{"literal percent", app.ContactFilter{Search: "%"}, "[ct_3]"},
		{"nothing", app.ContactFilter{Search: "zed"}, "[]"},
		{"segment", app.ContactFilter{SegmentID: "seg_1"}, "[ct_1 ct_4]"},
		{"blocked", app.ContactFilter{Blocked: &yes}, "[ct_2]"},
		{"not blocked", app.ContactFilter{Blocked: &no}, "[ct_1 ct_3 ct_4]"},
		{"unsubscribed", app.ContactFilter{Unsubscribed: &yes}, "[ct_3]"},
		{"segment and not blocked and subscribed", app.ContactFilter{SegmentID: "seg_2", Blocked: &no, Unsubscribed: &no}, "[ct_4]"},
	}
	read(t, db, func(tx app.Tx) error {
		for _, c := range cases {
			cs, total, err := tx.ListContacts(org, c.f, app.Page{Page: 1, Take: 10})
			ids := idsOf(cs, func(c app.Contact) string { return c.ID })
			if err != nil || fmt.Sprint(ids) != c.want || total != len(ids) {
				t.Errorf("%s: %v total %d (%v), want %s", c.name, ids, total, err, c.want)
			}
		}
		cs, total, err := tx.ListContacts(org, app.ContactFilter{}, app.Page{Page: 2, Take: 3})
		if err != nil || total != 4 || len(cs) != 1 || cs[0].ID != "ct_4" || len(cs[0].Segments) != 2 {
			t.Errorf("second page %+v total %d (%v)", cs, total, err)
		}
		return nil
	})
}

// A contact reads back with its channels (normalized, linked) and segments (with their
// counts); updates round-trip; a deletion frees its broadcast recipients and lowers the
// organization's count.
func TestContactLifecycle(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org := newOrg(t, db, "org_c", "", 0).ID
	contactBook(t, db, org)
	read(t, db, func(tx app.Tx) error {
		c, err := tx.GetContact(org, "ct_1")
		if err != nil || len(c.Channels) != 1 || c.Channels[0].Email != "Ann@Example.com" || c.Channels[0].PlatformData == nil {
			t.Fatalf("contact %+v (%v)", c, err)
		}
		if len(c.Segments) != 1 || c.Segments[0].ID != "seg_1" || c.Segments[0].ContactsCount != 2 {
			t.Errorf("segments %+v", c.Segments)
		}
		ch, err := tx.GetChannel(org, "ch_2")
		if err != nil || ch.ContactID != "ct_2" || ch.Username != "bobby" || ch.Link == "" {
			t.Errorf("channel %+v (%v)", ch, err)
		}
		if _, err := tx.GetChannel("org_other", "ch_2"); code(err) != "not_found" {
			t.Errorf("another org's channel: %v", err)
		}
		if _, err := tx.GetContact("org_other", "ct_1"); code(err) != "not_found" {
			t.Errorf("another org's contact: %v", err)
		}
		return nil
	})
	reason := "too many mails"
	write(t, db, func(tx app.Tx) error {
		c, err := tx.GetContact(org, "ct_4")
		if err != nil {
			return err
		}
		c.Name, c.IsAdmin, c.Unsubscribed, c.UnsubscribedAt, c.UnsubscribeReason, c.UpdatedAt = "Dana K", true, true, at(9), &reason, at(9)
		return firstErr(tx.UpdateContact(c), tx.TouchContacts(org, []string{"ct_1"}, at(10)), tx.TouchContacts(org, nil, at(11)))
	})
	read(t, db, func(tx app.Tx) error {
		c, err := tx.GetContact(org, "ct_4")
		if err != nil || c.Name != "Dana K" || !c.IsAdmin || !c.Unsubscribed || *c.UnsubscribeReason != reason || !c.UpdatedAt.Equal(at(9).Time) {
			t.Errorf("updated contact %+v (%v)", c, err)
		}
		if c, _ := tx.GetContact(org, "ct_1"); !c.UpdatedAt.Equal(at(10).Time) {
			t.Errorf("touched contact updated at %v", c.UpdatedAt)
		}
		if c, _ := tx.GetContact(org, "ct_2"); !c.UpdatedAt.Equal(at(2).Time) {
			t.Errorf("a contact not touched was: %v", c.UpdatedAt)
		}
		return nil
	})
	write(t, db, func(tx app.Tx) error {
		b := app.Broadcast{ID: "bc_1", OrgID: org, Name: "B", IntegrationID: "email", Status: "SENDING",
			SegmentIDs: []string{}, ContactIDs: []string{"ct_1"}, CreatedAt: at(0), UpdatedAt: at(0)}
		if err := tx.CreateBroadcast(b); err != nil {
			return err
		}
		if n, err := tx.CreateRecipients(b, at(0)); err != nil || n != 1 {
			return fmt.Errorf("recipients %d (%v)", n, err)
		}
		return tx.DeleteContact(org, "ct_1")
	})
	read(t, db, func(tx app.Tx) error {
		rs, _, err := tx.ListRecipients(org, app.RecipientFilter{BroadcastID: "bc_1", SortField: "created_at"}, nil, 0, 10)
		if err != nil || len(rs) != 1 || rs[0].ContactID != "" || rs[0].Contact != nil {
			t.Errorf("recipient of a deleted contact %+v (%v)", rs, err)
		}
		if _, total, err := tx.ListContacts(org, app.ContactFilter{}, app.Page{Page: 1, Take: 1}); err != nil || total != 3 {
			t.Errorf("count after a deletion %d (%v)", total, err)
		}
		return nil
	})
	for name, fn := range map[string]func(tx app.Tx) error{
		"delete again":       func(tx app.Tx) error { return tx.DeleteContact(org, "ct_1") },
		"update another org": func(tx app.Tx) error { return tx.UpdateContact(contact("org_other", "ct_2", "x", 0)) },
	} {
		if err := db.Write(bg, fn); code(err) != "not_found" {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Bulk matching finds channels by user id, normalized email and normalized phone, the oldest
// channel when two hold one value; filling sets only empty fields, folds several fills of one
// channel (the first value wins) and refuses a channel that is not the organization's.
func TestBulkMatchAndFill(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org := newOrg(t, db, "org_c", "", 0).ID
	contactBook(t, db, org)
	write(t, db, func(tx app.Tx) error { // a newer channel with ct_1's email, on ct_4
		return tx.CreateChannel(org, channel("ch_4", "ct_4", 9, app.ChannelProfile{Type: "email", Email: "ann@example.com"}))
	})
	read(t, db, func(tx app.Tx) error {
		m, err := tx.MatchChannels(org, []string{"u3", "nobody", "u3"}, []string{"ann@example.com", "ann@example.com"},
			[]string{"15550100001"}) // a key given twice is looked up once
		if err != nil {
			return err
		}
		want := app.ChannelMatches{ByUserID: map[string]app.ChannelRef{"u3": {ContactID: "ct_3", ChannelID: "ch_3"}},
			ByEmail: map[string]app.ChannelRef{"ann@example.com": {ContactID: "ct_1", ChannelID: "ch_1"}},
			ByPhone: map[string]app.ChannelRef{"15550100001": {ContactID: "ct_1", ChannelID: "ch_1"}}}
		if fmt.Sprint(m) != fmt.Sprint(want) {
			t.Errorf("matches %v, want %v", m, want)
		}
		if m, err := tx.MatchChannels("org_other", []string{"u3"}, nil, nil); err != nil || len(m.ByUserID) != 0 {
			t.Errorf("another org matched %v (%v)", m, err)
		}
		return nil
	})
	write(t, db, func(tx app.Tx) error {
		return tx.FillChannels(org, []app.ChannelFill{
			{ChannelID: "ch_2", Item: app.BulkChannel{Name: "Bob", Email: " bob@example.com "}},
			{ChannelID: "ch_2", Item: app.BulkChannel{Name: "Robert", Phone: "+44 20 7946 0000"}},
			{ChannelID: "ch_1", Item: app.BulkChannel{Email: "other@example.com", UserID: "u1"}}, // email is set: kept
			{ChannelID: "ch_3", Item: app.BulkChannel{}},                                         // only touched
		}, at(20))
	})
	read(t, db, func(tx app.Tx) error {
		ch2, _ := tx.GetChannel(org, "ch_2")
		ch1, _ := tx.GetChannel(org, "ch_1")
		ch3, _ := tx.GetChannel(org, "ch_3")
		if ch2.Name != "Bob" || ch2.Email != "bob@example.com" || ch2.Phone != "+44 20 7946 0000" || ch2.Username != "bobby" {
			t.Errorf("filled channel %+v", ch2.ChannelProfile)
		}
		if ch1.Email != "Ann@Example.com" || ch1.UserID != "u1" || !ch3.UpdatedAt.Equal(at(20).Time) {
			t.Errorf("ch_1 %+v, ch_3 updated %v", ch1.ChannelProfile, ch3.UpdatedAt)
		}
		m, err := tx.MatchChannels(org, nil, []string{"bob@example.com"}, []string{"442079460000"})
		if err != nil || m.ByEmail["bob@example.com"].ChannelID != "ch_2" || m.ByPhone["442079460000"].ChannelID != "ch_2" {
			t.Errorf("the filled values are not normalized for matching: %v (%v)", m, err)
		}
		return nil
	})
	err := db.Write(bg, func(tx app.Tx) error {
		return tx.FillChannels("org_other", []app.ChannelFill{{ChannelID: "ch_2", Item: app.BulkChannel{Name: "X"}}}, at(30))
	})
	if code(err) != "not_found" {
		t.Errorf("fill of another org's channel: %v", err)
	}
}

// A merge moves channels, notes, memories, chats and the segments the target lacks, and
// says how many of each.
func TestMoveContactChildren(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org := newOrg(t, db, "org_c", "", 0).ID
	contactBook(t, db, org)
	var v0 int64
	write(t, db, func(tx app.Tx) (err error) {
		chat := testChat(org, "chat_4", 0)
		chat.ContactID = "ct_4"
		v0, err = tx.InboxVersion(org)
		return firstErr(err, tx.CreateChannel(org, channel("ch_4", "ct_4", 5, app.ChannelProfile{Type: "internal", UserID: "u4"})),
			tx.CreateNote(app.Note{ID: "note_1", OrgID: org, ContactID: "ct_4", Content: "n", User: app.User{ID: "mem_x"}, CreatedAt: at(0), UpdatedAt: at(0)}),
			tx.CreateMemory(app.Memory{ID: "mem_1", OrgID: org, ContactID: "ct_4", UserID: "u", Type: "FACT", Importance: 0.5, Content: "m",
				CreatedAt: at(0), UpdatedAt: at(0)}),
			tx.CreateChat(chat, app.ChatMember{}))
	})
	var n app.MergeCounts
	write(t, db, func(tx app.Tx) (err error) { n, err = tx.MoveContactChildren(org, "ct_4", "ct_1"); return err })
	if n != (app.MergeCounts{Channels: 1, Notes: 1, Memories: 1, Segments: 1, Chats: 1}) {
		t.Errorf("moved %+v", n)
	}
	read(t, db, func(tx app.Tx) error {
		c, err := tx.GetContact(org, "ct_1")
		segs := idsOf(c.Segments, func(s app.Segment) string { return s.ID })
		chs := idsOf(c.Channels, func(ch app.Channel) string { return ch.ID })
		if err != nil || !slices.Equal(segs, []string{"seg_1", "seg_2"}) || !slices.Equal(chs, []string{"ch_1", "ch_4"}) {
			t.Errorf("target after the merge: segments %v channels %v (%v)", segs, chs, err)
		}
		if notes, _, _ := tx.ListNotes(org, "ct_1", app.Page{Page: 1, Take: 5}); len(notes) != 1 {
			t.Errorf("notes %+v", notes)
		}
		if chat, err := tx.GetChatRow(org, "chat_4"); err != nil || chat.ContactID != "ct_1" {
			t.Errorf("chat contact %q (%v)", chat.ContactID, err)
		}
		if v, _ := tx.InboxVersion(org); v <= v0 {
			t.Errorf("inbox version %d after a segment moved, was %d", v, v0)
		}
		return nil
	})
}

// Notes name their author, a member or an assistant (a handoff's note); notes and memories
// delete within their contact only.
func TestNotesAndMemories(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org, member, _ := seedOrg(t, db, "n@example.com")
	write(t, db, func(tx app.Tx) error {
		note := func(id, author string, sec int) app.Note {
			return app.Note{ID: id, OrgID: org.ID, ContactID: "ct_1", Content: id, User: app.User{ID: author}, CreatedAt: at(sec), UpdatedAt: at(sec)}
		}
		return firstErr(tx.CreateContact(contact(org.ID, "ct_1", "C", 0)),
			tx.CreateAssistant(app.Assistant{ID: "asst_1", OrgID: org.ID, Name: "Helper", AvatarURL: "https://example.com/h.png", CreatedAt: at(0), UpdatedAt: at(0)}),
			tx.CreateNote(note("note_m", member.ID, 1)), tx.CreateNote(note("note_a", "asst_1", 2)), tx.CreateNote(note("note_x", "gone", 3)),
			tx.CreateMemory(app.Memory{ID: "memo_1", OrgID: org.ID, ContactID: "ct_1", UserID: "u", Type: "FACT", Importance: 1, Content: "m", CreatedAt: at(0), UpdatedAt: at(0)}))
	})
	read(t, db, func(tx app.Tx) error {
		ns, total, err := tx.ListNotes(org.ID, "ct_1", app.Page{Page: 1, Take: 10})
		got := idsOf(ns, func(n app.Note) string { return n.ID + "/" + n.User.Name + "/" + n.User.Avatar })
		if err != nil || total != 3 || fmt.Sprint(got) != "[note_x// note_a/Helper/https://example.com/h.png note_m/M/]" {
			t.Errorf("notes %v total %d (%v)", got, total, err)
		}
		return nil
	})
	for _, c := range []struct {
		name, code string
		fn         func(tx app.Tx) error
	}{
		{"note of another contact", "not_found", func(tx app.Tx) error { return tx.DeleteNote(org.ID, "ct_2", "note_m") }},
		{"note", "", func(tx app.Tx) error { return tx.DeleteNote(org.ID, "ct_1", "note_m") }},
		{"note again", "not_found", func(tx app.Tx) error { return tx.DeleteNote(org.ID, "ct_1", "note_m") }},
		{"memory of another org", "not_found", func(tx app.Tx) error { return tx.DeleteMemory("org_other", "ct_1", "memo_1") }},
		{"memory", "", func(tx app.Tx) error { return tx.DeleteMemory(org.ID, "ct_1", "memo_1") }},
	} {
		if err := db.Write(bg, c.fn); code(err) != c.code {
			t.Errorf("delete %s: %v, want %q", c.name, err, c.code)
		}
	}
	read(t, db, func(tx app.Tx) error {
		if ms, total, err := tx.ListMemories(org.ID, "ct_1", nil, 0, 10); err != nil || total != 0 || len(ms) != 0 {
			t.Errorf("memories after the deletion %v %d (%v)", ms, total, err)
		}
		return nil
	})
}

// TestGetContactAgreesWithTheList: GET contact reads a contact and its channels in one
// statement and its segments only when it has any; it must answer what the list (separate
// queries per child) answers, for contacts with no channel, one, several created in the same
// instant (kept in insertion order), with and without segments.
func TestGetContactAgreesWithTheList(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org := newOrg(t, db, "org_g", "", 0).ID
	contactBook(t, db, org)
	write(t, db, func(tx app.Tx) error {
		return firstErr(
			tx.InsertContacts([]app.Contact{contact(org, "ct_5", "Many", 5)}),
			tx.InsertChannels(org, []app.Channel{
				channel("ch_z", "ct_5", 5, app.ChannelProfile{Type: "email", Email: "z@example.com"}),
				channel("ch_a", "ct_5", 5, app.ChannelProfile{Type: "phone", Phone: "+1 555 0100"}),
				channel("ch_m", "ct_5", 4, app.ChannelProfile{Type: "internal", UserID: "u5"}),
			}),
			tx.AddToSegment(org, "seg_2", []string{"ct_5"}),
		)
	})
	read(t, db, func(tx app.Tx) error {
		list, _, err := tx.ListContacts(org, app.ContactFilter{}, app.Page{Page: 1, Take: 50})
		if err != nil || len(list) != 5 {
			t.Fatalf("list %d (%v)", len(list), err)
		}
		for _, want := range list {
			got, err := tx.GetContact(org, want.ID)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want); a != b {
				t.Errorf("GET %s:\n%s\nthe list:\n%s", want.ID, a, b)
			}
		}
		c, _ := tx.GetContact(org, "ct_5")
		var ids []string
		for _, ch := range c.Channels {
			ids = append(ids, ch.ID)
		}
		if !slices.Equal(ids, []string{"ch_m", "ch_z", "ch_a"}) || len(c.Segments) != 1 {
			t.Errorf("ct_5's channels %v (oldest first, then as inserted), segments %+v", ids, c.Segments)
		}
		if c, _ := tx.GetContact(org, "ct_4"); len(c.Channels) != 0 || c.Channels == nil || len(c.Segments) != 2 {
			t.Errorf("ct_4 (no channels, two segments): %+v", c)
		}
		if c, _ := tx.GetContact(org, "ct_2"); len(c.Channels) != 1 || len(c.Segments) != 0 || c.Segments == nil {
			t.Errorf("ct_2 (one channel, no segments): %+v", c)
		}
		return nil
	})
}
