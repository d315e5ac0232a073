package sqlite_test

import (
	"fmt"
	"testing"

	"wsapi/app"
	"wsapi/sqlite"
)

// chatScene is an organization with a member, a contact on an email channel, an assistant
// and chat_1 between them, created by the member.
type chatScene struct {
	db     *sqlite.DB
	org    string
	member app.Member
}

func newChatScene(t *testing.T) chatScene {
	t.Helper()
	db, _ := openDB(t)
	org, m, _ := seedOrg(t, db, "agent@example.com")
	asst := app.Assistant{ID: "asst_1", OrgID: org.ID, Name: "Helper", Enabled: true, CreatedAt: at(0), UpdatedAt: at(0)}
	asst.Config.Conversation.WelcomeBanner, asst.Config.Conversation.EnableAutoResolve = "Hi!", true
	chat := testChat(org.ID, "chat_1", 1)
	chat.ContactID, chat.ContactChannelID, chat.State.AssistantID = "ct_1", "ch_1", &asst.ID
	write(t, db, func(tx app.Tx) error {
		return firstErr(tx.CreateContact(contact(org.ID, "ct_1", "Carol", 0)),
			tx.CreateChannel(org.ID, channel("ch_1", "ct_1", 0, app.ChannelProfile{Type: "email", Email: "carol@example.com"})),
			tx.CreateAssistant(asst),
			tx.CreateChat(chat, app.ChatMember{ID: "cm_agent", Role: app.ChatRoleAdmin, User: &app.User{ID: m.ID}}))
	})
	return chatScene{db: db, org: org.ID, member: m}
}

func message(chatID, id, role, status, member, text string, sec int) app.Message {
	return app.Message{ID: id, ChatID: chatID, Role: role, Model: app.AutoModel, Status: status, ChatMemberID: member, Text: text,
		Messages: []app.Turn{{Role: role, Parts: []app.Part{{Type: "text", Text: text}}}}, CreatedAt: at(sec), UpdatedAt: at(sec)}
}

// contactMember is the id of chat_1's contact member.
func (s chatScene) contactMember(t *testing.T) string {
	t.Helper()
	var id string
	read(t, s.db, func(tx app.Tx) (err error) { id, err = tx.ContactChatMember("chat_1"); return err })
	return id
}

