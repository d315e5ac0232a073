package cli_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"wsapi/app"
	"wsapi/cli"
)

// deliveriesFixture makes a database holding one endpoint with one FAILED delivery (one
// failed attempt, empty retry schedule) and one SUCCEEDED delivery, through the service as
// the server would.
func deliveriesFixture(t *testing.T) (db string, w app.Webhook, failed, succeeded app.Delivery) {
	t.Helper()
	ctx := context.Background()
	db = filepath.Join(t.TempDir(), "app.db")
	cfg := cli.DefaultConfig()
	cfg.DB.Path = db
	cfg.Webhooks.AllowPrivateTargets = true
	cfg.Webhooks.RetrySchedule = nil
	rt, err := cli.Build(ctx, cfg, cli.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	svc := rt.Service
	nk, _, err := svc.Bootstrap(ctx, "admin")
	if err != nil {
		t.Fatal(err)
	}
	w, err = svc.CreateWebhook(ctx, nk.OrgID, app.WebhookInput{Name: "hook", URL: "https://127.0.0.1:9/hook",
		Events: []string{app.EventContactBlocked}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		err := svc.Store().Write(ctx, func(tx app.Tx) error {
			_, err := svc.Emit(tx, nk.OrgID, app.EventContactBlocked, map[string]int{"n": i})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		jobs, err := svc.ClaimDeliveries(ctx, app.ClaimRoom{Limit: 1, PerQueue: 1})
		if err != nil || len(jobs) != 1 {
			t.Fatalf("claimed %d, %v", len(jobs), err)
		}
		code := 500 - 300*i
		a := app.Attempt{Status: app.AttemptFailed, ResponseCode: &code, DurationMs: 1}
		if i == 1 {
			a.Status = app.AttemptSucceeded
		}
		if err := svc.FinishDelivery(ctx, jobs[0], a); err != nil {
			t.Fatal(err)
		}
	}
	for _, st := range []string{app.DeliveryFailed, app.DeliverySucceeded} {
		l, err := svc.ListDeliveries(ctx, "", w.ID, st, app.Page{Page: 1, Take: 10})
		if err != nil || len(l.Items) != 1 {
			t.Fatalf("fixture: %d %s deliveries, %v", len(l.Items), st, err)
		}
		if st == app.DeliveryFailed {
			failed = l.Items[0]
		} else {
			succeeded = l.Items[0]
		}
	}
	return db, w, failed, succeeded
}

func TestDeliveriesListAndReplay(t *testing.T) {
	db, w, failed, succeeded := deliveriesFixture(t)

	var all []app.Delivery
	if err := json.Unmarshal([]byte(mustCLI(t, db, "deliveries", "list", "--json")), &all); err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 {
		t.Fatalf("deliveries list --json: %d, want 2", len(all))
	}
	byID := map[string]app.Delivery{}
	for _, d := range all {
		byID[d.ID] = d
	}
	if d := byID[failed.ID]; d.Status != app.DeliveryFailed || d.WebhookID != w.ID || d.AttemptsCount != 1 ||
		len(d.Attempts) != 1 || *d.Attempts[0].ResponseCode != 500 {
		t.Fatalf("failed delivery in --json: %+v", d)
	}
	if byID[succeeded.ID].Status != app.DeliverySucceeded {
		t.Fatalf("succeeded delivery in --json: %+v", byID[succeeded.ID])
	}

	text := mustCLI(t, db, "deliveries", "list", "--status", "FAILED")
	if !strings.Contains(text, failed.ID) || strings.Contains(text, succeeded.ID) || !strings.Contains(text, "FAILED") ||
		!strings.Contains(text, "STATUS") {
		t.Fatalf("deliveries list --status FAILED printed:\n%s", text)
	}
	var onlyFailed []app.Delivery
	if err := json.Unmarshal([]byte(mustCLI(t, db, "deliveries", "list", "--status", "FAILED", "--json")), &onlyFailed); err != nil {
		t.Fatal(err)
	}
	if len(onlyFailed) != 1 || onlyFailed[0].ID != failed.ID {
		t.Fatalf("--status FAILED --json: %+v", onlyFailed)
	}
	if text := mustCLI(t, db, "deliveries", "list", "--webhook", "wh_other"); strings.Contains(text, failed.ID) {
		t.Fatalf("--webhook of another endpoint listed %s", failed.ID)
	}
	if _, errOut, err := runCLI(t, db, "deliveries", "list", "--status", "DONE"); err == nil || !strings.Contains(errOut, "status") {
		t.Fatalf("bad --status: err %v, stderr %q", err, errOut)
	}

	out := mustCLI(t, db, "deliveries", "replay", failed.ID)
	if !strings.Contains(out, failed.EventID) {
		t.Fatalf("replay printed %q", out)
	}
	if _, errOut, err := runCLI(t, db, "deliveries", "replay", "dlv_nope"); err == nil || !strings.Contains(errOut, "not found") {
		t.Fatalf("replay of an unknown delivery: err %v, stderr %q", err, errOut)
	}

	// Check through the service: a new PENDING delivery of the same event, the original
	// untouched.
	cfg := cli.DefaultConfig()
	cfg.DB.Path = db
	rt, err := cli.Build(context.Background(), cfg, cli.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	l, err := rt.Service.ListDeliveries(context.Background(), "", w.ID, "", app.Page{Page: 1, Take: 10})
	if err != nil || len(l.Items) != 3 {
		t.Fatalf("after replay: %d deliveries, %v", len(l.Items), err)
	}
	var replay app.Delivery
	for _, d := range l.Items {
		switch d.ID {
		case failed.ID:
			if d.Status != app.DeliveryFailed || d.AttemptsCount != 1 {
				t.Fatalf("original changed by replay: %+v", d)
			}
		case succeeded.ID:
		default:
			replay = d
		}
	}
	if replay.EventID != failed.EventID || replay.Status != app.DeliveryPending || replay.AttemptsCount != 0 ||
		replay.WebhookID != w.ID || !strings.HasPrefix(replay.ID, "dlv_") || !strings.Contains(out, replay.ID) {
		t.Fatalf("replayed delivery %+v (printed %q)", replay, out)
	}

	// --json answers the new delivery.
	rt.Close()
	var again app.Delivery
	if err := json.Unmarshal([]byte(mustCLI(t, db, "deliveries", "replay", succeeded.ID, "--json")), &again); err != nil {
		t.Fatal(err)
	}
	if again.EventID != succeeded.EventID || again.Status != app.DeliveryPending || again.ID == succeeded.ID {
		t.Fatalf("replay --json answered %+v", again)
	}
}
