package webhook_test

import (
	"context"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// onFile points an Env at a database and key that outlive it, so a second Env can restart
// on them.
func onFile(dir string, timeout time.Duration) func(*cli.Config) {
	return func(c *cli.Config) {
		apitest.FilesIn(dir)(c)
		c.Webhooks.Timeout = timeout
	}
}

func eventIDs(rs []apitest.Received) map[string]int {
	m := map[string]int{}
	for _, r := range rs {
		m[r.Header.Get("x-webhook-id")]++
	}
	return m
}

// A process killed while requests are in flight (leases taken, no attempt recorded, no
// release) loses nothing: after a restart the unclaimed deliveries go at once and the
// claimed ones once their lease has run out.
func TestKilledProcessLosesNothing(t *testing.T) {
	// Not parallel: its waits (leases, restarts) have tight ceilings under -race.
	dir := t.TempDir()
	const timeout = 5 * time.Second
	rcv := apitest.NewReceiver(t)
	rcv.Hang()

	a := apitest.New(t, onFile(dir, timeout))
	w := a.Webhook(a.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	var events []app.Event
	for i := 0; i < 12; i++ {
		events = append(events, a.Emit(a.Org.ID, app.EventContactBlocked, map[string]int{"n": i}))
	}
	// 16 workers, at most 8 per endpoint: 8 requests hang, 4 deliveries stay unclaimed.
	perEndpoint := a.Runtime.Dispatcher.PerEndpoint
	rcv.Wait(t, perEndpoint, 5*time.Second)
	rcv.Quiet(t, perEndpoint, 50*time.Millisecond)
	lease := a.Runtime.Service.WebhookPolicy().Lease()
	if lease != 2*timeout+5*time.Second {
		t.Fatalf("lease %s, want 2*timeout+5s", lease)
	}

	// The kill: the database goes away first, so nothing the dying workers try (recording
	// an attempt, releasing a lease) reaches the file. Then stop the goroutines.
	a.Server.Close()
	if err := a.Runtime.DB.Close(); err != nil {
		t.Fatal(err)
	}
	a.Runtime.Close()

	rcv.Status(200)
	before := len(rcv.Requests())
	b := apitest.New(t, onFile(dir, timeout))
	if b.Org.ID != a.Org.ID {
		t.Fatalf("restart on another organization: %s, want %s", b.Org.ID, a.Org.ID)
	}
	// The unleased ones go at once, the leased ones wait for their lease.
	rcv.Wait(t, before+len(events)-perEndpoint, 5*time.Second)
	rcv.Quiet(t, before+len(events)-perEndpoint, 100*time.Millisecond)
	// Those must be recorded before the clock jumps, or their own fresh leases would expire too.
	b.Eventually(5*time.Second, "unleased deliveries SUCCEEDED", func() bool {
		return len(b.Deliveries(b.AdminKey, "c", w.ID, "?status=SUCCEEDED")) == len(events)-perEndpoint
	})
	pending := b.Deliveries(b.AdminKey, "c", w.ID, "?status=PENDING")
	if len(pending) != perEndpoint {
		t.Fatalf("%d PENDING after restart, want the %d leased", len(pending), perEndpoint)
	}
	for _, d := range pending {
		if d.AttemptsCount != 0 {
			t.Fatalf("killed attempt was recorded: %+v", d)
		}
	}
	b.Clock.Advance(lease - time.Second)
	rcv.Quiet(t, before+len(events)-perEndpoint, 100*time.Millisecond)
	b.Clock.Advance(time.Second)
	rcv.Wait(t, before+len(events), 5*time.Second)

	after := eventIDs(rcv.Requests()[before:])
	for _, evt := range events {
		if after[evt.ID] != 1 {
			t.Fatalf("event %s arrived %d times after the restart, want once", evt.ID, after[evt.ID])
		}
	}
	b.Eventually(5*time.Second, "every delivery SUCCEEDED", func() bool {
		ds := b.Deliveries(b.AdminKey, "c", w.ID, "?status=SUCCEEDED")
		return len(ds) == len(events)
	})
	for _, d := range b.Deliveries(b.AdminKey, "c", w.ID, "") {
		if d.AttemptsCount != 1 {
			t.Fatalf("delivery %+v, want exactly one recorded attempt", d)
		}
	}
}

// The same, with a runtime whose dispatcher never ran: claims taken by hand and the file
// closed without a release.
func TestClaimedButNeverSentIsDeliveredAfterTheLease(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const timeout = 2 * time.Second
	rcv := apitest.NewReceiver(t)
	cfg := cli.DefaultConfig()
	onFile(dir, timeout)(&cfg)
	cfg.Webhooks.AllowPrivateTargets = true
	ctx := context.Background()
	clock := app.NewManualClock(apitest.Start)
	rt, err := cli.Build(ctx, cfg, cli.Options{Clock: clock, Resolver: apitest.Resolver})
	if err != nil {
		t.Fatal(err)
	}
	svc := rt.Service
	nk, _, err := svc.Bootstrap(ctx, "admin")
	if err != nil {
		t.Fatal(err)
	}
	w, err := svc.CreateWebhook(ctx, nk.OrgID, app.WebhookInput{Name: "hook", URL: rcv.URL, Events: []string{app.EventContactBlocked}})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for i := 0; i < 5; i++ {
		err := svc.Store().Write(ctx, func(tx app.Tx) error {
			evt, err := svc.Emit(tx, nk.OrgID, app.EventContactBlocked, map[string]int{"n": i})
			ids[evt.ID] = true
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	jobs, err := svc.ClaimDeliveries(ctx, app.ClaimRoom{Limit: 3, PerQueue: 3})
	if err != nil || len(jobs) != 3 {
		t.Fatalf("claimed %d jobs, err %v; want 3", len(jobs), err)
	}
	if err := rt.DB.Close(); err != nil { // killed: the claims stay leased in the file
		t.Fatal(err)
	}

	b := apitest.New(t, onFile(dir, timeout))
	rcv.Wait(t, 2, 5*time.Second)
	rcv.Quiet(t, 2, 100*time.Millisecond)
	b.Eventually(5*time.Second, "unleased deliveries SUCCEEDED", func() bool {
		return len(b.Deliveries(b.AdminKey, "c", w.ID, "?status=SUCCEEDED")) == 2
	})
	b.Clock.Advance(svc.WebhookPolicy().Lease())
	got := rcv.Wait(t, 5, 5*time.Second)
	seen := eventIDs(got)
	for id := range ids {
		if seen[id] != 1 {
			t.Fatalf("event %s arrived %d times, want once", id, seen[id])
		}
	}
	for _, r := range got {
		verify(t, w.Secret, r)
	}
	b.Eventually(5*time.Second, "every delivery SUCCEEDED", func() bool {
		return len(b.Deliveries(b.AdminKey, "c", w.ID, "?status=SUCCEEDED")) == 5
	})
}

// A graceful shutdown releases the claims it cuts short, using no attempt: a restart
// delivers at once, without waiting for a lease.
func TestGracefulShutdownReleasesClaims(t *testing.T) {
	// Not parallel: it bounds how long a close takes.
	dir := t.TempDir()
	const timeout = 5 * time.Second
	rcv := apitest.NewReceiver(t)
	rcv.Hang()
	a := apitest.New(t, onFile(dir, timeout))
	w := a.Webhook(a.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	evt := a.Emit(a.Org.ID, app.EventContactBlocked, nil)
	rcv.Wait(t, 1, 5*time.Second)

	start := time.Now()
	a.Server.Close()
	if err := a.Runtime.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("graceful close took %s with a hanging request", d)
	}

	rcv.Status(200)
	b := apitest.New(t, onFile(dir, timeout))
	got := rcv.Wait(t, 2, 2*time.Second)[1]
	if got.Header.Get("x-webhook-id") != evt.ID || got.Header.Get("x-webhook-attempt") != "1" {
		t.Fatalf("after restart: headers %v, want attempt 1 of %s (the cut request used no attempt)", got.Header, evt.ID)
	}
	b.Eventually(5*time.Second, "delivery SUCCEEDED", func() bool {
		ds := b.Deliveries(b.AdminKey, "c", w.ID, "")
		return len(ds) == 1 && ds[0].Status == app.DeliverySucceeded && ds[0].AttemptsCount == 1
	})
}
