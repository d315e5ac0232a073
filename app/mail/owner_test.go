package mail_test

import (
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

// recipientContactID reads the id of the contact a recipient shows ("" when null).
func recipientContactID(r map[string]any) string {
	c, _ := r["contact"].(map[string]any)
	id, _ := c["id"].(string)
	return id
}

// TestMergedContactTakesItsRecipients merges X into Y after a broadcast went to X: the
// recipient now shows Y, and a bounce and a complaint reach Y (unsubscribed, with
// contact.unsubscribed) and name Y in their events.
func TestMergedContactTakesItsRecipients(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	rcv := apitest.NewReceiver(t)
	e.Webhook(e.AdminKey, "c", rcv.URL, app.EventBroadcastBounced, app.EventBroadcastComplained, app.EventContactUnsubscribed)
	b, cs := customBroadcast(t, e, "x@dest.test", "x2@dest.test")
	x, x2 := cs["x@dest.test"], cs["x2@dest.test"]
	y := customContact(t, e, "Y", "y@dest.test")
	e.Do("POST", "/orgs/c/contacts/merge", e.AdminKey, map[string]any{"source_contact_id": x.ID, "target_contact_id": y.ID}).Expect(200)

	r := recipientOf(t, e, b.ID, "x@dest.test")
	if got := recipientContactID(r); got != y.ID {
		t.Fatalf("recipient of the merged contact shows contact %q, want %s: %v", got, y.ID, r)
	}
	if l := recipients(t, e, "contact_id="+y.ID); len(l) != 1 || l[0]["id"] != r["id"] {
		t.Fatalf("recipients filtered by the surviving contact: %v", l)
	}
	postEvent(e, str(r, "id"), map[string]any{"type": "bounced", "reason": "550"}).Expect(200)
	bounced := waitEvents(t, rcv, app.EventBroadcastBounced, 1)[0]
	if bounced["contact_id"] != y.ID {
		t.Fatalf("broadcast.bounced contact_id %v, want %s", bounced["contact_id"], y.ID)
	}
	unsub := waitEvents(t, rcv, app.EventContactUnsubscribed, 1)[0]
	if unsub["id"] != y.ID || unsub["unsubscribe_reason"] != "bounce" {
		t.Fatalf("contact.unsubscribed %v", unsub)
	}
	var got app.Contact
	e.Do("GET", "/orgs/c/contacts/"+y.ID, e.AdminKey, nil).Expect(200).JSON(&got)
	if !got.Unsubscribed {
		t.Fatalf("the surviving contact is not unsubscribed: %+v", got)
	}

	// X2 merges into a fresh contact Z; its complaint reaches Z.
	z := customContact(t, e, "Z", "z@dest.test")
	e.Do("POST", "/orgs/c/contacts/merge", e.AdminKey, map[string]any{"source_contact_id": x2.ID, "target_contact_id": z.ID}).Expect(200)
	postEvent(e, str(recipientOf(t, e, b.ID, "x2@dest.test"), "id"), map[string]any{"type": "complained"}).Expect(200)
	if comp := waitEvents(t, rcv, app.EventBroadcastComplained, 1)[0]; comp["contact_id"] != z.ID {
		t.Fatalf("broadcast.complained %v, want contact_id %s", comp, z.ID)
	}
	if unsub := waitEvents(t, rcv, app.EventContactUnsubscribed, 2); unsub[1]["id"] != z.ID && unsub[0]["id"] != z.ID {
		t.Fatalf("contact.unsubscribed %v", unsub)
	}
}

// TestBounceOfADeletedContactNamesNoContact deletes a recipient's contact: its bounce carries
// no contact_id. A new contact that takes the address later owns it: a complaint reaches it.
func TestBounceOfADeletedContactNamesNoContact(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	rcv := apitest.NewReceiver(t)
	e.Webhook(e.AdminKey, "c", rcv.URL, app.EventBroadcastBounced, app.EventBroadcastComplained, app.EventContactUnsubscribed)
	b, cs := customBroadcast(t, e, "gone@dest.test")
	e.Do("DELETE", "/orgs/c/contacts/"+cs["gone@dest.test"].ID, e.AdminKey, nil).Expect(204)
	r := recipientOf(t, e, b.ID, "gone@dest.test")
	if r["contact"] != nil {
		t.Fatalf("recipient of a deleted contact shows %v", r["contact"])
	}
	postEvent(e, str(r, "id"), map[string]any{"type": "bounced"}).Expect(200)
	bounced := waitEvents(t, rcv, app.EventBroadcastBounced, 1)[0]
	if id, ok := bounced["contact_id"]; ok {
		t.Fatalf("broadcast.bounced names contact %v, which is gone: %v", id, bounced)
	}
	rcv.Quiet(t, 1, 150*time.Millisecond) // no contact.unsubscribed

	again := customContact(t, e, "Again", "GONE@dest.test")
	postEvent(e, str(r, "id"), map[string]any{"type": "complained"}).Expect(200)
	if comp := waitEvents(t, rcv, app.EventBroadcastComplained, 1)[0]; comp["contact_id"] != again.ID {
		t.Fatalf("broadcast.complained %v, want contact_id %s (the address's owner now)", comp, again.ID)
	}
	if unsub := waitEvents(t, rcv, app.EventContactUnsubscribed, 1)[0]; unsub["id"] != again.ID {
		t.Fatalf("contact.unsubscribed %v", unsub)
	}
}

// TestCustomBroadcastSkipsLikeEveryIntegration: a custom broadcast skips a suppressed
// address (with broadcast.suppressed), an unsubscribed and a blocked contact, as an email one
// does; the others wait for the sending integration.
func TestCustomBroadcastSkipsLikeEveryIntegration(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	rcv := apitest.NewReceiver(t)
	e.Webhook(e.AdminKey, "c", rcv.URL, app.EventBroadcastSuppressed)
	sup := customContact(t, e, "Sup", "sup@dest.test")
	unsub := customContact(t, e, "Unsub", "unsub@dest.test")
	blocked := customContact(t, e, "Blocked", "blocked@dest.test")
	ok := customContact(t, e, "Ok", "ok@dest.test")
	e.Do("POST", "/orgs/c/suppressions", e.AdminKey, map[string]any{"email": "SUP@dest.test"}).Expect(201)
	e.Do("PATCH", "/orgs/c/contacts/"+unsub.ID, e.AdminKey, map[string]any{"unsubscribed": true}).Expect(200)
	e.Do("PATCH", "/orgs/c/contacts/"+blocked.ID, e.AdminKey, map[string]any{"blocked": true}).Expect(200)
	var b app.Broadcast
	e.Do("POST", "/orgs/c/broadcasts", e.AdminKey, map[string]any{"name": "Custom", "integration_id": "custom", "text": "x",
		"contact_ids": []string{sup.ID, unsub.ID, blocked.ID, ok.ID}}).Expect(201).JSON(&b)
	if b.Counts.Skipped != 3 || b.Counts.Processed != 3 || b.Status != app.BroadcastSending {
		t.Fatalf("custom broadcast as created %+v", b)
	}
	for _, em := range []string{"sup@dest.test", "unsub@dest.test", "blocked@dest.test"} {
		if r := recipientOf(t, e, b.ID, em); r["status"] != "PROCESSED" || r["is_skipped"] != true {
			t.Fatalf("%s: %v", em, r)
		}
	}
	if r := recipientOf(t, e, b.ID, "ok@dest.test"); r["status"] != "SENDING" || r["is_skipped"] != nil {
		t.Fatalf("ok: %v", r)
	}
	d := waitEvents(t, rcv, app.EventBroadcastSuppressed, 1)[0]
	if d["email"] != "sup@dest.test" || d["contact_id"] != sup.ID || d["reason"] != "suppressed" {
		t.Fatalf("broadcast.suppressed %v", d)
	}
	// Every recipient skipped: the broadcast is done at once.
	var all app.Broadcast
	e.Do("POST", "/orgs/c/broadcasts", e.AdminKey, map[string]any{"name": "All", "integration_id": "custom", "text": "x",
		"contact_ids": []string{unsub.ID, blocked.ID}}).Expect(201).JSON(&all)
	if all.Status != app.BroadcastSent || all.Counts.Skipped != 2 {
		t.Fatalf("all skipped %+v", all)
	}
}
