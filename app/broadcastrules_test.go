package app_test

import (
	"testing"

	"wsapi/app"
)

// recipients lists a broadcast's recipients by the contact they were made for.
func (e *domainEnv) recipients(broadcastID string) map[string]app.Recipient {
	e.t.Helper()
	l := need(e.svc.ListRecipients(e.ctx, e.org.ID, app.RecipientFilter{BroadcastID: broadcastID, SortField: "created_at"}, "",
		app.Page{Page: 1, Take: 100}))
	out := map[string]app.Recipient{}
	for _, r := range l.Items {
		out[r.ContactID] = r
	}
	return out
}

// TestBroadcastHandOverSkipsOptOuts: a broadcast on the customer's own integration (custom)
// is handed over when created: blocked and unsubscribed contacts and suppressed addresses
// are skipped at once (a suppressed one with broadcast.suppressed); contacts without a
// channel of the integration get no recipient. What the customer reports back then applies
// the opt-out rules: a bounce suppresses the address and unsubscribes the contact.
func TestBroadcastHandOverSkipsOptOuts(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	w := e.hook()
	custom := func(name string) app.Contact {
		return e.contact(name, app.ChannelProfile{Type: "custom", UserID: name, Email: name + "@example.com"})
	}
	yes := true
	ok, bounces, blocked, unsub, suppressed := custom("ok"), custom("bounces"), custom("blocked"), custom("unsub"), custom("supp")
	need(e.svc.UpdateContact(e.ctx, e.org.ID, blocked.ID, app.ContactPatch{Blocked: &yes}))
	need(e.svc.UpdateContact(e.ctx, e.org.ID, unsub.ID, app.ContactPatch{Unsubscribed: &yes}))
	need(e.svc.AddSuppression(e.ctx, e.org.ID, app.SuppressionInput{Email: "supp@example.com"}))
	mailOnly := e.contact("mail", app.ChannelProfile{Type: "email", Email: "mail@example.com"})
	targets := []string{ok.ID, bounces.ID, blocked.ID, unsub.ID, suppressed.ID, mailOnly.ID}

	b := need(e.svc.CreateBroadcast(e.ctx, e.org.ID, app.BroadcastInput{Name: "News", IntegrationID: app.IntegrationCustom,
		Text: "Hello", ContactIDs: targets}))
	if b.Status != app.BroadcastSending || b.Counts.Recipients != 5 || b.Counts.Skipped != 3 {
		t.Fatalf("broadcast %s, counts %+v", b.Status, b.Counts)
	}
	rs := e.recipients(b.ID)
	for id, skipped := range map[string]bool{ok.ID: false, bounces.ID: false, blocked.ID: true, unsub.ID: true, suppressed.ID: true} {
		_, flagged := rs[id].Flags["skipped"]
		if flagged != skipped {
			t.Errorf("recipient of %s: flags %v, want skipped %v", id, rs[id].Flags, skipped)
		}
	}
	if _, ok := rs[mailOnly.ID]; ok {
		t.Error("a contact without a custom channel got a recipient")
	}
	if n := e.events(w)[app.EventBroadcastSuppressed]; n != 1 {
		t.Fatalf("%d broadcast.suppressed events", n)
	}

	// The customer's system reports back.
	unsubBefore := e.events(w)[app.EventContactUnsubscribed]
	r := need(e.svc.RecordRecipientEvent(e.ctx, e.org.ID, rs[bounces.ID].ID, app.RecipientEventInput{Type: "bounced", Reason: "mailbox full"}))
	if r.Status != app.RecipientProcessed {
		t.Fatalf("bounced recipient %s", r.Status)
	}
	need(e.svc.RecordRecipientEvent(e.ctx, e.org.ID, rs[bounces.ID].ID, app.RecipientEventInput{Type: "bounced"})) // a repeat changes nothing
	c := need(e.svc.GetContact(e.ctx, e.org.ID, bounces.ID))
	if !c.Unsubscribed || deref(c.UnsubscribeReason) != app.ReasonBounce {
		t.Fatalf("a bounced contact: %+v", c)
	}
	if l := need(e.svc.ListSuppressions(e.ctx, e.org.ID, "bounces@", app.Page{Page: 1, Take: 10})); l.Total != 1 {
		t.Fatalf("the bounced address is not suppressed (%d)", l.Total)
	}
	ev := e.events(w)
	if ev[app.EventBroadcastBounced] != 1 || ev[app.EventContactUnsubscribed] != unsubBefore+1 {
		t.Fatalf("events after one bounce %v", ev)
	}
	need(e.svc.RecordRecipientEvent(e.ctx, e.org.ID, rs[ok.ID].ID, app.RecipientEventInput{Type: "delivered"}))
	if got := need(e.svc.GetBroadcast(e.ctx, e.org.ID, b.ID)); got.Status != app.BroadcastSent || got.Counts.Processed != 5 {
		t.Fatalf("after every recipient has an outcome: %s %+v", got.Status, got.Counts)
	}
	_, err := e.svc.RecordRecipientEvent(e.ctx, e.org.ID, rs[ok.ID].ID, app.RecipientEventInput{Type: "read"})
	wantCode(t, "unknown event type", err, app.CodeInvalidArgument, "type")
}

