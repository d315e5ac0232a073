package app_test

import (
	"slices"
	"testing"
	"time"

	"wsapi/app"
)

// say adds a completed text message of role to a chat as the admin.
func (e *domainEnv) say(chatID, role, text string) app.Message {
	e.t.Helper()
	return need(e.svc.AddMessage(e.ctx, e.admin, chatID, app.MessageInput{Role: role,
		Messages: []app.Turn{{Role: role, Parts: []app.Part{{Type: "text", Text: text}}}}}))
}

// chatWith starts a conversation with a new contact on a channel of type typ.
func (e *domainEnv) chatWith(name string, ch app.ChannelProfile, in app.ChatInput) app.Chat {
	e.t.Helper()
	in.ContactID = e.contact(name, ch).ID
	return need(e.svc.CreateChat(e.ctx, e.admin, in))
}

func (e *domainEnv) patch(chatID string, p app.ChatPatch) app.Chat {
	e.t.Helper()
	return need(e.svc.UpdateChat(e.ctx, e.org.ID, chatID, p))
}

func set[T any](v T) app.Optional[T] { return app.Optional[T]{Set: true, Value: v} }

func ids(chats []app.Chat) []string {
	out := []string{}
	for _, c := range chats {
		out = append(out, c.ID)
	}
	slices.Sort(out)
	return out
}

// TestInboxFilters: each filter of GET /inbox selects its chats; different questions never
// share a cached answer, the same question asked twice does, and a write makes the next
// answer a fresh read that shows it.
func TestInboxFilters(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	other := need(e.svc.CreateMember(e.ctx, e.admin, app.MemberInput{Name: "Bea", Email: "bea@example.com"}))
	seg := need(e.svc.CreateSegment(e.ctx, e.org.ID, app.SegmentInput{Name: ptr("vip")}))
	mine := e.chatWith("A", app.ChannelProfile{Type: "email", Email: "a@example.com"}, app.ChatInput{})
	e.say(mine.ID, "user", "hello there")
	e.patch(mine.ID, app.ChatPatch{AssignedUserID: set(e.admin.Member.ID)})
	e.clock.Advance(time.Second)
	closed := e.chatWith("B", app.ChannelProfile{Type: "sms", Phone: "+1 555 123 4567"}, app.ChatInput{})
	need(e.svc.AddSegmentContacts(e.ctx, e.org.ID, seg.ID, []string{closed.ContactID}))
	e.patch(closed.ID, app.ChatPatch{State: ptr("CLOSED"), CSATScore: set(2)})
	e.clock.Advance(time.Second)
	snoozed := e.chatWith("C", app.ChannelProfile{Type: "telegram", Username: "cee"}, app.ChatInput{})
	e.patch(snoozed.ID, app.ChatPatch{State: ptr("SNOOZED"), AssignedUserID: set(other.ID), CSATScore: set(5)})
	e.clock.Advance(time.Second)
	internal := need(e.svc.CreateChat(e.ctx, e.admin, app.ChatInput{}))

	cases := []struct {
		name string
		f    app.InboxFilter
		want []app.Chat
	}{
		{"everything", app.InboxFilter{}, []app.Chat{mine, closed, snoozed, internal}},
		{"ALL", app.InboxFilter{Filter: "ALL", State: "ALL", Status: "ALL", AIStatus: "ALL"}, []app.Chat{mine, closed, snoozed, internal}},
		{"unread", app.InboxFilter{Filter: "UNREAD"}, []app.Chat{mine}},
		{"unresolved", app.InboxFilter{Filter: "UNRESOLVED"}, []app.Chat{mine, snoozed, internal}},
		{"resolved", app.InboxFilter{Filter: "RESOLVED"}, []app.Chat{closed}},
		{"assigned to me", app.InboxFilter{Filter: "ASSIGNED_TO_ME", MemberID: e.admin.Member.ID}, []app.Chat{mine}},
		{"assigned to Bea", app.InboxFilter{Filter: "ASSIGNED_TO_ME", MemberID: other.ID}, []app.Chat{snoozed}},
		{"unassigned", app.InboxFilter{Filter: "UNASSIGNED"}, []app.Chat{closed, internal}},
		{"state", app.InboxFilter{State: "SNOOZED"}, []app.Chat{snoozed}},
		{"integration", app.InboxFilter{IntegrationID: "sms"}, []app.Chat{closed}},
		{"contact", app.InboxFilter{ContactID: snoozed.ContactID}, []app.Chat{snoozed}},
		{"segment", app.InboxFilter{SegmentID: seg.ID}, []app.Chat{closed}},
		{"csat at most 3", app.InboxFilter{CSATMax: 3}, []app.Chat{closed}},
		{"ai off", app.InboxFilter{AIStatus: "ENABLED"}, nil},
		{"search a phone", app.InboxFilter{Search: "5551234567"}, []app.Chat{closed}},
	}
	pg := app.Page{Page: 1, Take: 20}
	keys := map[string]string{}
	for _, c := range cases {
		l := need(e.svc.Inbox(e.ctx, e.org.ID, c.f, "", pg))
		if got, want := ids(l.Items), ids(c.want); !slices.Equal(got, want) || l.Total != len(want) {
			t.Errorf("%s: chats %v (total %d), want %v", c.name, got, l.Total, want)
		}
		if l.Stamp.Key == "" {
			t.Fatalf("%s: the answer was not cached", c.name)
		}
		if prev, ok := keys[l.Stamp.Key]; ok {
			t.Errorf("%s and %s share the cache key", c.name, prev)
		}
		keys[l.Stamp.Key] = c.name
		again := need(e.svc.Inbox(e.ctx, e.org.ID, c.f, "", pg))
		if again.Stamp != l.Stamp || !slices.Equal(ids(again.Items), ids(l.Items)) {
			t.Errorf("%s: asked again, stamp %+v then %+v", c.name, l.Stamp, again.Stamp)
		}
	}
	// A member's id is part of the question only for ASSIGNED_TO_ME.
	a := need(e.svc.Inbox(e.ctx, e.org.ID, app.InboxFilter{Filter: "UNASSIGNED", MemberID: other.ID}, "", pg))
	b := need(e.svc.Inbox(e.ctx, e.org.ID, app.InboxFilter{Filter: "UNASSIGNED", MemberID: e.admin.Member.ID}, "", pg))
	if a.Stamp != b.Stamp {
		t.Errorf("UNASSIGNED differs by member: %q vs %q", a.Stamp.Key, b.Stamp.Key)
	}
	// A write: the next answer is read at a newer version and shows it.
	unread := app.InboxFilter{Filter: "UNREAD"}
	before := need(e.svc.Inbox(e.ctx, e.org.ID, unread, "", pg))
	e.say(closed.ID, "user", "one more thing")
	after := need(e.svc.Inbox(e.ctx, e.org.ID, unread, "", pg))
	if after.Stamp.Version <= before.Stamp.Version || after.Stamp.Key != before.Stamp.Key ||
		!slices.Equal(ids(after.Items), ids([]app.Chat{mine, closed})) {
		t.Fatalf("after a message: %v at %d (before %v at %d)", ids(after.Items), after.Stamp.Version, ids(before.Items), before.Stamp.Version)
	}
	e.must(second(e.svc.MarkChatRead(e.ctx, e.org.ID, closed.ID)))
	if l := need(e.svc.Inbox(e.ctx, e.org.ID, unread, "", pg)); !slices.Equal(ids(l.Items), ids([]app.Chat{mine})) {
		t.Fatalf("unread after marking read: %v", ids(l.Items))
	}
}

