package mail_test

import (
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

// customBroadcast makes a custom broadcast to contacts with custom channels carrying emails.
func customBroadcast(t *testing.T, e *apitest.Env, emails ...string) (app.Broadcast, map[string]app.Contact) {
	t.Helper()
	cs := map[string]app.Contact{}
	var ids []string
	for _, em := range emails {
		c := customContact(t, e, strings.Split(em, "@")[0], em)
		cs[em] = c
		ids = append(ids, c.ID)
	}
	var b app.Broadcast
	e.Do("POST", "/orgs/c/broadcasts", e.AdminKey, map[string]any{"name": "Custom", "integration_id": "custom", "text": "x",
		"contact_ids": ids}).Expect(201).JSON(&b)
	return b, cs
}

func postEvent(e *apitest.Env, id string, body map[string]any) *apitest.Response {
	return e.Do("POST", "/orgs/c/broadcasts/recipients/"+id+"/events", e.AdminKey, body)
}

// badEvent is postEvent of a body that breaks the document on purpose.
func badEvent(e *apitest.Env, id string, body map[string]any) *apitest.Response {
	return e.DoInvalid("POST", "/orgs/c/broadcasts/recipients/"+id+"/events", e.AdminKey, body)
}

func TestRecipientEventsSetEachFlagOnce(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	rcv := apitest.NewReceiver(t)
	e.Webhook(e.AdminKey, "c", rcv.URL, app.EventBroadcastBounced, app.EventBroadcastComplained, app.EventContactUnsubscribed, app.EventBroadcastFailed)
	types := []string{"sent", "delivered", "bounced", "complained", "opened", "played", "failed", "unsubscribed"}
	var emails []string
	for _, typ := range types {
		emails = append(emails, typ+"@dest.test")
	}
	b, _ := customBroadcast(t, e, emails...)
	at := app.At(apitest.Start.Add(-time.Hour)) // the provider's time, before the record was made
	for i, typ := range types {
		e.Clock.Advance(time.Second)
		r := recipientOf(t, e, b.ID, emails[i])
		if r["status"] != "SENDING" {
			t.Fatalf("custom recipient before any event %v", r)
		}
		got := postEvent(e, str(r, "id"), map[string]any{"type": typ, "reason": "provider says " + typ, "message_id": "<m-" + typ + ">",
			"at": at.String()}).Expect(200).Map()
		now := app.At(e.Clock.Now()).String()
		if got["is_"+typ] != true || got["is_"+typ+"_at"] != at.String() || got["updated_at"] != now {
			t.Fatalf("%s: %v", typ, got)
		}
		for _, other := range app.RecipientFlags {
			if other != typ && !(other == "unsubscribed" && (typ == "bounced" || typ == "complained")) && got["is_"+other] != nil {
				t.Fatalf("%s also set %s: %v", typ, other, got)
			}
		}
		if got["status"] != "PROCESSED" || got["external_message_id"] != "<m-"+typ+">" {
			t.Fatalf("%s: recipient not settled: %v", typ, got)
		}
		if typ == "failed" && got["error_message"] != "provider says failed" {
			t.Fatalf("failed: %v", got)
		}
		if typ != "failed" && got["error_message"] != nil {
			t.Fatalf("%s: error_message %v", typ, got)
		}
		// A repeat changes nothing.
		e.Clock.Advance(time.Second)
		again := postEvent(e, str(r, "id"), map[string]any{"type": typ, "at": app.At(e.Clock.Now()).String()}).Expect(200).Map()
		if again["updated_at"] != now || again["is_"+typ+"_at"] != at.String() || again["error_message"] != got["error_message"] {
			t.Fatalf("%s repeated: %v", typ, again)
		}
	}
	// Every recipient has an outcome, one of them failed: the broadcast is SENT.
	done := waitBroadcast(t, e, b.ID, app.BroadcastSent)
	if done.Counts.Processed != 8 || done.Counts.Failed != 1 || done.Counts.Bounced != 1 || done.Counts.Complained != 1 ||
		done.Counts.Unsubscribed != 3 || done.Counts.Sent != 1 || done.Counts.Delivered != 1 || done.Counts.Opened != 1 {
		t.Fatalf("counts %+v", done.Counts)
	}
	// One webhook per first event: bounced, complained, and three unsubscriptions.
	waitEvents(t, rcv, app.EventContactUnsubscribed, 3)
	rcv.Quiet(t, 5, 200*time.Millisecond)
	if n := len(events(rcv, app.EventBroadcastFailed)); n != 0 {
		t.Fatalf("%d broadcast.failed", n)
	}
}

func TestBounceAndComplaintSuppressAndUnsubscribe(t *testing.T) {
	t.Parallel()
	s := newEmailSetup(t)
	e := s.e
	rcv := apitest.NewReceiver(t)
	e.Webhook(e.AdminKey, "c", rcv.URL, app.EventBroadcastBounced, app.EventBroadcastComplained, app.EventContactUnsubscribed)
	bo, co := s.contact(t, "Bo", "Bo@Dest.test"), s.contact(t, "Co", "co@dest.test")
	b := s.broadcast(t, bo, co)
	waitBroadcast(t, e, b.ID, app.BroadcastSent)
	rb, rc := recipientOf(t, e, b.ID, "Bo@Dest.test"), recipientOf(t, e, b.ID, "co@dest.test")

	postEvent(e, str(rb, "id"), map[string]any{"type": "bounced", "reason": "550 5.1.1 user unknown"}).Expect(200)
	bounced := waitEvents(t, rcv, app.EventBroadcastBounced, 1)[0]
	want := map[string]any{"broadcast_id": b.ID, "email": "Bo@Dest.test", "message_id": rb["external_message_id"],
		"reason": "550 5.1.1 user unknown", "contact_id": bo.ID}
	for k, v := range want {
		if bounced[k] != v {
			t.Fatalf("broadcast.bounced %s = %v, want %v (%v)", k, bounced[k], v, bounced)
		}
	}
	unsub := waitEvents(t, rcv, app.EventContactUnsubscribed, 1)[0]
	if unsub["id"] != bo.ID || unsub["unsubscribed"] != true || unsub["unsubscribe_reason"] != "bounce" {
		t.Fatalf("contact.unsubscribed %v", unsub)
	}
	var c app.Contact
	e.Do("GET", "/orgs/c/contacts/"+bo.ID, e.AdminKey, nil).Expect(200).JSON(&c)
	if !c.Unsubscribed || c.UnsubscribeReason == nil || *c.UnsubscribeReason != "bounce" {
		t.Fatalf("contact %+v", c)
	}
	l := e.Do("GET", "/orgs/c/suppressions?search=bo@dest", e.AdminKey, nil).Expect(200).List()
	if len(l) != 1 || l[0]["email"] != "bo@dest.test" || l[0]["reason"] != "bounce" {
		t.Fatalf("suppressions %v", l)
	}
	r := recipientOf(t, e, b.ID, "Bo@Dest.test")
	if r["is_bounced"] != true || r["is_unsubscribed"] != true || r["is_sent"] != true || r["status"] != "PROCESSED" {
		t.Fatalf("bounced recipient %v", r)
	}

	postEvent(e, str(rc, "id"), map[string]any{"type": "complained", "reason": "abuse", "message_id": "<fbl-1>"}).Expect(200)
	comp := waitEvents(t, rcv, app.EventBroadcastComplained, 1)[0]
	if comp["email"] != "co@dest.test" || comp["message_id"] != "<fbl-1>" || comp["reason"] != "abuse" || comp["contact_id"] != co.ID {
		t.Fatalf("broadcast.complained %v", comp)
	}
	if _, ok := comp["broadcast_id"]; ok {
		t.Fatalf("broadcast.complained shows broadcast_id: %v", comp)
	}
	waitEvents(t, rcv, app.EventContactUnsubscribed, 2)
	e.Do("GET", "/orgs/c/contacts/"+co.ID, e.AdminKey, nil).Expect(200).JSON(&c)
	if !c.Unsubscribed || *c.UnsubscribeReason != "complaint" {
		t.Fatalf("contact %+v", c)
	}
	if l := e.Do("GET", "/orgs/c/suppressions", e.AdminKey, nil).Expect(200).List(); len(l) != 2 {
		t.Fatalf("suppressions %v", l)
	}
	// Repeats: no second event of any kind.
	postEvent(e, str(rb, "id"), map[string]any{"type": "bounced", "reason": "again"}).Expect(200)
	postEvent(e, str(rc, "id"), map[string]any{"type": "complained"}).Expect(200)
	rcv.Quiet(t, 4, 200*time.Millisecond)

	// The next broadcast skips both addresses as suppressed.
	b2 := s.broadcast(t, bo, co)
	done := waitBroadcast(t, e, b2.ID, app.BroadcastSent)
	if done.Counts.Skipped != 2 || done.Counts.Sent != 0 {
		t.Fatalf("second broadcast %+v", done.Counts)
	}
}

func TestRecipientEventValidation(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	b, _ := customBroadcast(t, e, "a@dest.test")
	r := recipientOf(t, e, b.ID, "a@dest.test")
	id := str(r, "id")
	for _, typ := range []string{"", "clicked", "SENT", "skipped"} {
		badEvent(e, id, map[string]any{"type": typ}).ExpectError(400, "invalid_argument", "type")
	}
	badEvent(e, id, map[string]any{"type": "sent", "at": "yesterday"}).ExpectError(400, "invalid_argument", "at")
	badEvent(e, id, map[string]any{"type": "sent", "reason": strings.Repeat("r", 1001)}).ExpectError(400, "invalid_argument", "reason")
	badEvent(e, id, map[string]any{"type": "sent", "extra": true}).ExpectError(400, "invalid_argument", "extra")
	postEvent(e, "rcpt_nothere", map[string]any{"type": "sent"}).ExpectError(404, "not_found")
	_, otherKey := e.OrgWithAdmin("Other")
	e.Do("POST", "/orgs/c/broadcasts/recipients/"+id+"/events", otherKey, map[string]any{"type": "bounced"}).ExpectError(404, "not_found")
	if got := recipientOf(t, e, b.ID, "a@dest.test"); got["updated_at"] != r["updated_at"] || got["status"] != "SENDING" {
		t.Fatalf("recipient changed by refused events: %v", got)
	}
	// Without at, the flag carries the server's time.
	e.Clock.Advance(time.Minute)
	got := postEvent(e, id, map[string]any{"type": "delivered"}).Expect(200).Map()
	if got["is_delivered_at"] != app.At(e.Clock.Now()).String() {
		t.Fatalf("delivered %v", got)
	}
}

func TestCustomBroadcastWaitsForEvents(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	rcv := apitest.NewReceiver(t)
	e.Webhook(e.AdminKey, "c", rcv.URL, app.EventBroadcastFailed)
	b, _ := customBroadcast(t, e, "a@dest.test", "b@dest.test")
	e.WaitIdle() // the sender worker leaves custom recipients alone
	for _, r := range recipients(t, e, "broadcast_id="+b.ID) {
		if r["status"] != "SENDING" || r["is_sent"] != nil || r["is_skipped"] != nil || r["is_failed"] != nil {
			t.Fatalf("custom recipient %v", r)
		}
	}
	postEvent(e, str(recipientOf(t, e, b.ID, "a@dest.test"), "id"), map[string]any{"type": "failed"}).Expect(200)
	var got app.Broadcast
	e.Do("GET", "/orgs/c/broadcasts/"+b.ID, e.AdminKey, nil).Expect(200).JSON(&got)
	if got.Status != app.BroadcastSending || got.Counts.Processed != 1 {
		t.Fatalf("broadcast after one event %+v", got)
	}
	r := postEvent(e, str(recipientOf(t, e, b.ID, "b@dest.test"), "id"), map[string]any{"type": "failed", "reason": "no route"}).Expect(200).Map()
	if r["status"] != "PROCESSED" || r["error_message"] != "no route" {
		t.Fatalf("recipient %v", r)
	}
	e.Do("GET", "/orgs/c/broadcasts/"+b.ID, e.AdminKey, nil).Expect(200).JSON(&got)
	if got.Status != app.BroadcastFailed || got.Counts.Failed != 2 {
		t.Fatalf("broadcast %+v", got)
	}
	if d := waitEvents(t, rcv, app.EventBroadcastFailed, 1)[0]; d["id"] != b.ID {
		t.Fatalf("broadcast.failed %v", d)
	}
	// An event on a finished broadcast's recipient is still recorded and fires nothing more.
	postEvent(e, str(r, "id"), map[string]any{"type": "opened"}).Expect(200)
	rcv.Quiet(t, 1, 150*time.Millisecond)
}

func TestRecipientEventBoundsNameTheirFields(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	e.DoInvalid("POST", "/orgs/c/broadcasts/recipients/rcpt_x/events", e.AdminKey, map[string]any{"type": "nope",
		"message_id": strings.Repeat("m", 999), "reason": strings.Repeat("r", 1001)}).ExpectError(400, "invalid_argument", "type", "message_id", "reason")
	e.Do("POST", "/orgs/c/broadcasts/recipients/rcpt_x/events", e.AdminKey, map[string]any{"type": "sent",
		"message_id": strings.Repeat("m", 998), "reason": strings.Repeat("r", 1000)}).ExpectError(404, "not_found")
}
