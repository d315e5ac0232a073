package sqlite_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"wsapi/app"
	"wsapi/sqlite"
)

func webhook(org, id string, enabled bool, events ...string) app.Webhook {
	return app.Webhook{ID: id, OrgID: org, Name: id, URL: "https://example.com/" + id, Events: events, Enabled: enabled,
		Secret: "whsec_" + id, CreatedAt: at(0), UpdatedAt: at(0)}
}

// emitEvent stores an event of org at sec and answers how many deliveries it queued.
func emitEvent(t *testing.T, db *sqlite.DB, org, id, typ string, sec int) int {
	t.Helper()
	e := app.Event{ID: id, Type: typ, OrgID: org, CreatedAt: at(sec), Data: json.RawMessage(`{"n":1}`)}
	body, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	write(t, db, func(tx app.Tx) (err error) { n, err = tx.InsertEvent(e, body); return err })
	return n
}

func claimJobs(t *testing.T, db *sqlite.DB, now, lease int) []string {
	t.Helper()
	var ids []string
	write(t, db, func(tx app.Tx) error {
		jobs, err := tx.ClaimDue(at(now), at(lease), app.ClaimRoom{Limit: 10})
		for _, j := range jobs {
			if j.Secret != "whsec_"+j.WebhookID || len(j.Body) == 0 {
				t.Errorf("job %+v", j)
			}
			ids = append(ids, fmt.Sprint(j.EventID, "#", j.Attempt))
		}
		return err
	})
	slices.Sort(ids) // the jobs of one claim come in no particular order
	return ids
}

func deliveryDue(t *testing.T, db *sqlite.DB, now int) bool {
	t.Helper()
	var due bool
	read(t, db, func(tx app.Tx) (err error) { due, err = tx.AnyDeliveryDue(at(now)); return err })
	return due
}