// TestInboxPages: pages and cursors of the inbox are distinct questions; a cursor walk
// visits every chat once, newest activity first.
func TestInboxPages(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	var made []string
	for range 5 {
		made = append(made, need(e.svc.CreateChat(e.ctx, e.admin, app.ChatInput{})).ID)
		e.clock.Advance(time.Second)
	}
	slices.Reverse(made) // newest first
	var walked []string
	next, stamps := "", map[app.Stamp]bool{}
	for {
		l := need(e.svc.Inbox(e.ctx, e.org.ID, app.InboxFilter{}, next, app.Page{Page: 1, Take: 2}))
		if l.Total != 5 || stamps[l.Stamp] {
			t.Fatalf("page after %q: total %d, stamp %+v seen before", next, l.Total, l.Stamp)
		}
		stamps[l.Stamp] = true
		for _, c := range l.Items {
			walked = append(walked, c.ID)
		}
		if next = l.Next; next == "" {
			break
		}
	}
	if !slices.Equal(walked, made) {
		t.Fatalf("walked %v, want %v", walked, made)
	}
	p2 := need(e.svc.Inbox(e.ctx, e.org.ID, app.InboxFilter{}, "", app.Page{Page: 2, Take: 2}))
	if !slices.Equal(ids(p2.Items), ids([]app.Chat{{ID: made[2]}, {ID: made[3]}})) {
		t.Fatalf("page 2: %v", ids(p2.Items))
	}
	_, err := e.svc.Inbox(e.ctx, e.org.ID, app.InboxFilter{}, "not-a-cursor", app.Page{Page: 1, Take: 2})
	wantCode(t, "bad cursor", err, app.CodeInvalidArgument, "next")
}

