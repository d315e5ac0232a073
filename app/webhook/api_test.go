package webhook_test

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

func TestCreateValidatesNameAndEvents(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	rcv := apitest.NewReceiver(t)
	cases := []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"name": "h", "url": rcv.URL, "events": []string{"contact.exploded"}}, "events"},
		{map[string]any{"name": "h", "url": rcv.URL, "events": []string{app.EventContactBlocked, "nope"}}, "events"},
		{map[string]any{"name": "h", "url": rcv.URL, "events": []string{app.EventPing}}, "events"},
		{map[string]any{"name": "h", "url": rcv.URL, "events": []string{}}, "events"},
		{map[string]any{"name": "h", "url": rcv.URL}, "events"},
		{map[string]any{"url": rcv.URL, "events": []string{app.EventContactBlocked}}, "name"},
		{map[string]any{"name": "   ", "url": rcv.URL, "events": []string{app.EventContactBlocked}}, "name"},
		{map[string]any{"name": "h", "events": []string{app.EventContactBlocked}}, "url"},
		{map[string]any{"name": "h", "url": rcv.URL, "events": []string{app.EventContactBlocked}, "secret": "whsec_mine"}, "secret"},
	}
	for _, c := range cases {
		e.DoInvalid("POST", "/orgs/c/webhooks", e.AdminKey, c.body).ExpectError(400, "invalid_argument", c.field)
	}
	r := e.DoInvalid("POST", "/orgs/c/webhooks", e.AdminKey, map[string]any{"name": "h", "url": rcv.URL, "events": []string{"ping"}})
	if why := r.ErrorFields()["events"]; !strings.Contains(why, "ping") {
		t.Fatalf("fields.events %q does not explain ping", why)
	}
	var l []app.Webhook
	e.Do("GET", "/orgs/c/webhooks", e.AdminKey, nil).Expect(200).JSON(&l)
	if len(l) != 0 {
		t.Fatalf("refused creates left %d endpoints", len(l))
	}
	// PATCH validates events the same way.
	w := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	e.DoInvalid("PATCH", "/orgs/c/webhooks/"+w.ID, e.AdminKey, map[string]any{"events": []string{"ping"}}).ExpectError(400, "invalid_argument", "events")
	e.DoInvalid("PATCH", "/orgs/c/webhooks/"+w.ID, e.AdminKey, map[string]any{"events": []string{}}).ExpectError(400, "invalid_argument", "events")
}

func TestCreateAnswersFullSecretAndReadsMaskIt(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	rcv := apitest.NewReceiver(t)
	r := e.Do("POST", "/orgs/c/webhooks", e.AdminKey, map[string]any{"name": " orders ", "url": rcv.URL,
		"events": []string{app.EventContactBlocked, app.EventChatAssigned, app.EventContactBlocked}}).Expect(201)
	var w app.Webhook
	r.JSON(&w)
	raw := r.Map()
	if raw["enabled"] != true {
		t.Fatalf("create answered enabled=%v", raw["enabled"])
	}
	if !strings.HasPrefix(w.ID, "wh_") || w.Name != "orders" || w.URL != rcv.URL || w.CreatedAt.IsZero() {
		t.Fatalf("created %+v", w)
	}
	if strings.Join(w.Events, ",") != app.EventContactBlocked+","+app.EventChatAssigned {
		t.Fatalf("events %v, want the two types once each", w.Events)
	}
	// >= 24 random bytes: at least 33 base62 characters after the prefix.
	body := strings.TrimPrefix(w.Secret, app.SecretPrefix)
	if !strings.HasPrefix(w.Secret, "whsec_") || len(body) < 33 || strings.Trim(body, base62) != "" {
		t.Fatalf("secret %q, want whsec_ and at least 24 random bytes in base62", w.Secret)
	}
	w2 := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	if w2.Secret == w.Secret || w2.Secret[:12] == w.Secret[:12] {
		t.Fatalf("two endpoints share a secret (prefix): %q %q", w.Secret, w2.Secret)
	}

	masked := func(s string) {
		t.Helper()
		if s == w.Secret || !strings.HasPrefix(s, "whsec_") || !strings.HasSuffix(s, "…") ||
			len(s) >= len(w.Secret) || strings.Contains(s, body[len(body)-8:]) {
			t.Fatalf("secret %q is not masked (full %q)", s, w.Secret)
		}
	}
	var got app.Webhook
	e.Do("GET", "/orgs/c/webhooks/"+w.ID, e.AdminKey, nil).Expect(200).JSON(&got)
	masked(got.Secret)
	if got.ID != w.ID || !got.Enabled || got.Name != "orders" {
		t.Fatalf("GET %+v", got)
	}
	var l []app.Webhook
	e.Do("GET", "/orgs/c/webhooks", e.AdminKey, nil).Expect(200).JSON(&l)
	if len(l) != 2 {
		t.Fatalf("list has %d endpoints, want 2", len(l))
	}
	for _, x := range l {
		masked(x.Secret)
	}
	var patched app.Webhook
	e.Do("PATCH", "/orgs/c/webhooks/"+w.ID, e.AdminKey, map[string]any{"name": "renamed"}).Expect(200).JSON(&patched)
	masked(patched.Secret)
	// The secret is sealed at rest: neither the database file nor its WAL holds it in clear.
	path := e.Runtime.Config.DB.Path
	for _, f := range []string{path, path + "-wal"} {
		data, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if strings.Contains(string(data), body) {
			t.Fatalf("%s holds the secret in clear", f)
		}
	}
}