// A delivery's life in the store: an event queues one delivery per enabled endpoint that
// subscribes to its type; a claim leases it (a live lease is not claimed again, a released
// or lapsed one is); finished attempts record the outcome and the next try; purging takes
// finished deliveries and the events nothing refers to any more.
func TestDeliveryLifecycle(t *testing.T) {
	t.Parallel()
	db := sealedDB(t)
	org := newOrg(t, db, "org_w", "", 0).ID
	write(t, db, func(tx app.Tx) error {
		return firstErr(tx.CreateWebhook(webhook(org, "wh_1", true, "contact.blocked")),
			tx.CreateWebhook(webhook(org, "wh_2", true, "chat.created", "contact.created")),
			tx.CreateWebhook(webhook(org, "wh_off", false, "contact.blocked")))
	})
	if n1, n2 := emitEvent(t, db, org, "ev_1", "contact.blocked", 1), emitEvent(t, db, org, "ev_2", "chat.created", 2); n1 != 1 || n2 != 1 {
		t.Fatalf("queued %d and %d deliveries, want 1 each (the disabled endpoint gets none)", n1, n2)
	}
	var d1, d2 string
	read(t, db, func(tx app.Tx) error {
		e, body, err := tx.GetEvent(org, "ev_1")
		if err != nil || e.Type != "contact.blocked" || string(e.Data) != `{"n":1}` || len(body) == 0 {
			t.Errorf("event %+v (%v)", e, err)
		}
		if _, _, err := tx.GetEvent("org_other", "ev_1"); code(err) != "not_found" {
			t.Errorf("another org's event: %v", err)
		}
		ds, total, err := tx.ListDeliveries(org, "wh_1", app.DeliveryPending, app.Page{Page: 1, Take: 10})
		if err != nil || total != 1 || len(ds) != 1 || ds[0].EventID != "ev_1" || ds[0].Event == nil || len(ds[0].Attempts) != 0 {
			t.Fatalf("deliveries of wh_1 %+v (%v)", ds, err)
		}
		d1 = ds[0].ID
		ds, _, err = tx.ListDeliveries("", "wh_2", "", app.Page{Page: 1, Take: 10})
		if err != nil || len(ds) != 1 {
			t.Fatalf("deliveries of wh_2 %+v (%v)", ds, err)
		}
		d2 = ds[0].ID
		return nil
	})
	if got := claimJobs(t, db, 3, 60); fmt.Sprint(got) != "[ev_1#1 ev_2#1]" {
		t.Fatalf("first claim %v", got)
	}
	if got := claimJobs(t, db, 4, 60); len(got) != 0 || deliveryDue(t, db, 4) {
		t.Fatalf("leased deliveries claimed again: %v", got)
	}
	write(t, db, func(tx app.Tx) error { return tx.ReleaseDelivery(d1) })
	if !deliveryDue(t, db, 5) {
		t.Fatal("a released delivery is not due")
	}
	if got := claimJobs(t, db, 5, 60); fmt.Sprint(got) != "[ev_1#1]" {
		t.Fatalf("claim after the release %v", got)
	}
	ok, fail := 200, "timeout"
	write(t, db, func(tx app.Tx) error {
		return tx.FinishAttempts([]app.Finished{
			{Delivery: app.Delivery{ID: d1, Status: app.DeliverySucceeded, AttemptsCount: 1, UpdatedAt: at(6)},
				Attempt: app.Attempt{Number: 1, Status: "SUCCEEDED", ResponseCode: &ok, ResponseBody: "fine", DurationMs: 3, CreatedAt: at(6)}},
			{Delivery: app.Delivery{ID: d2, Status: app.DeliveryPending, AttemptsCount: 1, NextAttemptAt: at(100), UpdatedAt: at(6)},
				Attempt: app.Attempt{Number: 1, Status: "FAILED", Error: &fail, CreatedAt: at(6)}},
		})
	})
	read(t, db, func(tx app.Tx) error {
		d, err := tx.GetDelivery(org, d1)
		if err != nil || d.Status != app.DeliverySucceeded || !d.NextAttemptAt.IsZero() || len(d.Attempts) != 1 ||
			*d.Attempts[0].ResponseCode != 200 || d.Attempts[0].ResponseBody != "fine" || d.Event.ID != "ev_1" {
			t.Errorf("finished delivery %+v (%v)", d, err)
		}
		if _, err := tx.GetDelivery("org_other", d1); code(err) != "not_found" {
			t.Errorf("another org's delivery: %v", err)
		}
		states, err := tx.DeliveryStates([]string{d1, d2, "dlv_none"})
		if err != nil || len(states) != 2 || states[d2].Status != app.DeliveryPending || !states[d2].NextAttemptAt.Equal(at(100).Time) ||
			states[d2].AttemptsCount != 1 {
			t.Errorf("states %+v (%v)", states, err)
		}
		return nil
	})
	if got := claimJobs(t, db, 50, 60); len(got) != 0 {
		t.Errorf("a retry claimed before its time: %v", got)
	}
	if got := claimJobs(t, db, 100, 110); fmt.Sprint(got) != "[ev_2#2]" {
		t.Errorf("the retry at its time: %v", got)
	}
	if got := claimJobs(t, db, 105, 200); len(got) != 0 {
		t.Errorf("claimed under a live lease: %v", got)
	}
	if got := claimJobs(t, db, 110, 200); fmt.Sprint(got) != "[ev_2#2]" {
		t.Errorf("a lapsed lease is not claimable again: %v", got)
	}
	err := db.Write(bg, func(tx app.Tx) error {
		return tx.FinishAttempts([]app.Finished{{Delivery: app.Delivery{ID: "dlv_none", Status: app.DeliveryFailed}, Attempt: app.Attempt{Number: 1, Status: "FAILED", CreatedAt: at(120)}}})
	})
	if code(err) != "conflict" { // the attempt's foreign key refuses it
		t.Errorf("finishing an unknown delivery: %v", err)
	}
	write(t, db, func(tx app.Tx) error { return tx.FinishAttempts(nil) })
	var purged int
	write(t, db, func(tx app.Tx) (err error) { purged, err = tx.PurgeDeliveries(at(1000)); return err })
	read(t, db, func(tx app.Tx) error {
		_, _, err1 := tx.GetEvent(org, "ev_1")
		_, _, err2 := tx.GetEvent(org, "ev_2")
		if purged != 1 || code(err1) != "not_found" || err2 != nil {
			t.Errorf("purged %d; ev_1 %v, ev_2 (its delivery pending) %v", purged, err1, err2)
		}
		return nil
	})
}