// TestChatAssignment: every change of assignee emits chat.assigned (none for an internal
// chat), an unknown member is not found and changes nothing, deleting a member unassigns
// its chats, and closing a chat drops its follow-up.
func TestChatAssignment(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	w := e.hook()
	bea := need(e.svc.CreateMember(e.ctx, e.admin, app.MemberInput{Name: "Bea", Email: "Bea@Example.com"}))
	if bea.Email != "bea@example.com" || bea.Role != app.RoleMember {
		t.Fatalf("member %+v", bea)
	}
	chat := e.chatWith("A", app.ChannelProfile{Type: "whatsapp", Phone: "+44 20 7946 0000"}, app.ChatInput{})
	if chat.Link != "https://wa.me/442079460000" || chat.State.State != "OPEN" || chat.State.ChannelType != "whatsapp" {
		t.Fatalf("new chat %+v", chat)
	}
	internal := need(e.svc.CreateChat(e.ctx, e.admin, app.ChatInput{}))
	assigned := func() int { return e.events(w)[app.EventChatAssigned] }
	steps := []struct {
		name   string
		chat   string
		to     app.Optional[string]
		want   string // the assignee after
		events int    // chat.assigned emitted
		code   app.Code
	}{
		{"take", chat.ID, set(e.admin.Member.ID), e.admin.Member.ID, 1, ""},
		{"take again", chat.ID, set(e.admin.Member.ID), e.admin.Member.ID, 0, ""},
		{"hand to Bea", chat.ID, set(bea.ID), bea.ID, 1, ""},
		{"hand to nobody known", chat.ID, set("mem_nope"), bea.ID, 0, app.CodeNotFound},
		{"internal chat", internal.ID, set(bea.ID), bea.ID, 0, ""},
	}
	for _, s := range steps {
		before := assigned()
		e.clock.Advance(time.Minute)
		_, err := e.svc.UpdateChat(e.ctx, e.org.ID, s.chat, app.ChatPatch{AssignedUserID: s.to})
		if s.code != "" {
			wantCode(t, s.name, err, s.code)
		} else if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		got := need(e.svc.GetChat(e.ctx, e.org.ID, s.chat))
		if got.State.AssignedUser == nil || got.State.AssignedUser.ID != s.want || assigned()-before != s.events {
			t.Fatalf("%s: assignee %+v, %d events", s.name, got.State.AssignedUser, assigned()-before)
		}
	}
	// Deleting Bea unassigns both her chats; only the conversation emits chat.assigned.
	before := assigned()
	e.must(e.svc.DeleteMember(e.ctx, e.org.ID, bea.ID))
	for _, id := range []string{chat.ID, internal.ID} {
		if got := need(e.svc.GetChat(e.ctx, e.org.ID, id)); got.State.AssignedUser != nil || !got.State.AssignedAt.IsZero() {
			t.Fatalf("chat %s still assigned after its member left: %+v", id, got.State)
		}
	}
	if assigned()-before != 1 {
		t.Fatalf("%d chat.assigned events for the member's deletion", assigned()-before)
	}
	// Closing drops a follow-up unless the same patch sets one.
	at := app.At(e.clock.Now().Add(time.Hour))
	if c := e.patch(chat.ID, app.ChatPatch{FollowUpAt: set(at)}); !c.State.FollowUpAt.Equal(at.Time) {
		t.Fatalf("follow_up_at %v", c.State.FollowUpAt)
	}
	if c := e.patch(chat.ID, app.ChatPatch{State: ptr("CLOSED")}); !c.State.FollowUpAt.IsZero() {
		t.Fatalf("a closed chat keeps its follow-up at %v", c.State.FollowUpAt)
	}
	_, err := e.svc.UpdateChat(e.ctx, e.org.ID, chat.ID, app.ChatPatch{Visibility: ptr("OPEN"), State: ptr("DONE"),
		CSATScore: set(6), Title: set(string(make([]rune, 256)))})
	wantCode(t, "bad patch", err, app.CodeInvalidArgument, "csat_score", "state", "title", "visibility")
	_, err = e.svc.CreateChat(e.ctx, e.admin, app.ChatInput{Model: "gpt", Visibility: "SECRET"})
	wantCode(t, "bad chat", err, app.CodeInvalidArgument, "model", "visibility")
	_, err = e.svc.CreateChat(e.ctx, e.admin, app.ChatInput{ContactID: e.contact("no channel", app.ChannelProfile{}).ID})
	wantCode(t, "contact without a channel", err, app.CodeInvalidArgument, "contact_id")
	_, err = e.svc.CreateChat(e.ctx, e.admin, app.ChatInput{AssistantID: "asst_nope"})
	wantCode(t, "unknown assistant", err, app.CodeNotFound)
	// The last ADMIN of the organization stays.
	wantCode(t, "delete the last admin", e.svc.DeleteMember(e.ctx, e.org.ID, e.admin.Member.ID), app.CodeConflict)
}

