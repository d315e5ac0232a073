package app_test

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"wsapi/app"
)

func ptr[T any](v T) *T { return &v }

// streamed counts the stream events of the organization (chatID "") or of one chat, by type.
func (e *domainEnv) streamed(chatID string) map[string]int {
	e.t.Helper()
	es := need(e.svc.StreamEventsAfter(e.ctx, e.org.ID, chatID, 0, 10000))
	n := map[string]int{}
	for _, ev := range es {
		n[ev.Type]++
	}
	return n
}

// TestContactOptOutRules: blocked and unsubscribed set and clear their dates (unsubscribe
// with the reason "manual" unless one is given); only a false -> true change emits its
// event; a reason or feedback counts only on an unsubscribed contact.
func TestContactOptOutRules(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	w := e.hook()
	c := e.contact("Ann", app.ChannelProfile{Type: "email", Email: "ann@example.com"})
	f := false
	yes := ptr(true)
	steps := []struct {
		name                string
		patch               app.ContactPatch
		blocked, unsub      bool
		blockedAtStep       int // the step whose time blocked_at holds; -1: none
		reason, feedback    string
		newBlocked, newUnsb int
	}{
		{"block", app.ContactPatch{Blocked: yes}, true, false, 0, "", "", 1, 0},
		{"block again keeps the date, no event", app.ContactPatch{Blocked: yes}, true, false, 0, "", "", 0, 0},
		{"a reason alone is ignored", app.ContactPatch{UnsubscribeReason: ptr("spam")}, true, false, 0, "", "", 0, 0},
		{"unsubscribe: manual", app.ContactPatch{Unsubscribed: yes}, true, true, 0, app.ReasonManual, "", 0, 1},
		{"reason and feedback of an unsubscribed contact",
			app.ContactPatch{UnsubscribeReason: ptr("too many"), UnsubscribeFeedback: ptr("weekly please")}, true, true, 0, "too many", "weekly please", 0, 0},
		{"resubscribe clears reason and feedback", app.ContactPatch{Unsubscribed: &f}, true, false, 0, "", "", 0, 0},
		{"unblock", app.ContactPatch{Blocked: &f}, false, false, -1, "", "", 0, 0},
		{"unsubscribe with a reason, block again", app.ContactPatch{Unsubscribed: yes, Blocked: yes, UnsubscribeReason: ptr("moved")},
			true, true, 7, "moved", "", 1, 1},
	}
	stepTime := map[int]time.Time{}
	for i, s := range steps {
		stepTime[i] = e.clock.Now()
		before := e.events(w)
		got, err := e.svc.UpdateContact(e.ctx, e.org.ID, c.ID, s.patch)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		stored := need(e.svc.GetContact(e.ctx, e.org.ID, c.ID))
		for _, x := range []app.Contact{got, stored} {
			if x.Blocked != s.blocked || x.Unsubscribed != s.unsub || deref(x.UnsubscribeReason) != s.reason ||
				deref(x.UnsubscribeFeedback) != s.feedback || x.UnsubscribedAt.IsZero() == s.unsub {
				t.Fatalf("%s: %+v", s.name, x)
			}
			if want, ok := stepTime[s.blockedAtStep]; (ok && !x.BlockedAt.Equal(want)) || (!ok && !x.BlockedAt.IsZero()) {
				t.Fatalf("%s: blocked_at %v, want the time of step %d", s.name, x.BlockedAt, s.blockedAtStep)
			}
		}
		after := e.events(w)
		if after[app.EventContactBlocked]-before[app.EventContactBlocked] != s.newBlocked ||
			after[app.EventContactUnsubscribed]-before[app.EventContactUnsubscribed] != s.newUnsb {
			t.Fatalf("%s: events %v -> %v", s.name, before, after)
		}
		e.clock.Advance(time.Minute)
	}
	if n := e.streamed("")[app.StreamContactUpdated]; n != len(steps) {
		t.Fatalf("%d contact.updated stream events for %d patches", n, len(steps))
	}
	_, err := e.svc.UpdateContact(e.ctx, e.org.ID, c.ID, app.ContactPatch{Name: ptr(" "),
		UnsubscribeReason: ptr(strings.Repeat("r", 256)), UnsubscribeFeedback: ptr(strings.Repeat("é", 1001))})
	wantCode(t, "too long", err, app.CodeInvalidArgument, "name", "unsubscribe_feedback", "unsubscribe_reason")
	_, err = e.svc.UpdateContact(e.ctx, e.org.ID, "ct_nope", app.ContactPatch{Blocked: yes})
	wantCode(t, "unknown contact", err, app.CodeNotFound)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// unsubscribe opts a contact out as the mail paths do (a bounce, a link), inside a write.
func (e *domainEnv) unsubscribe(id, reason string) app.Contact {
	e.t.Helper()
	var c app.Contact
	e.must(e.db.Write(e.ctx, func(tx app.Tx) (err error) {
		c, err = e.svc.UnsubscribeContact(tx, e.org.ID, id, reason)
		return err
	}))
	return c
}

// TestUnsubscribeContactKeepsTheFirstReason: the mail paths' unsubscribe is a no-op on a
// contact already unsubscribed.
func TestUnsubscribeContactKeepsTheFirstReason(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	w := e.hook()
	c := e.contact("Bo", app.ChannelProfile{})
	first := e.unsubscribe(c.ID, app.ReasonBounce)
	e.clock.Advance(time.Hour)
	again := e.unsubscribe(c.ID, app.ReasonComplaint)
	if deref(again.UnsubscribeReason) != app.ReasonBounce || !again.UnsubscribedAt.Equal(first.UnsubscribedAt.Time) {
		t.Fatalf("second unsubscribe changed the contact: %+v", again)
	}
	if n := e.events(w)[app.EventContactUnsubscribed]; n != 1 {
		t.Fatalf("%d contact.unsubscribed events", n)
	}
}

// TestMergeContacts: a merge moves channels, notes, memories, the segment memberships the
// target lacks and chats to the target, deletes the source, carries the earliest opt-outs
// and emits only the opt-outs new to the target; its preview answers the same and writes
// nothing.
func TestMergeContacts(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	w := e.hook()
	s1 := need(e.svc.CreateSegment(e.ctx, e.org.ID, app.SegmentInput{Name: ptr("vip")}))
	s2 := need(e.svc.CreateSegment(e.ctx, e.org.ID, app.SegmentInput{Name: ptr("beta")}))
	yes := true
	src := need(e.svc.CreateContact(e.ctx, e.org.ID, app.ContactInput{Name: "Src", SegmentIDs: []string{s1.ID, s2.ID},
		Channels: []app.ChannelInput{{ChannelProfile: app.ChannelProfile{Type: "email", Email: "src@example.com"}}}}))
	need(e.svc.UpdateContact(e.ctx, e.org.ID, src.ID, app.ContactPatch{Blocked: &yes}))
	srcBlockedAt := e.clock.Now()
	e.unsubscribe(src.ID, app.ReasonBounce)
	need(e.svc.CreateNote(e.ctx, e.admin, src.ID, app.NoteInput{Content: "called twice"}))
	need(e.svc.CreateMemory(e.ctx, e.admin, src.ID, app.MemoryInput{Type: "FACT", Importance: ptr(0.5), Content: "likes tea"}))
	chat := need(e.svc.CreateChat(e.ctx, e.admin, app.ChatInput{ContactID: src.ID}))
	e.clock.Advance(time.Hour)
	dst := need(e.svc.CreateContact(e.ctx, e.org.ID, app.ContactInput{Name: "Dst", SegmentIDs: []string{s1.ID},
		Channels: []app.ChannelInput{{ChannelProfile: app.ChannelProfile{Type: "sms", Phone: "+33 6 12 34 56 78"}}}}))
	need(e.svc.UpdateContact(e.ctx, e.org.ID, dst.ID, app.ContactPatch{Blocked: &yes}))
	e.clock.Advance(time.Hour)
	in := app.MergeInput{SourceContactID: src.ID, TargetContactID: dst.ID}
	eventsBefore := e.events(w)

	preview := need(e.svc.PreviewMerge(e.ctx, e.org.ID, in))
	wantMoves := app.MergeCounts{Channels: 1, Notes: 1, Memories: 1, Segments: 1, Chats: 1}
	if preview.Moves != wantMoves {
		t.Fatalf("preview moves %+v, want %+v", preview.Moves, wantMoves)
	}
	if still := need(e.svc.GetContact(e.ctx, e.org.ID, dst.ID)); still.Unsubscribed || len(still.Channels) != 1 {
		t.Fatalf("the preview wrote: %+v", still)
	}
	need(e.svc.GetContact(e.ctx, e.org.ID, src.ID))
	if !maps.Equal(e.events(w), eventsBefore) {
		t.Fatal("the preview emitted events")
	}

	merged := need(e.svc.MergeContacts(e.ctx, e.org.ID, in))
	for _, c := range []app.Contact{preview.Contact, merged} {
		if c.ID != dst.ID || !c.Blocked || !c.BlockedAt.Equal(srcBlockedAt) || !c.Unsubscribed ||
			deref(c.UnsubscribeReason) != app.ReasonBounce || len(c.Channels) != 2 || len(c.Segments) != 2 {
			t.Fatalf("merged contact %+v", c)
		}
	}
	_, err := e.svc.GetContact(e.ctx, e.org.ID, src.ID)
	wantCode(t, "the source after the merge", err, app.CodeNotFound)
	if got := need(e.svc.GetChat(e.ctx, e.org.ID, chat.ID)); got.ContactID != dst.ID {
		t.Fatalf("the chat stayed with %s", got.ContactID)
	}
	notes := need(e.svc.ListNotes(e.ctx, e.org.ID, dst.ID, app.Page{Page: 1, Take: 10}))
	memories := need(e.svc.ListMemories(e.ctx, e.org.ID, dst.ID, "", app.Page{Page: 1, Take: 10}))
	if notes.Total != 1 || len(memories.Items) != 1 {
		t.Fatalf("notes %d, memories %d", notes.Total, len(memories.Items))
	}
	for _, seg := range []app.Segment{s1, s2} {
		if got := need(e.svc.GetSegment(e.ctx, e.org.ID, seg.ID)); got.ContactsCount != 1 {
			t.Fatalf("segment %s counts %d contacts", seg.Name, got.ContactsCount)
		}
	}
	after := e.events(w)
	if after[app.EventContactBlocked] != eventsBefore[app.EventContactBlocked] ||
		after[app.EventContactUnsubscribed] != eventsBefore[app.EventContactUnsubscribed]+1 {
		t.Fatalf("events %v -> %v: want only contact.unsubscribed, new to the target", eventsBefore, after)
	}

	other := need(e.svc.CreateOrg(e.ctx, app.OrgInput{Name: "Other"}, ""))
	for _, c := range []struct {
		name   string
		org    string
		in     app.MergeInput
		code   app.Code
		fields []string
	}{
		{"nothing named", e.org.ID, app.MergeInput{}, app.CodeInvalidArgument, []string{"source_contact_id", "target_contact_id"}},
		{"into itself", e.org.ID, app.MergeInput{SourceContactID: dst.ID, TargetContactID: dst.ID}, app.CodeInvalidArgument, []string{"target_contact_id"}},
		{"a merged source", e.org.ID, in, app.CodeNotFound, nil},
		{"another org's contacts", other.ID, app.MergeInput{SourceContactID: dst.ID, TargetContactID: chat.ID}, app.CodeNotFound, nil},
	} {
		_, err := e.svc.MergeContacts(e.ctx, c.org, c.in)
		wantCode(t, c.name, err, c.code, c.fields...)
	}
}

// TestBulkClassifier: each item is matched by user_id, then email, then phone (normalized),
// or lands on the contact_id it names; items without a key, with a bad value, an unknown
// contact_id or a key an earlier item used are invalid with their reason. The dry run
// answers what the import does, and writes nothing.
func TestBulkClassifier(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	x := e.contact("X", app.ChannelProfile{Type: "custom", UserID: "u1"})
	y := e.contact("Y", app.ChannelProfile{Type: "email", Email: "ann@example.com"})
	z := e.contact("Z", app.ChannelProfile{Type: "sms", Phone: "+1 (555) 000-1111"})
	seg := need(e.svc.CreateSegment(e.ctx, e.org.ID, app.SegmentInput{Name: ptr("imported")}))
	items := []struct {
		item  app.BulkChannel
		class string // created, updated or the reason it is invalid
	}{
		{app.BulkChannel{UserID: "u1", Name: "Xavier"}, "updated"},
		{app.BulkChannel{Email: " ANN@example.com "}, "updated"},
		{app.BulkChannel{Phone: "15550001111"}, "updated"},
		{app.BulkChannel{Email: "new@example.com", Name: "New"}, "created"},
		{app.BulkChannel{Phone: "12"}, "phone must be 5 to 20 digits"},
		{app.BulkChannel{Name: "nobody"}, "needs one of user_id, email, phone"},
		{app.BulkChannel{Email: "not-an-email"}, "email is not an address"},
		{app.BulkChannel{UserID: "u9", ContactID: "ct_missing"}, "contact_id names no contact of this organization"},
		{app.BulkChannel{Email: "New@Example.com"}, "repeats the email of an earlier item"},
		{app.BulkChannel{UserID: "u2", ContactID: x.ID}, "updated"},
		{app.BulkChannel{Email: "z2@example.com", ContactID: z.ID}, "updated"},
		{app.BulkChannel{UserID: strings.Repeat("u", 256)}, "user_id is longer than 255 characters"},
		{app.BulkChannel{Phone: "+1 555 000 1111", ContactID: y.ID}, "repeats the phone of an earlier item"},
		{app.BulkChannel{UserID: "u3"}, "created"},
	}
	in := app.BulkInput{SegmentIDs: []string{seg.ID}}
	var want app.BulkResult
	for _, it := range items {
		in.Channels = append(in.Channels, it.item)
		switch it.class {
		case "created":
			want.Created = append(want.Created, it.item)
		case "updated":
			want.Updated = append(want.Updated, it.item)
		default:
			want.Invalid = append(want.Invalid, it.item)
			want.Errors = append(want.Errors, it.class)
		}
	}
	pg := app.Page{Page: 1, Take: 100}
	dry := need(e.svc.BulkDryRun(e.ctx, e.org.ID, in))
	if l := need(e.svc.ListContacts(e.ctx, e.org.ID, app.ContactFilter{}, pg)); l.Total != 3 {
		t.Fatalf("the dry run wrote: %d contacts", l.Total)
	}
	done := need(e.svc.BulkImport(e.ctx, e.org.ID, in))
	for name, got := range map[string]app.BulkResult{"dry run": dry, "import": done} {
		if !slices.Equal(got.Created, want.Created) || !slices.Equal(got.Updated, want.Updated) ||
			!slices.Equal(got.Invalid, want.Invalid) || !slices.Equal(got.Errors, want.Errors) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
		}
	}
	if l := need(e.svc.ListContacts(e.ctx, e.org.ID, app.ContactFilter{}, pg)); l.Total != 5 {
		t.Fatalf("%d contacts after importing 2 new ones among 3", l.Total)
	}
	// Every created or updated contact joined the segment: the 2 new, X, Y and Z.
	if got := need(e.svc.GetSegment(e.ctx, e.org.ID, seg.ID)); got.ContactsCount != 5 {
		t.Fatalf("segment holds %d contacts", got.ContactsCount)
	}
	// An update fills empty fields of the matched channel; contact_id alone adds a channel.
	gx := need(e.svc.GetContact(e.ctx, e.org.ID, x.ID))
	if len(gx.Channels) != 2 || gx.Channels[0].Name != "Xavier" || gx.Channels[1].UserID != "u2" || gx.Channels[1].Type != app.IntegrationCustom {
		t.Fatalf("X's channels %+v", gx.Channels)
	}
	if gz := need(e.svc.GetContact(e.ctx, e.org.ID, z.ID)); len(gz.Channels) != 2 {
		t.Fatalf("Z's channels %+v", gz.Channels)
	}
	created := need(e.svc.ListContacts(e.ctx, e.org.ID, app.ContactFilter{Search: "new@example.com"}, pg))
	if created.Total != 1 || created.Items[0].Name != "New" {
		t.Fatalf("search for the created contact: %+v", created.Items)
	}
}