// The spec's seven and message.created (a reply to deliver on a custom chat, docs/channels.md).
func TestEventTypesListsEightWithoutPing(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	var types []app.EventType
	e.Do("GET", "/orgs/c/webhooks/events", e.AdminKey, nil).Expect(200).JSON(&types)
	want := []string{app.EventChatAssigned, app.EventContactBlocked, app.EventContactUnsubscribed, app.EventBroadcastFailed,
		app.EventBroadcastBounced, app.EventBroadcastComplained, app.EventBroadcastSuppressed, app.EventMessageCreated}
	if len(types) != len(want) {
		t.Fatalf("%d event types, want %d: %+v", len(types), len(want), types)
	}
	for i, et := range types {
		if et.Type != want[i] || et.Description == "" || et.Type == app.EventPing {
			t.Fatalf("event type %d: %+v, want %s with a description", i, et, want[i])
		}
	}
	// "events" is not taken for a webhook id.
	e.Do("GET", "/orgs/c/webhooks/wh_nope", e.AdminKey, nil).ExpectError(404, "not_found")
}

func TestPingIsSignedAndReportsTheAttempt(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	rcv := apitest.NewReceiver(t)
	w := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	var a app.Attempt
	r := e.Do("POST", "/orgs/c/webhooks/"+w.ID+"/test", e.AdminKey, nil).Expect(200)
	r.JSON(&a)
	if a.Status != app.AttemptSucceeded || a.ResponseCode == nil || *a.ResponseCode != 200 || a.Error != nil || a.Number != 1 {
		t.Fatalf("test answered %s", r.Body)
	}
	got := rcv.Wait(t, 1, time.Second)[0]
	if got.Header.Get("x-webhook-event") != app.EventPing || got.Header.Get("x-webhook-attempt") != "1" {
		t.Fatalf("ping headers %v", got.Header)
	}
	verify(t, w.Secret, got)
	var env app.Event
	if err := json.Unmarshal(got.Body, &env); err != nil {
		t.Fatal(err)
	}
	if env.Type != app.EventPing || env.OrgID != e.Org.ID || env.ID != got.Header.Get("x-webhook-id") || !strings.HasPrefix(env.ID, "evt_") {
		t.Fatalf("ping envelope %s", got.Body)
	}
	// A ping is not a delivery.
	if ds := e.Deliveries(e.AdminKey, "c", w.ID, ""); len(ds) != 0 {
		t.Fatalf("ping left deliveries %+v", ds)
	}
	// A failing endpoint: 200 from the API, the attempt says what went wrong.
	rcv.Status(418)
	e.Do("POST", "/orgs/c/webhooks/"+w.ID+"/test", e.AdminKey, nil).Expect(200).JSON(&a)
	if a.Status != app.AttemptFailed || a.ResponseCode == nil || *a.ResponseCode != 418 || a.Error == nil {
		t.Fatalf("failed ping answered %+v", a)
	}
}

