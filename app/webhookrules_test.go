package app_test

import (
	"context"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"wsapi/app"
)

var claimAll = app.ClaimRoom{Limit: 50}

// blockContact emits contact.blocked (a new contact, blocked at once).
func (e *domainEnv) blockContact(name string) app.Contact {
	e.t.Helper()
	c := e.contact(name, app.ChannelProfile{})
	yes := true
	return need(e.svc.UpdateContact(e.ctx, e.org.ID, c.ID, app.ContactPatch{Blocked: &yes}))
}

// claim leases the due deliveries.
func (e *domainEnv) claim() []app.Job {
	e.t.Helper()
	return need(e.svc.ClaimDeliveries(e.ctx, claimAll))
}

// fail records a failed attempt (HTTP 500) for each job.
func (e *domainEnv) fail(jobs ...app.Job) {
	e.t.Helper()
	code := 500
	for _, j := range jobs {
		e.must(e.svc.FinishDelivery(e.ctx, j, app.Attempt{Status: app.AttemptFailed, ResponseCode: &code}))
	}
}

func (e *domainEnv) delivery(w app.Webhook, id string) app.Delivery {
	e.t.Helper()
	l := need(e.svc.ListDeliveries(e.ctx, e.org.ID, w.ID, "", app.Page{Page: 1, Take: app.MaxTake}))
	for _, d := range l.Items {
		if d.ID == id {
			return d
		}
	}
	e.t.Fatalf("delivery %s not listed", id)
	return app.Delivery{}
}

// TestWebhookRetrySchedule: a failing delivery is retried after each delay of the schedule,
// counted from the attempt, is due at no moment before, and is FAILED after its last
// attempt, which lengthens the endpoint's failure streak.
func TestWebhookRetrySchedule(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	w := e.hook()
	e.blockContact("Ann")
	schedule, last := e.deps.Webhooks.RetrySchedule, e.deps.Webhooks.MaxAttempts()
	for attempt := 1; attempt <= last; attempt++ {
		jobs := e.claim()
		if len(jobs) != 1 || jobs[0].Attempt != attempt || jobs[0].EventType != app.EventContactBlocked || jobs[0].WebhookID != w.ID {
			t.Fatalf("attempt %d: claimed %+v", attempt, jobs)
		}
		if again := e.claim(); len(again) != 0 {
			t.Fatalf("attempt %d: a leased delivery was claimed twice", attempt)
		}
		e.fail(jobs[0])
		d := e.delivery(w, jobs[0].DeliveryID)
		if d.AttemptsCount != attempt || len(d.Attempts) != attempt || d.Attempts[attempt-1].Number != attempt {
			t.Fatalf("attempt %d: delivery %+v", attempt, d)
		}
		if attempt == last {
			if d.Status != app.DeliveryFailed {
				t.Fatalf("after the last attempt: status %s", d.Status)
			}
			break
		}
		wait := schedule[attempt-1]
		if d.Status != app.DeliveryPending || !d.NextAttemptAt.Equal(e.clock.Now().Add(wait)) {
			t.Fatalf("attempt %d: %s, next at %v, want now + %v", attempt, d.Status, d.NextAttemptAt, wait)
		}
		e.clock.Advance(wait - time.Millisecond)
		if early := e.claim(); len(early) != 0 {
			t.Fatalf("attempt %d: claimed %v before its delay", attempt, wait)
		}
		e.clock.Advance(time.Millisecond)
	}
	e.clock.Advance(24 * time.Hour)
	if left := e.claim(); len(left) != 0 {
		t.Fatalf("a FAILED delivery was claimed again: %+v", left)
	}
	got := need(e.svc.GetWebhook(e.ctx, e.org.ID, w.ID))
	if got.ConsecutiveFailures != 1 || !got.Enabled || got.DisabledReason != nil {
		t.Fatalf("endpoint after one FAILED delivery: %+v", got)
	}
	if !strings.HasSuffix(got.Secret, "…") || len(got.Secret) >= len(w.Secret) {
		t.Fatalf("a read shows the secret %q", got.Secret)
	}
}

// failAll runs every due delivery to FAILED, advancing the clock through the schedule.
func (e *domainEnv) failAll() {
	e.t.Helper()
	for range e.deps.Webhooks.MaxAttempts() {
		e.fail(e.claim()...)
		e.clock.Advance(time.Hour)
	}
}