// A chat reads back with its members (the member who opened it and the contact's channel),
// its assistant and its last message; reactions are one per member; assignment, counters
// and CSAT round-trip.
func TestChatReadsBackWhole(t *testing.T) {
	t.Parallel()
	s := newChatScene(t)
	cm := s.contactMember(t)
	usage := &app.Usage{UsageCounter: app.UsageCounter{InputTokens: 3, OutputTokens: 4}}
	write(t, s.db, func(tx app.Tx) error {
		reply := message("chat_1", "msg_2", "assistant", "COMPLETED", "", "hello Carol", 3)
		reply.Usage = usage
		return firstErr(tx.CreateMessage(s.org, message("chat_1", "msg_1", "user", "COMPLETED", cm, "hello there", 2)),
			tx.CreateMessage(s.org, reply),
			tx.SetReaction(s.org, "msg_1", s.member.ID, "👍"), tx.SetReaction(s.org, "msg_1", s.member.ID, "❤️"))
	})
	read(t, s.db, func(tx app.Tx) error {
		c, err := tx.GetChat(s.org, "chat_1")
		if err != nil {
			return err
		}
		roles := idsOf(c.Members, func(m app.ChatMember) string { return m.Role })
		if fmt.Sprint(roles) != "[ADMIN CONTACT]" || c.Members[0].User.Name != "M" || c.Members[1].ContactChannel.Contact.Name != "Carol" ||
			c.Members[1].ContactChannel.Email != "carol@example.com" || c.Members[1].Session.ID != cm {
			t.Errorf("members %+v", c.Members)
		}
		if a := c.State.Assistant; a == nil || a.Name != "Helper" || a.Config.Conversation.WelcomeBanner != "Hi!" ||
			c.State.AssistantConfig == nil || !c.State.AssistantConfig.Conversation.EnableAutoResolve {
			t.Errorf("assistant %+v", c.State.Assistant)
		}
		if c.LastMessage == nil || c.LastMessage.ID != "msg_2" || c.LastMessage.Usage == nil || c.LastMessage.Usage.OutputTokens != 4 ||
			c.LastMessage.Usage.Turns == nil {
			t.Errorf("last message %+v", c.LastMessage)
		}
		m, err := tx.GetMessage(s.org, "chat_1", "msg_1")
		if err != nil || m.Member == nil || m.Member.ID != cm || fmt.Sprint(m.Reactions) != fmt.Sprintf("[{❤️ %s}]", s.member.ID) ||
			m.Messages[0].Parts[0].Text != "hello there" {
			t.Errorf("message %+v (%v)", m, err)
		}
		if _, err := tx.GetMessage(s.org, "chat_other", "msg_1"); code(err) != "not_found" {
			t.Errorf("message through another chat: %v", err)
		}
		return nil
	})
	csat := 2
	write(t, s.db, func(tx app.Tx) error {
		c, err := tx.GetChatRow(s.org, "chat_1")
		if err != nil {
			return err
		}
		title := "Order 42"
		c.Title, c.Pinned, c.AssignedUserID, c.UpdatedAt = &title, true, s.member.ID, at(10)
		c.State.AssignedAt, c.State.AssignedUser = at(10), &app.AssignedUser{SeenAt: at(11)}
		c.State.AdminUnseenCount, c.State.CSATScore, c.State.FollowUpAt = 3, &csat, at(50)
		return firstErr(tx.UpdateChat(c), tx.DeleteReaction(s.org, "msg_1", s.member.ID))
	})
	read(t, s.db, func(tx app.Tx) error {
		c, err := tx.GetChatRow(s.org, "chat_1")
		u := c.State.AssignedUser
		if err != nil || *c.Title != "Order 42" || !c.Pinned || u == nil || u.Name != "M" || u.Email != "agent@example.com" ||
			!u.SeenAt.Equal(at(11).Time) || *c.State.CSATScore != 2 || c.State.AdminUnseenCount != 3 {
			t.Errorf("updated chat %+v state %+v (%v)", c, c.State, err)
		}
		ids, err := tx.ChatsAssignedTo(s.org, s.member.ID)
		if err != nil || fmt.Sprint(ids) != "[chat_1]" {
			t.Errorf("assigned %v (%v)", ids, err)
		}
		m, _ := tx.GetMessage(s.org, "chat_1", "msg_1")
		if len(m.Reactions) != 0 {
			t.Errorf("reactions after the deletion %v", m.Reactions)
		}
		return nil
	})
	for name, fn := range map[string]func(tx app.Tx) error{
		"reaction again":   func(tx app.Tx) error { return tx.DeleteReaction(s.org, "msg_1", s.member.ID) },
		"update elsewhere": func(tx app.Tx) error { return tx.UpdateChat(testChat("org_other", "chat_1", 0)) },
		"chat elsewhere":   func(tx app.Tx) error { _, err := tx.GetChat("org_other", "chat_1"); return err },
		"row elsewhere":    func(tx app.Tx) error { _, err := tx.GetChatRow("org_other", "chat_1"); return err },
	} {
		if err := s.db.Write(bg, fn); code(err) != "not_found" {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Chat membership and lookups: EnsureChatMember is idempotent; the contact member is the
// first contact channel's ("" when none); the newest chat on a channel wins; temporary chats
// untouched since the cutoff go; a deleted chat is gone.
func TestChatMembershipAndLookups(t *testing.T) {
	t.Parallel()
	s := newChatScene(t)
	var first, again, none, onChannel string
	write(t, s.db, func(tx app.Tx) (err error) {
		later := testChat(s.org, "chat_2", 5)
		later.ContactID, later.ContactChannelID = "ct_1", "ch_1"
		temp, fresh := testChat(s.org, "chat_tmp", 2), testChat(s.org, "chat_tmp_fresh", 8)
		temp.Temporary, fresh.Temporary = true, true
		if err := firstErr(tx.CreateChat(later, app.ChatMember{}), tx.CreateChat(temp, app.ChatMember{}), tx.CreateChat(fresh, app.ChatMember{})); err != nil {
			return err
		}
		other := app.Member{ID: "mem_2", OrgID: s.org, Name: "Two", Email: "two@example.com", Role: app.RoleMember, CreatedAt: at(0), UpdatedAt: at(0)}
		if err := tx.CreateMember(other); err != nil {
			return err
		}
		if first, err = tx.EnsureChatMember("chat_1", "mem_2", app.ChatRoleAdmin, at(3)); err != nil {
			return err
		}
		if again, err = tx.EnsureChatMember("chat_1", "mem_2", app.ChatRoleAdmin, at(4)); err != nil {
			return err
		}
		if none, err = tx.ContactChatMember("chat_tmp"); err != nil {
			return err
		}
		onChannel, err = tx.ChatOnChannel(s.org, "ch_1")
		return err
	})
	if first == "" || first != again || none != "" || onChannel != "chat_2" {
		t.Errorf("member %q then %q; contact member of a chat without one %q; chat on the channel %q", first, again, none, onChannel)
	}
	var n int
	write(t, s.db, func(tx app.Tx) (err error) { n, err = tx.DeleteTemporaryChats(at(5)); return err })
	read(t, s.db, func(tx app.Tx) error {
		_, errGone := tx.GetChatRow(s.org, "chat_tmp")
		_, errKept := tx.GetChatRow(s.org, "chat_tmp_fresh")
		if n != 1 || code(errGone) != "not_found" || errKept != nil {
			t.Errorf("deleted %d temporary chats: old %v, fresh %v", n, errGone, errKept)
		}
		c, err := tx.GetChat(s.org, "chat_1")
		if err != nil || len(c.Members) != 3 {
			t.Errorf("members after EnsureChatMember: %+v (%v)", c.Members, err)
		}
		if _, err := tx.ChatOnChannel(s.org, "ch_none"); code(err) != "not_found" {
			t.Errorf("chat on an unknown channel: %v", err)
		}
		return nil
	})
	write(t, s.db, func(tx app.Tx) error { return tx.DeleteChat(s.org, "chat_2") })
	if err := s.db.Write(bg, func(tx app.Tx) error { return tx.DeleteChat(s.org, "chat_2") }); code(err) != "not_found" {
		t.Errorf("second deletion: %v", err)
	}
}

// Messages: a cursor walks them in order; the in-flight message is the newest RUNNING one;
// a run's writes land only while the message runs; FollowLastMessage moves the chat's
// status only for its last message.
func TestMessagesAndRunWrites(t *testing.T) {
	t.Parallel()
	s := newChatScene(t)
	write(t, s.db, func(tx app.Tx) error {
		for i := range 4 {
			if err := tx.CreateMessage(s.org, message("chat_1", fmt.Sprint("msg_", i), "user", "COMPLETED", "", "m", 10+i)); err != nil {
				return err
			}
		}
		return tx.CreateMessage(s.org, message("chat_1", "msg_run", "assistant", "RUNNING", "", "", 20))
	})
	read(t, s.db, func(tx app.Tx) error {
		all, total, err := tx.ListMessages(s.org, "chat_1", nil, 0, 10)
		if err != nil || total != 5 || len(all) != 5 {
			t.Fatalf("messages %d of %d (%v)", len(all), total, err)
		}
		rest, _, err := tx.ListMessages(s.org, "chat_1", &app.MessageCursor{Seq: all[1].Seq}, 0, 2)
		if err != nil || fmt.Sprint(idsOf(rest, func(m app.Message) string { return m.ID })) != "[msg_2 msg_3]" {
			t.Errorf("after msg_1: %v (%v)", idsOf(rest, func(m app.Message) string { return m.ID }), err)
		}
		end, _, err := tx.ListMessages(s.org, "chat_1", &app.MessageCursor{Seq: all[4].Seq}, 0, 2)
		if err != nil || end == nil || len(end) != 0 {
			t.Errorf("after the last: %v (%v)", end, err)
		}
		m, err := tx.InFlightMessage(s.org, "chat_1")
		if err != nil || m.ID != "msg_run" {
			t.Errorf("in flight %s (%v)", m.ID, err)
		}
		return nil
	})
	run := message("chat_1", "msg_run", "assistant", "COMPLETED", "", "the answer", 21)
	var textOK, finalOK, lateText, lateFinal bool
	write(t, s.db, func(tx app.Tx) (err error) {
		if textOK, err = tx.UpdateRunText(s.org, "msg_run", run.Messages, "partial", at(21)); err != nil {
			return err
		}
		if finalOK, err = tx.UpdateRunMessage(s.org, run); err != nil {
			return err
		}
		if lateText, err = tx.UpdateRunText(s.org, "msg_run", nil, "late", at(22)); err != nil {
			return err
		}
		if lateFinal, err = tx.UpdateRunMessage(s.org, run); err != nil {
			return err
		}
		return firstErr(tx.FollowLastMessage(s.org, "chat_1", "msg_0", "FAILED", at(23)), // not the last: no change
			tx.FollowLastMessage(s.org, "chat_1", "msg_run", "ANSWERED", at(24)))
	})
	if !textOK || !finalOK || lateText || lateFinal {
		t.Errorf("run writes while running %v %v, after %v %v", textOK, finalOK, lateText, lateFinal)
	}
	read(t, s.db, func(tx app.Tx) error {
		m, err := tx.GetMessage(s.org, "chat_1", "msg_run")
		c, err2 := tx.GetChatRow(s.org, "chat_1")
		if firstErr(err, err2) != nil || m.Status != "COMPLETED" || m.Text != "the answer" || c.Status != "ANSWERED" || !c.UpdatedAt.Equal(at(24).Time) {
			t.Errorf("message %s %q, chat %s at %v (%v %v)", m.Status, m.Text, c.Status, c.UpdatedAt, err, err2)
		}
		if _, err := tx.InFlightMessage(s.org, "chat_1"); code(err) != "not_found" {
			t.Errorf("in flight after the run: %v", err)
		}
		return nil
	})
	edited := message("chat_1", "msg_0", "user", "FAILED", "", "edited", 30)
	write(t, s.db, func(tx app.Tx) error { return tx.UpdateMessage(s.org, edited) })
	read(t, s.db, func(tx app.Tx) error {
		if m, err := tx.GetMessage(s.org, "chat_1", "msg_0"); err != nil || m.Status != "FAILED" || m.Text != "edited" {
			t.Errorf("updated message %+v (%v)", m, err)
		}
		return nil
	})
	if err := s.db.Write(bg, func(tx app.Tx) error { return tx.UpdateMessage("org_other", edited) }); code(err) != "not_found" {
		t.Errorf("update through another org: %v", err)
	}
}

// Chat files keep their bytes; the list searches file names literally and filters by a
// mimetype prefix.
func TestChatFiles(t *testing.T) {
	t.Parallel()
	s := newChatScene(t)
	file := func(id, name, mime string, sec int) app.ChatFile {
		return app.ChatFile{Audio: app.Audio{ID: id, FileFilename: name, FileMimetype: mime, FileSize: 3, FilePath: "/p/" + id,
			FileURL: "https://example.com/" + id, CreatedAt: at(sec)}, ChatID: "chat_1", Data: []byte("abc")}
	}
	write(t, s.db, func(tx app.Tx) error {
		return firstErr(tx.CreateFile(s.org, file("file_1", "photo_1.png", "image/png", 1)),
			tx.CreateFile(s.org, file("file_2", "photo.jpg", "image/jpeg", 2)), tx.CreateFile(s.org, file("file_3", "notes.txt", "text/plain", 3)))
	})
	read(t, s.db, func(tx app.Tx) error {
		f, err := tx.GetFile(s.org, "chat_1", "file_2")
		if err != nil || string(f.Data) != "abc" || f.FileFilename != "photo.jpg" || f.MessageID != "" || f.FileURL != "https://example.com/file_2" {
			t.Errorf("file %+v (%v)", f, err)
		}
		if _, err := tx.GetFile(s.org, "chat_2", "file_2"); code(err) != "not_found" {
			t.Errorf("file through another chat: %v", err)
		}
		for _, c := range []struct{ search, mime, want string }{
			{"", "", "[file_3 file_2 file_1]"}, {"", "image/", "[file_2 file_1]"}, {"_", "", "[file_1]"}, {"photo", "image/jpeg", "[file_2]"},
		} {
			fs, total, err := tx.ListFiles(s.org, "chat_1", c.search, c.mime, app.Page{Page: 1, Take: 10})
			ids := idsOf(fs, func(f app.ChatFile) string { return f.ID })
			if err != nil || fmt.Sprint(ids) != c.want || total != len(ids) {
				t.Errorf("search %q mime %q: %v total %d (%v)", c.search, c.mime, ids, total, err)
			}
		}
		return nil
	})
}
