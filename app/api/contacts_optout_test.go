package api_test

import (
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

func TestPatchBlockedSetsTimestampAndEmitsOnce(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	rcv := apitest.NewReceiver(t)
	hook := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked, app.EventContactUnsubscribed)
	id := ctNamed(e, "Troll", map[string]any{"type": "email", "email": "troll@example.com"})
	path := "/orgs/c/contacts/" + id

	e.Clock.Advance(time.Minute)
	blockedAt := app.At(e.Clock.Now()).String()
	c := e.Do("PATCH", path, e.AdminKey, map[string]any{"blocked": true}).Expect(200).Map()
	apitest.ExpectShape(t, "patched contact", c, ctContactShape)
	if c["blocked"] != true || c["blocked_at"] != blockedAt || c["updated_at"] != blockedAt || c["unsubscribed"] != false {
		t.Fatalf("after blocking: %v", c)
	}
	env := rcv.WaitEnvelope(t, 1)
	if env["type"] != app.EventContactBlocked || env["org_id"] != e.Org.ID {
		t.Fatalf("envelope %v", env)
	}
	data := env["data"].(map[string]any)
	apitest.ExpectShape(t, "contact.blocked data", data, ctContactShape)
	if data["id"] != id || data["blocked"] != true || data["blocked_at"] != blockedAt || len(data["channels"].([]any)) != 1 {
		t.Errorf("contact.blocked data %v", data)
	}

	// true -> true: nothing changes, nothing is emitted.
	ctSettled(e, hook.ID, 1)
	e.Clock.Advance(time.Minute)
	c = e.Do("PATCH", path, e.AdminKey, map[string]any{"blocked": true}).Expect(200).Map()
	if c["blocked_at"] != blockedAt {
		t.Errorf("blocked_at moved on a repeated block: %v", c["blocked_at"])
	}
	rcv.Quiet(t, 1, 200*time.Millisecond)

	// true -> false clears blocked_at and emits nothing.
	c = e.Do("PATCH", path, e.AdminKey, map[string]any{"blocked": false}).Expect(200).Map()
	if c["blocked"] != false || c["blocked_at"] != nil {
		t.Errorf("after unblocking: %v", c)
	}
	if got := e.Do("GET", path, e.AdminKey, nil).Expect(200).Map(); got["blocked"] != false || got["blocked_at"] != nil {
		t.Errorf("GET after unblocking: %v", got)
	}
	rcv.Quiet(t, 1, 200*time.Millisecond)

	// Blocking again is a new false -> true change: a second event, a new blocked_at.
	e.Clock.Advance(time.Minute)
	c = e.Do("PATCH", path, e.AdminKey, map[string]any{"blocked": true, "name": "Renamed"}).Expect(200).Map()
	env = rcv.WaitEnvelope(t, 2)
	if env["type"] != app.EventContactBlocked || env["data"].(map[string]any)["blocked_at"] != c["blocked_at"] ||
		c["blocked_at"] == blockedAt || env["data"].(map[string]any)["name"] != "Renamed" {
		t.Errorf("second block: contact %v, envelope %v", c, env)
	}
	if rcv.Envelopes(t)[0]["id"] == env["id"] {
		t.Errorf("the second event reused the first event's id")
	}
}