// TestBulkLimits: the request limits of the spec, and segments of the organization only.
func TestBulkLimits(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	one := []app.BulkChannel{{UserID: "u"}}
	cases := []struct {
		name   string
		in     app.BulkInput
		fields []string
	}{
		{"no channels", app.BulkInput{}, []string{"channels"}},
		{"too many channels", app.BulkInput{Channels: make([]app.BulkChannel, app.MaxBulkChannels+1)}, []string{"channels"}},
		{"too many segments", app.BulkInput{Channels: one, SegmentIDs: make([]string, app.MaxBulkSegmentIDs+1)}, []string{"segment_ids"}},
		{"an unknown segment", app.BulkInput{Channels: one, SegmentIDs: []string{"seg_nope"}}, []string{"segment_ids"}},
	}
	for _, c := range cases {
		_, err := e.svc.BulkImport(e.ctx, e.org.ID, c.in)
		wantCode(t, c.name+" (import)", err, app.CodeInvalidArgument, c.fields...)
		_, err = e.svc.BulkDryRun(e.ctx, e.org.ID, c.in)
		wantCode(t, c.name+" (dry run)", err, app.CodeInvalidArgument, c.fields...)
	}
	if l := need(e.svc.ListContacts(e.ctx, e.org.ID, app.ContactFilter{}, app.Page{Page: 1, Take: 10})); l.Total != 0 {
		t.Fatalf("a refused import wrote %d contacts", l.Total)
	}
	_, err := e.svc.ListContacts(e.ctx, e.org.ID, app.ContactFilter{Search: "   "}, app.Page{Page: 1, Take: 10})
	wantCode(t, "blank search", err, app.CodeInvalidArgument, "search")
}