func TestDeliveriesListFiltersOrdersAndPaginates(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	rcv := apitest.NewReceiver(t)
	w := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	// Five events a second apart: 0, 1 succeed; 2, 3 fail for good (the receiver answers 500
	// and time runs out); 4 stays pending while the workspace is paused.
	var ids []string
	for i := 0; i < 2; i++ {
		ids = append(ids, e.Emit(e.Org.ID, app.EventContactBlocked, map[string]int{"n": i}).ID)
		rcv.Wait(t, i+1, 5*time.Second)
		e.Clock.Advance(time.Second)
	}
	e.Eventually(5*time.Second, "two SUCCEEDED", func() bool {
		return len(e.Deliveries(e.AdminKey, "c", w.ID, "?status=SUCCEEDED")) == 2
	})
	rcv.Status(500)
	for i := 2; i < 4; i++ {
		ids = append(ids, e.Emit(e.Org.ID, app.EventContactBlocked, map[string]int{"n": i}).ID)
		rcv.Wait(t, i+1, 5*time.Second)
		e.Clock.Advance(time.Second)
	}
	e.Eventually(5*time.Second, "first failures recorded", func() bool {
		ds := e.Deliveries(e.AdminKey, "c", w.ID, "?status=PENDING")
		return len(ds) == 2 && len(ds[0].Attempts) == 1 && len(ds[1].Attempts) == 1
	})
	// Advance only once the previous attempts are recorded: a claim still in flight when the
	// clock jumps past its lease would be sent a second time.
	for i, delay := range []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour} {
		n := len(rcv.Requests())
		e.Clock.Advance(delay)
		rcv.Wait(t, n+2, 5*time.Second)
		e.Eventually(5*time.Second, "attempt "+strconv.Itoa(i+2)+" recorded", func() bool {
			ds := e.Deliveries(e.AdminKey, "c", w.ID, "")
			return len(ds) == 4 && len(ds[0].Attempts) == i+2 && len(ds[1].Attempts) == i+2
		})
	}
	e.Eventually(5*time.Second, "two FAILED", func() bool {
		return len(e.Deliveries(e.AdminKey, "c", w.ID, "?status=FAILED")) == 2
	})
	if _, err := e.Runtime.Service.SetBalance(context.Background(), e.Org.ID, 0); err != nil {
		t.Fatal(err)
	}
	ids = append(ids, e.Emit(e.Org.ID, app.EventContactBlocked, map[string]int{"n": 4}).ID)

	all := e.Deliveries(e.AdminKey, "c", w.ID, "")
	if len(all) != 5 {
		t.Fatalf("%d deliveries, want 5", len(all))
	}
	for i, d := range all { // newest first
		if d.EventID != ids[4-i] {
			t.Fatalf("delivery %d is event %s, want %s (newest first)", i, d.EventID, ids[4-i])
		}
		if d.Attempts == nil || d.Event == nil || d.Event.ID != d.EventID || d.WebhookID != w.ID {
			t.Fatalf("delivery %+v lacks attempts or event", d)
		}
	}
	if all[0].Status != app.DeliveryPending || len(all[0].Attempts) != 0 || all[0].NextAttemptAt.IsZero() {
		t.Fatalf("paused delivery %+v", all[0])
	}
	for _, d := range all[1:3] {
		if d.Status != app.DeliveryFailed || len(d.Attempts) != 7 || d.AttemptsCount != 7 || !d.NextAttemptAt.IsZero() {
			t.Fatalf("failed delivery %+v", d)
		}
		for i, a := range d.Attempts {
			if a.Number != i+1 || a.Status != app.AttemptFailed || *a.ResponseCode != 500 || a.CreatedAt.IsZero() {
				t.Fatalf("attempt %d: %+v", i+1, a)
			}
		}
	}
	for _, d := range all[3:] {
		if d.Status != app.DeliverySucceeded || len(d.Attempts) != 1 || *d.Attempts[0].ResponseCode != 200 {
			t.Fatalf("succeeded delivery %+v", d)
		}
	}
	for status, want := range map[string]int{"PENDING": 1, "SUCCEEDED": 2, "FAILED": 2} {
		ds := e.Deliveries(e.AdminKey, "c", w.ID, "?status="+status)
		if len(ds) != want {
			t.Fatalf("status=%s: %d deliveries, want %d", status, len(ds), want)
		}
		for _, d := range ds {
			if d.Status != status {
				t.Fatalf("status=%s listed %+v", status, d)
			}
		}
	}
	for _, bad := range []string{"failed", "DONE", "PENDING,FAILED"} {
		e.DoInvalid("GET", "/orgs/c/webhooks/"+w.ID+"/deliveries?status="+bad, e.AdminKey, nil).ExpectError(400, "invalid_argument", "status")
	}

	seen := []string{}
	for page := 1; page <= 3; page++ {
		r := e.Do("GET", "/orgs/c/webhooks/"+w.ID+"/deliveries?take=2&page="+strconv.Itoa(page), e.AdminKey, nil).Expect(200)
		var ds []app.Delivery
		r.JSON(&ds)
		h := r.Header
		if h.Get("pagination-count") != "5" || h.Get("pagination-page") != strconv.Itoa(page) || h.Get("pagination-take") != "2" {
			t.Fatalf("page %d headers %v", page, h)
		}
		if _, ok := h["Pagination-Next"]; !ok {
			t.Fatalf("page %d lacks pagination-next", page)
		}
		if wantN := min(2, 5-2*(page-1)); len(ds) != wantN {
			t.Fatalf("page %d has %d deliveries, want %d", page, len(ds), wantN)
		}
		for _, d := range ds {
			seen = append(seen, d.EventID)
		}
	}
	for i := range seen {
		if seen[i] != ids[4-i] {
			t.Fatalf("paging order %v, want newest first %v", seen, ids)
		}
	}
	e.DoInvalid("GET", "/orgs/c/webhooks/"+w.ID+"/deliveries?take=101", e.AdminKey, nil).ExpectError(400, "invalid_argument", "take")
	e.DoInvalid("GET", "/orgs/c/webhooks/"+w.ID+"/deliveries?page=0", e.AdminKey, nil).ExpectError(400, "invalid_argument", "page")
}