// TestMessageValidation: every bad field of a message is named at once; the counters follow
// who wrote.
func TestMessageValidation(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	chat := e.chatWith("A", app.ChannelProfile{Type: "email", Email: "a@example.com"}, app.ChatInput{})
	text := []app.Turn{{Role: "user", Parts: []app.Part{{Type: "text", Text: "hi"}}}}
	cases := []struct {
		name   string
		in     app.MessageInput
		fields []string
	}{
		{"no role, no turns", app.MessageInput{}, []string{"messages", "role"}},
		{"bad status and model", app.MessageInput{Role: "user", Status: "DONE", Model: "gpt", Messages: text}, []string{"model", "status"}},
		{"turn without role, part without type", app.MessageInput{Role: "admin",
			Messages: []app.Turn{{Parts: []app.Part{{Text: "x"}}}}}, []string{"messages[0].parts[0].type", "messages[0].role"}},
		{"audio without its file", app.MessageInput{Role: "user",
			Messages: []app.Turn{{Role: "user", Parts: []app.Part{{Type: "audio"}}}}}, []string{"messages[0].parts[0].audio"}},
		{"negative usage", app.MessageInput{Role: "assistant", Messages: text,
			Usage: &app.Usage{UsageCounter: app.UsageCounter{InputTokens: -1}, Turns: []app.UsageCounter{{OutputTokens: 2e12}}}},
			[]string{"usage.input_tokens", "usage.turns[0].output_tokens"}},
	}
	for _, c := range cases {
		_, err := e.svc.AddMessage(e.ctx, e.admin, chat.ID, c.in)
		wantCode(t, c.name, err, app.CodeInvalidArgument, c.fields...)
	}
	_, err := e.svc.AddMessage(e.ctx, e.admin, chat.ID, app.MessageInput{Role: "user", Messages: text, BroadcastID: ptr("bc_nope")})
	wantCode(t, "unknown broadcast", err, app.CodeNotFound)
	_, err = e.svc.AddMessage(e.ctx, e.admin, "chat_nope", app.MessageInput{Role: "user", Messages: text})
	wantCode(t, "unknown chat", err, app.CodeNotFound)
	if l := need(e.svc.ListMessages(e.ctx, e.org.ID, chat.ID, "", app.Page{Page: 1, Take: 10})); l.Total != 0 {
		t.Fatalf("refused messages were stored: %d", l.Total)
	}
	// Who wrote decides which side's unseen count grows.
	for i, c := range []struct {
		role               string
		adminSeen, userSee int
	}{{"user", 1, 0}, {"user", 2, 0}, {"admin", 2, 1}, {"assistant", 2, 2}} {
		m := e.say(chat.ID, c.role, "text "+c.role)
		got := need(e.svc.GetChat(e.ctx, e.org.ID, chat.ID))
		if got.State.AdminUnseenCount != c.adminSeen || got.State.UserUnseenCount != c.userSee || m.Model != app.AutoModel {
			t.Fatalf("message %d (%s): counts %d/%d, model %s", i, c.role, got.State.AdminUnseenCount, got.State.UserUnseenCount, m.Model)
		}
	}
	if got := need(e.svc.MarkChatRead(e.ctx, e.org.ID, chat.ID)); got.State.AdminUnseenCount != 0 {
		t.Fatalf("read chat: %d unseen", got.State.AdminUnseenCount)
	}
	// Messages page by cursor, oldest first; a PATCH checks its fields the same way.
	first := need(e.svc.ListMessages(e.ctx, e.org.ID, chat.ID, "", app.Page{Page: 1, Take: 3}))
	rest := need(e.svc.ListMessages(e.ctx, e.org.ID, chat.ID, first.Next, app.Page{Page: 1, Take: 3}))
	if len(first.Items) != 3 || len(rest.Items) != 1 || rest.Next != "" || rest.Items[0].Role != "assistant" {
		t.Fatalf("pages of %d and %d", len(first.Items), len(rest.Items))
	}
	_, err = e.svc.UpdateMessage(e.ctx, e.org.ID, chat.ID, rest.Items[0].ID, app.MessagePatch{Status: ptr("DONE"), Messages: []app.Turn{}})
	wantCode(t, "bad message patch", err, app.CodeInvalidArgument, "messages", "status")
	failed := need(e.svc.UpdateMessage(e.ctx, e.org.ID, chat.ID, rest.Items[0].ID, app.MessagePatch{Status: ptr("FAILED"), Error: set("boom")}))
	if failed.Status != "FAILED" || deref(failed.Error) != "boom" {
		t.Fatalf("patched %+v", failed)
	}
	if got := need(e.svc.GetChat(e.ctx, e.org.ID, chat.ID)); got.Status != "FAILED" {
		t.Fatalf("the chat's status %s does not follow its last message", got.Status)
	}
}
