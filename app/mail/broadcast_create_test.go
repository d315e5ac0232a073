package mail_test

import (
	"slices"
	"strings"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
)

func TestBroadcastCreateValidation(t *testing.T) {
	t.Parallel()
	s := newEmailSetup(t)
	e := s.e
	c := s.contact(t, "Ann", "ann@dest.test")
	var seg app.Segment
	e.Do("POST", "/orgs/c/segments", e.AdminKey, map[string]any{"name": "All"}).Expect(201).JSON(&seg)
	base := func(change map[string]any) map[string]any {
		m := map[string]any{"name": "Launch", "integration_id": "email", "identity_id": s.identity.ID, "subject": "Hi",
			"text": "Hello", "contact_ids": []string{c.ID}}
		for k, v := range change {
			if v == nil {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		return m
	}
	bad := []struct {
		change map[string]any
		field  string
	}{
		{map[string]any{"integration_id": "sms"}, "integration_id"},
		{map[string]any{"integration_id": "nope"}, "integration_id"},
		{map[string]any{"integration_id": nil}, "integration_id"},
		{map[string]any{"identity_id": nil}, "identity_id"},
		{map[string]any{"identity_id": ""}, "identity_id"},
		{map[string]any{"contact_ids": nil}, "segment_ids"},
		{map[string]any{"contact_ids": []string{}, "segment_ids": []string{}}, "segment_ids"},
		{map[string]any{"segment_ids": []string{"seg_unknown"}}, "segment_ids"},
		{map[string]any{"subject": nil}, "subject"},
		{map[string]any{"subject": "Hi\r\nBcc: evil@example.com"}, "subject"},
		{map[string]any{"text": nil}, "text"},
		{map[string]any{"name": ""}, "name"},
		{map[string]any{"name": strings.Repeat("n", 256)}, "name"},
		{map[string]any{"surprise": 1}, "surprise"},
	}
	for _, b := range bad {
		e.DoInvalid("POST", "/orgs/c/broadcasts", e.AdminKey, base(b.change)).ExpectError(400, "invalid_argument", b.field)
	}
	// Several problems at once are all named.
	e.DoInvalid("POST", "/orgs/c/broadcasts", e.AdminKey, map[string]any{"integration_id": "email"}).
		ExpectError(400, "invalid_argument", "name", "identity_id", "subject", "text", "segment_ids")
	e.Do("POST", "/orgs/c/broadcasts", e.AdminKey, base(map[string]any{"contact_ids": []string{"ct_unknown"}})).ExpectError(404, "not_found")
	e.Do("POST", "/orgs/c/broadcasts", e.AdminKey, base(map[string]any{"identity_id": "eid_unknown"})).ExpectError(404, "not_found")
	// Another organization's contact, segment and identity are unknown here.
	_, otherKey := e.OrgWithAdmin("Other")
	e.Do("POST", "/orgs/c/broadcasts", otherKey, base(map[string]any{"integration_id": "custom", "identity_id": nil})).ExpectError(404, "not_found")
	e.Do("POST", "/orgs/c/broadcasts", otherKey, base(map[string]any{"integration_id": "custom", "identity_id": nil,
		"contact_ids": nil, "segment_ids": []string{seg.ID}})).ExpectError(400, "invalid_argument", "segment_ids")
	e.Do("POST", "/orgs/c/broadcasts", otherKey, base(map[string]any{"contact_ids": nil, "segment_ids": []string{}})).
		ExpectError(400, "invalid_argument", "segment_ids")
	// No broadcast was made by any of these.
	if l := e.Do("GET", "/orgs/c/broadcasts", e.AdminKey, nil).Expect(200).List(); len(l) != 0 {
		t.Fatalf("broadcasts after refusals: %v", l)
	}
	// internal and custom need no identity.
	e.Do("POST", "/orgs/c/broadcasts", e.AdminKey, base(map[string]any{"integration_id": "internal", "identity_id": nil, "subject": nil})).Expect(201)
	e.Do("POST", "/orgs/c/broadcasts", e.AdminKey, base(map[string]any{"integration_id": "custom", "identity_id": nil})).Expect(201)
}

func TestBroadcastRecipientsComputedAtCreate(t *testing.T) {
	t.Parallel()
	s := newEmailSetup(t, manyRequests)
	e := s.e
	var seg app.Segment
	e.Do("POST", "/orgs/c/segments", e.AdminKey, map[string]any{"name": "Fans"}).Expect(201).JSON(&seg)
	mk := func(name string, segs []string, channels ...map[string]string) app.Contact {
		var c app.Contact
		e.Do("POST", "/orgs/c/contacts", e.AdminKey, map[string]any{"name": name, "segment_ids": orEmpty(segs), "channels": channels}).Expect(201).JSON(&c)
		return c
	}
	both := mk("Both", []string{seg.ID}, map[string]string{"type": "email", "email": "both@dest.test"})
	mk("SegOnly", []string{seg.ID}, map[string]string{"type": "email", "email": "seg@dest.test", "user_id": "u-seg", "username": "segger"})
	mk("Custom", []string{seg.ID}, map[string]string{"type": "custom", "email": "custom@dest.test", "phone": "+1 555 0100"})
	phoneOnly := mk("PhoneOnly", []string{seg.ID}, map[string]string{"type": "custom", "phone": "+1 555 0101"})
	whatsapp := mk("Whatsapp", nil, map[string]string{"type": "whatsapp", "phone": "+1 555 0102"})
	twoChannels := mk("Two", nil, map[string]string{"type": "custom", "email": "first@dest.test"},
		map[string]string{"type": "email", "email": "second@dest.test"})

	var b app.Broadcast
	e.Do("POST", "/orgs/c/broadcasts", e.AdminKey, map[string]any{"name": "Launch", "integration_id": "email",
		"identity_id": s.identity.ID, "subject": "Hi", "text": "Hello", "segment_ids": []string{seg.ID},
		"contact_ids": []string{both.ID, whatsapp.ID, twoChannels.ID}}).Expect(201).JSON(&b)
	if b.Counts.Recipients != 4 || b.IntegrationID != "email" || *b.IdentityID != s.identity.ID {
		t.Fatalf("broadcast %+v", b)
	}
	waitBroadcast(t, e, b.ID, app.BroadcastSent)
	l := recipients(t, e, "broadcast_id="+b.ID)
	var emails []string
	for _, r := range l {
		emails = append(emails, str(r, "email"))
	}
	slices.Sort(emails)
	if !slices.Equal(emails, []string{"both@dest.test", "custom@dest.test", "second@dest.test", "seg@dest.test"}) {
		t.Fatalf("recipients %v", emails)
	}
	_ = phoneOnly
	seg1 := recipientOf(t, e, b.ID, "seg@dest.test")
	if seg1["user_id"] != "u-seg" || seg1["username"] != "segger" || seg1["name"] != "SegOnly" || seg1["phone"] != nil ||
		seg1["broadcast_name"] != "Launch" || seg1["integration_id"] != "email" {
		t.Fatalf("recipient %v", seg1)
	}
	cr := recipientOf(t, e, b.ID, "custom@dest.test")
	if cr["phone"] != "+1 555 0100" || cr["user_id"] != nil || cr["username"] != nil {
		t.Fatalf("custom recipient %v", cr)
	}

	// A custom broadcast goes to custom channels only; an internal one to internal channels.
	var cb, ib app.Broadcast
	e.Do("POST", "/orgs/c/broadcasts", e.AdminKey, map[string]any{"name": "C", "integration_id": "custom", "text": "x",
		"segment_ids": []string{seg.ID}, "contact_ids": []string{twoChannels.ID, whatsapp.ID}}).Expect(201).JSON(&cb)
	var got []string
	for _, r := range recipients(t, e, "broadcast_id="+cb.ID) {
		got = append(got, r["contact"].(map[string]any)["name"].(string))
	}
	slices.Sort(got)
	if cb.Counts.Recipients != 3 || !slices.Equal(got, []string{"Custom", "PhoneOnly", "Two"}) {
		t.Fatalf("custom recipients %v (%+v)", got, cb.Counts)
	}
	if r := recipients(t, e, "broadcast_id="+cb.ID+"&contact_id="+twoChannels.ID); len(r) != 1 || r[0]["email"] != "first@dest.test" {
		t.Fatalf("custom broadcast picks the custom channel: %v", r)
	}
	e.Do("POST", "/orgs/c/broadcasts", e.AdminKey, map[string]any{"name": "I", "integration_id": "internal", "text": "x",
		"segment_ids": []string{seg.ID}}).Expect(201).JSON(&ib)
	if ib.Counts.Recipients != 0 || ib.Status != app.BroadcastFailed || ib.Error == nil ||
		*ib.Error != "no recipient: none of the target contacts has a channel of the internal integration" {
		t.Fatalf("internal broadcast without targets %+v", ib)
	}
}

// TestBroadcastWithNoRecipientSaysSo: a custom broadcast none of whose target contacts has a
// custom channel is FAILED at once, says why in error (on create, get and list alike) and
// fires broadcast.failed, rather than reading SENT with nothing sent.
func TestBroadcastWithNoRecipientSaysSo(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	rcv := apitest.NewReceiver(t)
	e.Webhook(e.AdminKey, "c", rcv.URL, app.EventBroadcastFailed)
	var ct app.Contact
	e.Do("POST", "/orgs/c/contacts", e.AdminKey, map[string]any{"name": "Mail only",
		"channels": []map[string]any{{"type": "email", "email": "only@dest.test"}}}).Expect(201).JSON(&ct)
	var b app.Broadcast
	e.Do("POST", "/orgs/c/broadcasts", e.AdminKey, map[string]any{"name": "Nobody", "integration_id": "custom", "text": "x",
		"contact_ids": []string{ct.ID}}).Expect(201).JSON(&b)
	const why = "no recipient: none of the target contacts has a channel of the custom integration"
	if b.Status != app.BroadcastFailed || b.Counts.Recipients != 0 || b.Error == nil || *b.Error != why {
		t.Fatalf("created %+v", b)
	}
	var got app.Broadcast
	e.Do("GET", "/orgs/c/broadcasts/"+b.ID, e.AdminKey, nil).Expect(200).JSON(&got)
	var list []app.Broadcast
	e.Do("GET", "/orgs/c/broadcasts", e.AdminKey, nil).Expect(200).JSON(&list)
	if got.Error == nil || *got.Error != why || len(list) != 1 || list[0].Error == nil || *list[0].Error != why {
		t.Fatalf("read back %+v, listed %+v", got, list)
	}
	env := rcv.WaitEnvelope(t, 1)
	if data, _ := env["data"].(map[string]any); env["type"] != app.EventBroadcastFailed || data["id"] != b.ID || data["error"] != why {
		t.Fatalf("event %v", env)
	}
}

func TestBroadcastRecipientShape(t *testing.T) {
	t.Parallel()
	s := newEmailSetup(t)
	e := s.e
	c := customContact(t, e, "Ann", "ann@dest.test")
	var b app.Broadcast
	e.Do("POST", "/orgs/c/broadcasts", e.AdminKey, map[string]any{"name": "Shape", "integration_id": "custom", "text": "x",
		"contact_ids": []string{c.ID}}).Expect(201).JSON(&b)
	l := recipients(t, e, "broadcast_id="+b.ID)
	if len(l) != 1 {
		t.Fatalf("recipients %v", l)
	}
	r := l[0]
	for _, f := range recipientFields {
		if _, ok := r[f]; !ok {
			t.Fatalf("recipient lacks %s: %v", f, r)
		}
	}
	for _, f := range keys(r) {
		if !slices.Contains(recipientFields, f) && !slices.Contains([]string{"contact", "click_count", "last_clicked_at"}, f) {
			t.Fatalf("recipient has undocumented field %s", f)
		}
	}
	for _, flag := range app.RecipientFlags {
		if r["is_"+flag] != nil || r["is_"+flag+"_at"] != nil {
			t.Fatalf("flag %s set on a new recipient: %v", flag, r)
		}
	}
	now := app.At(e.Clock.Now()).String()
	if r["status"] != "SENDING" || r["error_message"] != nil || r["external_message_id"] != nil || r["broadcast_id"] != b.ID ||
		r["broadcast_name"] != "Shape" || r["integration_id"] != "custom" || r["email"] != "ann@dest.test" || r["name"] != "Ann" ||
		r["user_id"] != nil || r["username"] != nil || r["phone"] != nil || r["created_at"] != now || r["updated_at"] != now ||
		!strings.HasPrefix(str(r, "id"), "rcpt_") {
		t.Fatalf("recipient %v", r)
	}
	ct, _ := r["contact"].(map[string]any)
	if ct["id"] != c.ID || ct["name"] != "Ann" || ct["unsubscribed"] != false || len(ct["channels"].([]any)) != 1 {
		t.Fatalf("recipient contact %v", ct)
	}
	// The event route answers the same shape; a deleted contact leaves the record without it.
	ev := e.Do("POST", "/orgs/c/broadcasts/recipients/"+str(r, "id")+"/events", e.AdminKey, map[string]any{"type": "delivered"}).Expect(200).Map()
	for _, f := range recipientFields {
		if _, ok := ev[f]; !ok {
			t.Fatalf("event answer lacks %s: %v", f, ev)
		}
	}
	e.Do("DELETE", "/orgs/c/contacts/"+c.ID, e.AdminKey, nil).Expect(204)
	r = recipients(t, e, "broadcast_id="+b.ID)[0]
	if _, ok := r["contact"]; ok || r["email"] != "ann@dest.test" || r["is_delivered"] != true || r["status"] != "PROCESSED" {
		t.Fatalf("recipient of a deleted contact %v", r)
	}
}