// Every webhook route answers 404 for an endpoint (or delivery) of another organization,
// in both directions of the tree.
func TestOtherOrganizationsWebhooksAreNotFound(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	rcv := apitest.NewReceiver(t)
	sub, subKey := e.OrgWithAdmin("Sub")
	_, sibKey := e.OrgWithAdmin("Sibling")
	parentHook := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	e.Emit(e.Org.ID, app.EventContactBlocked, nil)
	subHook := e.Webhook(subKey, "c", rcv.URL, app.EventContactBlocked)
	e.Emit(sub.ID, app.EventContactBlocked, nil)
	rcv.Wait(t, 2, 5*time.Second)
	parentDlv := settled(e, parentHook.ID, 1)
	var subDlv app.Delivery
	e.Eventually(5*time.Second, "sub delivery", func() bool {
		ds := e.Deliveries(subKey, "c", subHook.ID, "")
		if len(ds) == 1 {
			subDlv = ds[0]
		}
		return len(ds) == 1
	})

	type call struct{ method, path string }
	routes := func(org, hook, dlv string) []call {
		p := "/orgs/" + org + "/webhooks/" + hook
		return []call{{"GET", p}, {"PATCH", p}, {"DELETE", p}, {"POST", p + "/test"}, {"POST", p + "/rotate"},
			{"GET", p + "/deliveries"}, {"POST", p + "/deliveries/" + dlv + "/replay"}}
	}
	check := func(key, org, hook, dlv string) {
		t.Helper()
		for _, c := range routes(org, hook, dlv) {
			var body any
			if c.method == "PATCH" {
				body = map[string]any{"enabled": false}
			}
			e.Do(c.method, c.path, key, body).ExpectError(404, "not_found")
		}
	}
	check(subKey, "c", parentHook.ID, parentDlv.ID)    // a child cannot reach its parent's
	check(subKey, sub.ID, parentHook.ID, parentDlv.ID) // ... even naming its own org
	check(sibKey, "c", subHook.ID, subDlv.ID)          // nor a sibling's
	check(e.AdminKey, "c", subHook.ID, subDlv.ID)      // the parent's `c` is the parent only
	check(e.AdminKey, sub.ID, parentHook.ID, parentDlv.ID)
	// An own webhook with another organization's delivery.
	own := e.Webhook(subKey, "c", rcv.URL, app.EventContactUnsubscribed)
	e.Do("POST", "/orgs/c/webhooks/"+own.ID+"/deliveries/"+parentDlv.ID+"/replay", subKey, nil).ExpectError(404, "not_found")
	// Nothing changed: still enabled, same secret signing, no new delivery.
	var got app.Webhook
	e.Do("GET", "/orgs/c/webhooks/"+parentHook.ID, e.AdminKey, nil).Expect(200).JSON(&got)
	if !got.Enabled {
		t.Fatalf("parent endpoint changed by another org: %+v", got)
	}
	if ds := e.Deliveries(e.AdminKey, "c", parentHook.ID, ""); len(ds) != 1 {
		t.Fatalf("parent has %d deliveries, want 1", len(ds))
	}
	// The parent reaches its sub-organization's endpoint by naming it.
	e.Do("GET", "/orgs/"+sub.ID+"/webhooks/"+subHook.ID, e.AdminKey, nil).Expect(200)
}