// Endpoint health: a disabled endpoint's and a spent organization's deliveries are not
// claimed, and the gauges count them apart; a streak resets only when there is one.
func TestWebhookHealthAndGauges(t *testing.T) {
	t.Parallel()
	db := sealedDB(t)
	org, poor := newOrg(t, db, "org_w", "", 0).ID, newOrg(t, db, "org_p", "", 0).ID
	write(t, db, func(tx app.Tx) error {
		return firstErr(tx.CreateWebhook(webhook(org, "wh_1", true, "x")), tx.CreateWebhook(webhook(org, "wh_2", true, "x")),
			tx.CreateWebhook(webhook(poor, "wh_p", true, "x")), tx.ChargeOrg(poor, 5))
	})
	emitEvent(t, db, org, "ev_1", "x", 1)
	emitEvent(t, db, poor, "ev_p", "x", 1)
	emitEvent(t, db, org, "ev_later", "x", 500) // due later
	reason := "too many failures"
	write(t, db, func(tx app.Tx) error {
		w, err := tx.GetWebhook(org, "wh_2")
		if err != nil {
			return err
		}
		w.Enabled, w.DisabledReason, w.ConsecutiveFailures, w.UpdatedAt = false, &reason, 5, at(2)
		return tx.SetWebhookHealth(w)
	})
	g, err := db.OpsGauges(bg, at(10).Time)
	if err != nil || g.DeliveriesDue != 1 || g.DeliveriesWaiting != 1 || g.DeliveriesPaused != 1 || g.DeliveriesDisabled != 2 {
		t.Errorf("gauges %+v (%v)", g, err)
	}
	if got := claimJobs(t, db, 10, 60); fmt.Sprint(got) != "[ev_1#1]" {
		t.Errorf("claimed %v; want only the enabled endpoint's of the organization with a balance", got)
	}
	write(t, db, func(tx app.Tx) error {
		return firstErr(tx.ResetWebhookStreak("wh_2", at(20)), tx.ResetWebhookStreak("wh_1", at(20)))
	})
	read(t, db, func(tx app.Tx) error {
		w2, err := tx.GetWebhook(org, "wh_2")
		w1, err1 := tx.GetWebhook(org, "wh_1")
		if firstErr(err, err1) != nil || w2.ConsecutiveFailures != 0 || !w2.UpdatedAt.Equal(at(20).Time) || w2.Enabled ||
			*w2.DisabledReason != reason || !w1.UpdatedAt.Equal(at(0).Time) {
			t.Errorf("after the resets: wh_2 %+v, wh_1 updated %v", w2, w1.UpdatedAt)
		}
		return nil
	})
	w := webhook(org, "wh_1", true, "y")
	w.URL, w.Secret, w.UpdatedAt = "https://example.com/new", "whsec_new", at(30)
	write(t, db, func(tx app.Tx) error { return tx.UpdateWebhook(w) })
	read(t, db, func(tx app.Tx) error {
		got, err := tx.GetWebhook(org, "wh_1")
		if err != nil || got.URL != w.URL || got.Secret != "whsec_new" || fmt.Sprint(got.Events) != "[y]" {
			t.Errorf("updated webhook %+v (%v)", got, err)
		}
		return nil
	})
	write(t, db, func(tx app.Tx) error { return tx.DeleteWebhook(org, "wh_1") })
	for name, fn := range map[string]func(tx app.Tx) error{
		"delete again":  func(tx app.Tx) error { return tx.DeleteWebhook(org, "wh_1") },
		"update":        func(tx app.Tx) error { return tx.UpdateWebhook(w) },
		"health":        func(tx app.Tx) error { return tx.SetWebhookHealth(w) },
		"charge nobody": func(tx app.Tx) error { return tx.ChargeOrg("org_none", 1) },
	} {
		if err := db.Write(bg, fn); code(err) != "not_found" {
			t.Errorf("%s: %v", name, err)
		}
	}
}