func TestPatchUnsubscribedCarriesReasonAndFeedback(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	rcv := apitest.NewReceiver(t)
	hook := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked, app.EventContactUnsubscribed)
	id := ctNamed(e, "Reader")
	path := "/orgs/c/contacts/" + id

	e.Clock.Advance(time.Minute)
	at := app.At(e.Clock.Now()).String()
	c := e.Do("PATCH", path, e.AdminKey, map[string]any{"unsubscribed": true, "unsubscribe_reason": "too_frequent",
		"unsubscribe_feedback": "Weekly would be fine"}).Expect(200).Map()
	if c["unsubscribed"] != true || c["unsubscribed_at"] != at || c["unsubscribe_reason"] != "too_frequent" ||
		c["unsubscribe_feedback"] != "Weekly would be fine" || c["blocked"] != false {
		t.Fatalf("after unsubscribing: %v", c)
	}
	env := rcv.WaitEnvelope(t, 1)
	data := env["data"].(map[string]any)
	apitest.ExpectShape(t, "contact.unsubscribed data", data, ctContactShape)
	if env["type"] != app.EventContactUnsubscribed || data["id"] != id || data["unsubscribed"] != true ||
		data["unsubscribed_at"] != at || data["unsubscribe_reason"] != "too_frequent" || data["unsubscribe_feedback"] != "Weekly would be fine" {
		t.Fatalf("envelope %v", env)
	}

	// true -> true: no event; the timestamp stays.
	ctSettled(e, hook.ID, 1)
	e.Clock.Advance(time.Minute)
	c = e.Do("PATCH", path, e.AdminKey, map[string]any{"unsubscribed": true}).Expect(200).Map()
	if c["unsubscribed_at"] != at || c["unsubscribe_reason"] != "too_frequent" {
		t.Errorf("a repeated unsubscribe changed the opt-out: %v", c)
	}
	rcv.Quiet(t, 1, 200*time.Millisecond)

	// true -> false clears timestamp, reason and feedback; no event.
	c = e.Do("PATCH", path, e.AdminKey, map[string]any{"unsubscribed": false}).Expect(200).Map()
	if c["unsubscribed"] != false || c["unsubscribed_at"] != nil || c["unsubscribe_reason"] != nil || c["unsubscribe_feedback"] != nil {
		t.Errorf("after resubscribing: %v", c)
	}
	rcv.Quiet(t, 1, 200*time.Millisecond)

	// Without a reason the cause is "manual"; feedback stays null.
	c = e.Do("PATCH", path, e.AdminKey, map[string]any{"unsubscribed": true}).Expect(200).Map()
	if c["unsubscribe_reason"] != app.ReasonManual || c["unsubscribe_feedback"] != nil {
		t.Errorf("unsubscribe without reason: %v", c)
	}
	env = rcv.WaitEnvelope(t, 2)
	if d := env["data"].(map[string]any); env["type"] != app.EventContactUnsubscribed || d["unsubscribe_reason"] != app.ReasonManual {
		t.Errorf("second envelope %v", env)
	}

	// Blocking and unsubscribing in one PATCH emits both events.
	other := ctNamed(e, "Both")
	e.Do("PATCH", "/orgs/c/contacts/"+other, e.AdminKey, map[string]any{"blocked": true, "unsubscribed": true}).Expect(200)
	rcv.Wait(t, 4, 5*time.Second)
	types := []string{}
	for _, env := range rcv.Envelopes(t)[2:] {
		if env["data"].(map[string]any)["id"] != other {
			t.Errorf("event %v is not about %s", env, other)
		}
		types = append(types, env["type"].(string))
	}
	apitest.SameSet(t, "events of one PATCH", types, []string{app.EventContactBlocked, app.EventContactUnsubscribed})
	rcv.Quiet(t, 4, 200*time.Millisecond)
}

func TestPatchContactValidation(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	id := ctNamed(e, "Valid")
	path := "/orgs/c/contacts/" + id
	before := e.Do("GET", path, e.AdminKey, nil).Expect(200).Map()
	e.DoInvalid("PATCH", path, e.AdminKey, map[string]any{"blocked": "yes"}).ExpectError(400, "invalid_argument", "blocked")
	e.DoInvalid("PATCH", path, e.AdminKey, map[string]any{"name": ""}).ExpectError(400, "invalid_argument", "name")
	e.DoInvalid("PATCH", path, e.AdminKey, map[string]any{"is_admin": true}).ExpectError(400, "invalid_argument", "is_admin")
	long := make([]rune, 256)
	for i := range long {
		long[i] = 'é'
	}
	e.DoInvalid("PATCH", path, e.AdminKey, map[string]any{"unsubscribed": true, "unsubscribe_reason": string(long)}).
		ExpectError(400, "invalid_argument", "unsubscribe_reason")
	after := e.Do("GET", path, e.AdminKey, nil).Expect(200).Map()
	if after["unsubscribed"] != false || after["name"] != before["name"] || after["updated_at"] != before["updated_at"] {
		t.Errorf("a rejected PATCH changed the contact: %v -> %v", before, after)
	}
	e.Do("PATCH", "/orgs/c/contacts/ct_doesNotExist000000000", e.AdminKey, map[string]any{"blocked": true}).ExpectError(404, "not_found")
}