func TestReadOnlyRoleCannotWrite(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	rcv := apitest.NewReceiver(t)
	w := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	e.Emit(e.Org.ID, app.EventContactBlocked, nil)
	d := settled(e, w.ID, 1)
	ro := e.RoleKey(e.Org.ID, "webhooks:read")
	none := e.RoleKey(e.Org.ID, "contacts:read")

	e.Do("POST", "/orgs/c/webhooks", ro, createBody(rcv.URL)).ExpectError(403, "permission_denied")
	p := "/orgs/c/webhooks/" + w.ID
	e.Do("PATCH", p, ro, map[string]any{"enabled": false}).ExpectError(403, "permission_denied")
	e.Do("DELETE", p, ro, nil).ExpectError(403, "permission_denied")
	e.Do("POST", p+"/test", ro, nil).ExpectError(403, "permission_denied")
	e.Do("POST", p+"/rotate", ro, nil).ExpectError(403, "permission_denied")
	e.Do("POST", p+"/deliveries/"+d.ID+"/replay", ro, nil).ExpectError(403, "permission_denied")
	// Reads work.
	e.Do("GET", "/orgs/c/webhooks", ro, nil).Expect(200)
	e.Do("GET", p, ro, nil).Expect(200)
	e.Do("GET", "/orgs/c/webhooks/events", ro, nil).Expect(200)
	e.Do("GET", p+"/deliveries", ro, nil).Expect(200)
	// No webhooks permission at all.
	e.Do("GET", "/orgs/c/webhooks", none, nil).ExpectError(403, "permission_denied")
	e.Do("GET", p+"/deliveries", none, nil).ExpectError(403, "permission_denied")
	rcv.Quiet(t, 1, 50*time.Millisecond)
	// And nothing moved.
	var got app.Webhook
	e.Do("GET", p, e.AdminKey, nil).Expect(200).JSON(&got)
	if !got.Enabled || len(e.Deliveries(e.AdminKey, "c", w.ID, "")) != 1 {
		t.Fatalf("refused writes changed the endpoint: %+v", got)
	}
	rw := e.RoleKey(e.Org.ID, "webhooks:read", "webhooks:write")
	e.Do("POST", "/orgs/c/webhooks", rw, createBody(rcv.URL)).Expect(201)
}

func TestDeleteRemovesEndpointAndDeliveries(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	rcv := apitest.NewReceiver(t)
	rcv.Status(500) // one delivery stays pending with a retry
	w := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	keep := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	e.Emit(e.Org.ID, app.EventContactBlocked, nil)
	rcv.Wait(t, 2, 5*time.Second)
	settled(e, w.ID, 1)
	settled(e, keep.ID, 1)

	e.Do("DELETE", "/orgs/c/webhooks/"+w.ID, e.AdminKey, nil).Expect(204)
	e.Do("GET", "/orgs/c/webhooks/"+w.ID, e.AdminKey, nil).ExpectError(404, "not_found")
	e.Do("GET", "/orgs/c/webhooks/"+w.ID+"/deliveries", e.AdminKey, nil).ExpectError(404, "not_found")
	e.Do("DELETE", "/orgs/c/webhooks/"+w.ID, e.AdminKey, nil).ExpectError(404, "not_found")
	l, err := e.Runtime.Service.ListDeliveries(context.Background(), "", w.ID, "", app.Page{Page: 1, Take: 100})
	if err != nil || len(l.Items) != 0 || l.Total != 0 {
		t.Fatalf("deleted endpoint's deliveries: %+v, %v", l, err)
	}
	var hooks []app.Webhook
	e.Do("GET", "/orgs/c/webhooks", e.AdminKey, nil).Expect(200).JSON(&hooks)
	if len(hooks) != 1 || hooks[0].ID != keep.ID {
		t.Fatalf("after delete: %+v", hooks)
	}
	// Its retry never goes out; the other endpoint's does.
	rcv.Status(200)
	e.Clock.Advance(5 * time.Second)
	got := rcv.Wait(t, 3, 5*time.Second)
	rcv.Quiet(t, 3, 100*time.Millisecond)
	if got[2].Header.Get("x-webhook-attempt") != "2" {
		t.Fatalf("retry headers %v", got[2].Header)
	}
	verify(t, keep.Secret, got[2])
	if ds := e.Deliveries(e.AdminKey, "c", keep.ID, ""); len(ds) != 1 {
		t.Fatalf("remaining endpoint has %d deliveries", len(ds))
	}
}
