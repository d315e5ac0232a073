package webhook_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// TestFinishAndClaimRecordsARoundInOneGo: one round records several attempts (a success, a
// failure to retry, a last failure that lengthens the streak, and a second outcome of an
// already settled delivery, which is skipped) and claims the next due deliveries, all in one
// transaction; what it stores is what one FinishDelivery per attempt stored.
func TestFinishAndClaimRecordsARoundInOneGo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := cli.DefaultConfig()
	cfg.DB.Path = filepath.Join(t.TempDir(), "app.db")
	cfg.Secrets.KeyFile = filepath.Join(t.TempDir(), "app.key")
	cfg.Webhooks.AllowPrivateTargets = true
	cfg.Webhooks.RetrySchedule = []time.Duration{time.Second} // two attempts in all
	clock := app.NewManualClock(apitest.Start)
	rt, err := cli.Build(ctx, cfg, cli.Options{Clock: clock, Resolver: apitest.Resolver})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	svc := rt.Service
	nk, _, err := svc.Bootstrap(ctx, "admin")
	if err != nil {
		t.Fatal(err)
	}
	w, err := svc.CreateWebhook(ctx, nk.OrgID, app.WebhookInput{Name: "hook", URL: "https://127.0.0.1:9/hook",
		Events: []string{app.EventContactBlocked}})
	if err != nil {
		t.Fatal(err)
	}
	emit := func(n int) {
		for i := 0; i < n; i++ {
			if err := svc.Store().Write(ctx, func(tx app.Tx) error {
				_, err := svc.Emit(tx, nk.OrgID, app.EventContactBlocked, map[string]int{"n": i})
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	emit(3)
	jobs, err := svc.ClaimDeliveries(ctx, app.ClaimRoom{Limit: 5, PerQueue: 5})
	if err != nil || len(jobs) != 3 {
		t.Fatalf("claimed %d, %v; want 3", len(jobs), err)
	}
	// The third delivery fails its first attempt in an earlier round: its next failure is its last.
	code500, code200 := 500, 200
	fail := app.Attempt{Status: app.AttemptFailed, ResponseCode: &code500, DurationMs: 1}
	ok := app.Attempt{Status: app.AttemptSucceeded, ResponseCode: &code200, ResponseBody: "thanks", DurationMs: 2}
	if err := svc.FinishDelivery(ctx, jobs[2], fail); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	again, err := svc.ClaimDeliveries(ctx, app.ClaimRoom{Limit: 5, PerQueue: 5})
	if err != nil || len(again) != 1 || again[0].DeliveryID != jobs[2].DeliveryID || again[0].Attempt != 2 {
		t.Fatalf("claimed %+v, %v; want the third delivery's second attempt", again, err)
	}
	round := []app.Outcome{
		{Job: jobs[0], Attempt: ok},
		{Job: jobs[1], Attempt: fail},
		{Job: again[0], Attempt: fail},
		{Job: jobs[0], Attempt: fail}, // a stale outcome of a delivery settled just before
	}
	emit(2)
	next, err := svc.FinishAndClaim(ctx, round, app.ClaimRoom{Limit: 5, PerQueue: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(next) != 2 {
		t.Fatalf("the round claimed %d deliveries, want the 2 new ones", len(next))
	}
	for _, j := range next {
		if j.DeliveryID == jobs[0].DeliveryID || j.DeliveryID == jobs[1].DeliveryID || j.DeliveryID == jobs[2].DeliveryID {
			t.Fatalf("the round claimed %s again", j.DeliveryID)
		}
	}

	byID := map[string]app.Delivery{}
	l, err := svc.ListDeliveries(ctx, nk.OrgID, w.ID, "", app.Page{Page: 1, Take: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range l.Items {
		byID[d.ID] = d
	}
	want := []struct {
		job      app.Job
		status   string
		attempts []string
		next     time.Time
	}{
		{jobs[0], app.DeliverySucceeded, []string{app.AttemptSucceeded}, time.Time{}},
		{jobs[1], app.DeliveryPending, []string{app.AttemptFailed}, clock.Now().Add(time.Second)},
		{jobs[2], app.DeliveryFailed, []string{app.AttemptFailed, app.AttemptFailed}, time.Time{}},
	}
	for _, c := range want {
		d := byID[c.job.DeliveryID]
		if d.Status != c.status || d.AttemptsCount != len(c.attempts) || len(d.Attempts) != len(c.attempts) {
			t.Fatalf("delivery %s: %+v, want %s with %d attempts", c.job.DeliveryID, d, c.status, len(c.attempts))
		}
		for i, st := range c.attempts {
			if a := d.Attempts[i]; a.Number != i+1 || a.Status != st {
				t.Fatalf("delivery %s attempt %d: %+v, want number %d %s", d.ID, i, a, i+1, st)
			}
		}
		if !d.NextAttemptAt.Time.Equal(c.next) {
			t.Fatalf("delivery %s next attempt %s, want %s", d.ID, d.NextAttemptAt, c.next)
		}
	}
	if a := byID[jobs[0].DeliveryID].Attempts[0]; a.ResponseBody != "thanks" || a.ResponseCode == nil || *a.ResponseCode != 200 || a.DurationMs != 2 {
		t.Fatalf("success recorded as %+v", a)
	}
	// The last failure came after the success in the round: the streak is 1.
	got, err := svc.GetWebhook(ctx, nk.OrgID, w.ID)
	if err != nil || got.ConsecutiveFailures != 1 || !got.Enabled {
		t.Fatalf("endpoint %+v, %v; want enabled with a streak of 1", got, err)
	}
	// A success in the next round resets it.
	if _, err := svc.FinishAndClaim(ctx, []app.Outcome{{Job: next[0], Attempt: ok}}, app.ClaimRoom{Limit: 0}); err != nil {
		t.Fatal(err)
	}
	if got, err = svc.GetWebhook(ctx, nk.OrgID, w.ID); err != nil || got.ConsecutiveFailures != 0 {
		t.Fatalf("endpoint %+v, %v; want the streak reset", got, err)
	}
}