// TestWebhookAutoDisable: DisableAfter FAILED deliveries in a row disable the endpoint with
// the last error as reason; a success in between resets the streak; a disabled endpoint
// gets no new deliveries and re-enabling clears streak and reason.
func TestWebhookAutoDisable(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	w := e.hook()
	streak := func() app.Webhook { return need(e.svc.GetWebhook(e.ctx, e.org.ID, w.ID)) }

	e.blockContact("a")
	e.failAll()
	if h := streak(); h.ConsecutiveFailures != 1 {
		t.Fatalf("streak %d after one FAILED delivery", h.ConsecutiveFailures)
	}
	// A success resets the streak.
	e.blockContact("b")
	jobs := e.claim()
	e.must(e.svc.FinishDelivery(e.ctx, jobs[0], app.Attempt{Status: app.AttemptSucceeded}))
	if h := streak(); h.ConsecutiveFailures != 0 || !h.Enabled {
		t.Fatalf("after a success: %+v", h)
	}
	if d := e.delivery(w, jobs[0].DeliveryID); d.Status != app.DeliverySucceeded {
		t.Fatalf("a succeeded attempt left the delivery %s", d.Status)
	}
	// DisableAfter (3) FAILED deliveries in a row.
	for i := range e.deps.Webhooks.DisableAfter {
		if h := streak(); !h.Enabled || h.ConsecutiveFailures != i {
			t.Fatalf("before failure %d: %+v", i+1, h)
		}
		e.blockContact("c" + strconv.Itoa(i))
		e.failAll()
	}
	h := streak()
	if h.Enabled || h.ConsecutiveFailures != 3 || h.DisabledReason == nil ||
		*h.DisabledReason != "3 deliveries in a row failed; last error: HTTP 500" {
		t.Fatalf("after 3 FAILED deliveries: %+v (reason %v)", h, h.DisabledReason)
	}
	before := e.events(w)[app.EventContactBlocked]
	e.blockContact("d")
	if after := e.events(w)[app.EventContactBlocked]; after != before {
		t.Fatalf("a disabled endpoint got a new delivery (%d -> %d)", before, after)
	}
	yes := true
	h = need(e.svc.UpdateWebhook(e.ctx, e.org.ID, w.ID, app.WebhookPatch{Enabled: &yes}))
	if !h.Enabled || h.ConsecutiveFailures != 0 || h.DisabledReason != nil {
		t.Fatalf("re-enabled: %+v", h)
	}
}

// TestWebhookDeliveriesPauseWithoutBalance: an organization at 0 or below has its due
// deliveries left waiting; they go out once the balance is positive again.
func TestWebhookDeliveriesPauseWithoutBalance(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	e.hook()
	e.blockContact("a")
	for _, c := range []struct {
		balance float64
		claims  int
	}{{0, 0}, {-5, 0}, {0.01, 1}} {
		org := need(e.svc.SetBalance(e.ctx, e.org.ID, c.balance))
		if org.Balance != c.balance {
			t.Fatalf("balance %v, set %v", org.Balance, c.balance)
		}
		jobs := need(e.svc.ClaimDeliveries(e.ctx, app.ClaimRoom{Limit: 10, LookFirst: true}))
		if len(jobs) != c.claims {
			t.Fatalf("balance %v: claimed %d, want %d", c.balance, len(jobs), c.claims)
		}
	}
}

// TestWebhookReplayAndLists: a replay is a new PENDING delivery of the same event, due now;
// lists check their filters and the endpoint's organization.
func TestWebhookReplayAndLists(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	w := e.hook()
	e.blockContact("a")
	jobs := e.claim()
	e.must(e.svc.FinishDelivery(e.ctx, jobs[0], app.Attempt{Status: app.AttemptSucceeded}))
	e.clock.Advance(time.Minute)
	d := need(e.svc.ReplayDelivery(e.ctx, e.org.ID, w.ID, jobs[0].DeliveryID))
	if d.ID == jobs[0].DeliveryID || d.EventID != jobs[0].EventID || d.Status != app.DeliveryPending || !d.NextAttemptAt.Equal(e.clock.Now()) {
		t.Fatalf("replay %+v", d)
	}
	if again := e.claim(); len(again) != 1 || again[0].DeliveryID != d.ID || again[0].Attempt != 1 || string(again[0].Body) != string(jobs[0].Body) {
		t.Fatalf("the replay was not claimed with the same body: %+v", again)
	}
	other := need(e.svc.CreateOrg(e.ctx, app.OrgInput{Name: "Other"}, ""))
	pg := app.Page{Page: 1, Take: 10}
	for name, err := range map[string]error{
		"replay under another endpoint":  second(e.svc.ReplayDelivery(e.ctx, e.org.ID, "wh_nope", d.ID)),
		"replay from another org":        second(e.svc.ReplayDelivery(e.ctx, other.ID, "", d.ID)),
		"list of another org's endpoint": second(e.svc.ListDeliveries(e.ctx, other.ID, w.ID, "", pg)),
		"get another org's endpoint":     second(e.svc.GetWebhook(e.ctx, other.ID, w.ID)),
		"delete another org's endpoint":  e.svc.DeleteWebhook(e.ctx, other.ID, w.ID),
	} {
		wantCode(t, name, err, app.CodeNotFound)
	}
	_, err := e.svc.ListDeliveries(e.ctx, e.org.ID, w.ID, "DONE", pg)
	wantCode(t, "status DONE", err, app.CodeInvalidArgument, "status")
	succeeded := need(e.svc.ListDeliveries(e.ctx, e.org.ID, w.ID, app.DeliverySucceeded, pg))
	all := need(e.svc.ListDeliveries(e.ctx, "", "", "", pg)) // the operator's CLI
	if succeeded.Total != 1 || all.Total != 2 {
		t.Fatalf("succeeded %d, all %d", succeeded.Total, all.Total)
	}
	// Retention: finished deliveries go after webhooks.retention; the pending one stays.
	e.clock.Advance(25 * time.Hour)
	if n := need(e.svc.PurgeDeliveries(e.ctx)); n < 1 {
		t.Fatalf("purged %d", n)
	}
	if l := need(e.svc.ListDeliveries(e.ctx, e.org.ID, w.ID, "", pg)); l.Total != 1 || l.Items[0].ID != d.ID {
		t.Fatalf("after the purge: %+v", l.Items)
	}
	rotated := need(e.svc.RotateWebhookSecret(e.ctx, e.org.ID, w.ID))
	if rotated.Secret == w.Secret || !strings.HasPrefix(rotated.Secret, app.SecretPrefix) {
		t.Fatal("the secret did not change")
	}
	e.must(e.svc.DeleteWebhook(e.ctx, e.org.ID, w.ID))
	if l := need(e.svc.ListWebhooks(e.ctx, e.org.ID, pg)); l.Total != 0 {
		t.Fatalf("%d endpoints after delete", l.Total)
	}
}