// TestInternalBroadcastSending: the sender claims the recipients of an internal broadcast,
// skips opted-out contacts and writes the broadcast into each other contact's chat on its
// internal channel, as a broadcast message that starts no assistant run.
func TestInternalBroadcastSending(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	internal := func(name string) app.Contact {
		return e.contact(name, app.ChannelProfile{Type: "internal", UserID: name})
	}
	ok, gone := internal("ok"), internal("gone")
	yes := true
	need(e.svc.UpdateContact(e.ctx, e.org.ID, gone.ID, app.ContactPatch{Unsubscribed: &yes}))
	seg := need(e.svc.CreateSegment(e.ctx, e.org.ID, app.SegmentInput{Name: ptr("all")}))
	need(e.svc.AddSegmentContacts(e.ctx, e.org.ID, seg.ID, []string{ok.ID, gone.ID}))
	b := need(e.svc.CreateBroadcast(e.ctx, e.org.ID, app.BroadcastInput{Name: "Note", IntegrationID: app.IntegrationInternal,
		Text: "We moved.", SegmentIDs: []string{seg.ID}}))
	claimed := need(e.svc.ClaimRecipients(e.ctx, app.ClaimRoom{Limit: 10, LookFirst: true}))
	if len(claimed) != 2 {
		t.Fatalf("claimed %d recipients", len(claimed))
	}
	for _, r := range claimed {
		e.must(e.svc.ProcessRecipient(e.ctx, r))
	}
	if again := need(e.svc.ClaimRecipients(e.ctx, app.ClaimRoom{Limit: 10})); len(again) != 0 {
		t.Fatalf("processed recipients claimed again: %d", len(again))
	}
	got := need(e.svc.GetBroadcast(e.ctx, e.org.ID, b.ID))
	if got.Status != app.BroadcastSent || got.Counts.Sent != 1 || got.Counts.Skipped != 1 {
		t.Fatalf("broadcast %s %+v", got.Status, got.Counts)
	}
	rs := e.recipients(b.ID)
	if rs[ok.ID].ExternalMessageID == nil {
		t.Fatal("the sent recipient does not name its message")
	}
	inbox := need(e.svc.Inbox(e.ctx, e.org.ID, app.InboxFilter{ContactID: ok.ID}, "", app.Page{Page: 1, Take: 10}))
	if len(inbox.Items) != 1 {
		t.Fatalf("%d chats with the contact", len(inbox.Items))
	}
	msgs := need(e.svc.ListMessages(e.ctx, e.org.ID, inbox.Items[0].ID, "", app.Page{Page: 1, Take: 10}))
	if msgs.Total != 1 || !msgs.Items[0].IsBroadcastMessage || replyOf(msgs.Items[0]) != "We moved." || msgs.Items[0].ID != *rs[ok.ID].ExternalMessageID {
		t.Fatalf("chat messages %+v", msgs.Items)
	}
	if l := need(e.svc.Inbox(e.ctx, e.org.ID, app.InboxFilter{ContactID: gone.ID}, "", app.Page{Page: 1, Take: 10})); l.Total != 0 {
		t.Fatal("an unsubscribed contact got the broadcast")
	}
	for _, c := range []struct {
		name   string
		in     app.BroadcastInput
		fields []string
	}{
		{"empty", app.BroadcastInput{}, []string{"integration_id", "name", "segment_ids", "text"}},
		{"email without identity or subject", app.BroadcastInput{Name: "x", IntegrationID: app.IntegrationEmail, Text: "t",
			ContactIDs: []string{ok.ID}}, []string{"identity_id", "subject"}},
		{"a header injection", app.BroadcastInput{Name: "x", IntegrationID: app.IntegrationEmail, IdentityID: "id_x",
			Subject: "Hi\r\nBcc: x@example.com", Text: "t", ContactIDs: []string{ok.ID}}, []string{"subject"}},
	} {
		_, err := e.svc.CreateBroadcast(e.ctx, e.org.ID, c.in)
		wantCode(t, c.name, err, app.CodeInvalidArgument, c.fields...)
	}
	_, err := e.svc.CreateBroadcast(e.ctx, e.org.ID, app.BroadcastInput{Name: "x", IntegrationID: app.IntegrationInternal,
		Text: "t", ContactIDs: []string{"ct_nope"}})
	wantCode(t, "an unknown contact", err, app.CodeNotFound)
}