func second[T any](_ T, err error) error { return err }

// dns answers fixed addresses per host.
type dns map[string][]netip.Addr

func (d dns) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	return d[host], nil
}

// TestWebhookEndpointRules: the URL, name and events rules of create and update, with
// private targets refused (the configuration's default).
func TestWebhookEndpointRules(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	strict := e.with(func(d *app.Deps) {
		d.Webhooks.AllowPrivateTargets = false
		d.Resolver = dns{"good.example.com": {netip.MustParseAddr("93.184.216.34")},
			"inside.example.com": {netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.1.2.3")}}
	})
	good := []string{app.EventContactBlocked}
	cases := []struct {
		name   string
		in     app.WebhookInput
		fields []string
	}{
		{"valid", app.WebhookInput{Name: "ok", URL: "https://good.example.com/h", Events: good}, nil},
		{"http", app.WebhookInput{Name: "x", URL: "http://good.example.com/h", Events: good}, []string{"url"}},
		{"credentials", app.WebhookInput{Name: "x", URL: "https://u:p@good.example.com/", Events: good}, []string{"url"}},
		{"relative", app.WebhookInput{Name: "x", URL: "/hook", Events: good}, []string{"url"}},
		{"localhost", app.WebhookInput{Name: "x", URL: "https://localhost/h", Events: good}, []string{"url"}},
		{"loopback", app.WebhookInput{Name: "x", URL: "https://127.0.0.1/h", Events: good}, []string{"url"}},
		{"loose IPv4", app.WebhookInput{Name: "x", URL: "https://0x7f.1/h", Events: good}, []string{"url"}},
		{"resolves inside", app.WebhookInput{Name: "x", URL: "https://inside.example.com/h", Events: good}, []string{"url"}},
		{"no address", app.WebhookInput{Name: "x", URL: "https://nowhere.example.com/h", Events: good}, []string{"url"}},
		{"ping", app.WebhookInput{Name: "x", URL: "https://good.example.com/h", Events: []string{app.EventPing}}, []string{"events"}},
		{"no events, no name", app.WebhookInput{URL: "https://good.example.com/h"}, []string{"events", "name"}},
	}
	for _, c := range cases {
		w, err := strict.CreateWebhook(e.ctx, e.org.ID, c.in)
		if c.fields == nil {
			if err != nil || !w.Enabled || !strings.HasPrefix(w.Secret, app.SecretPrefix) {
				t.Errorf("%s: %+v, %v", c.name, w, err)
			}
			continue
		}
		wantCode(t, c.name, err, app.CodeInvalidArgument, c.fields...)
	}
	l := need(e.svc.ListWebhooks(e.ctx, e.org.ID, app.Page{Page: 1, Take: 10}))
	if l.Total != 1 {
		t.Fatalf("%d endpoints after one valid create", l.Total)
	}
	w := l.Items[0]
	bad := "https://inside.example.com/h"
	_, err := strict.UpdateWebhook(e.ctx, e.org.ID, w.ID, app.WebhookPatch{URL: &bad, Events: []string{"chat.nope"}})
	wantCode(t, "update", err, app.CodeInvalidArgument, "events", "url")
	name := " renamed "
	got := need(strict.UpdateWebhook(e.ctx, e.org.ID, w.ID, app.WebhookPatch{Name: &name,
		Events: []string{app.EventChatAssigned, app.EventChatAssigned}}))
	if got.Name != "renamed" || len(got.Events) != 1 || got.Events[0] != app.EventChatAssigned {
		t.Fatalf("patched %+v", got)
	}
}
