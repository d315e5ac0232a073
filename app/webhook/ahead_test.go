package webhook_test

import (
	"context"
	"encoding/pem"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// threeOrgs makes three organizations (the bootstrap one and two more) with one endpoint
// each, at urls, and answers the endpoints, their organizations and admin keys. Each
// organization's endpoint may hold 8 of the 16 workers (its organization's cap is 12), so 20
// due deliveries each make the first claim take 24: 16 start, 8 are claimed ahead.
func threeOrgs(e *apitest.Env, urls [3]string) (ws [3]app.Webhook, orgs, keys [3]string) {
	orgs[0], keys[0] = e.Org.ID, e.AdminKey
	for i := 1; i < 3; i++ {
		o, k := e.TenantWithAdmin("Org " + string(rune('A'+i)))
		orgs[i], keys[i] = o.ID, k
	}
	for i, u := range urls {
		ws[i] = e.Webhook(keys[i], orgs[i], u, app.EventContactBlocked)
	}
	return ws, orgs, keys
}

// emitEach emits n events in each organization, in one transaction: the dispatcher's next
// round sees them all.
func emitEach(t *testing.T, e *apitest.Env, orgs [3]string, n int) map[string]bool {
	t.Helper()
	ids := map[string]bool{}
	svc := e.Runtime.Service
	err := svc.Store().Write(context.Background(), func(tx app.Tx) error {
		for i := 0; i < n; i++ {
			for _, org := range orgs {
				evt, err := svc.Emit(tx, org, app.EventContactBlocked, map[string]int{"n": i})
				if err != nil {
					return err
				}
				ids[evt.ID] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// Jobs claimed ahead of the free workers count against the per-endpoint cap: a round with
// every endpoint at its cap (counting those jobs) claims nothing more of theirs, so when two
// quick endpoints' answers free workers for the jobs claimed ahead, the endpoint that hangs
// still holds no more than its 8 requests.
func TestClaimedAheadJobsKeepTheCaps(t *testing.T) {
	e := apitest.New(t) // 16 workers, timeout 10 s: the hanging requests outlast the test
	hang := apitest.NewSilent(t)
	gate := make(chan struct{})
	var quick [2]*apitest.Receiver
	for i := range quick {
		quick[i] = apitest.NewReceiver(t)
		quick[i].Respond(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-gate:
			}
		})
	}
	_, orgs, _ := threeOrgs(e, [3]string{hang.URL, quick[0].URL, quick[1].URL})
	emitEach(t, e, orgs, 20)
	held := func() int { return hang.Accepted() + len(quick[0].Requests()) + len(quick[1].Requests()) }
	e.Eventually(5*time.Second, "every worker to hold a request", func() bool { return held() >= 16 })
	per := e.Runtime.Dispatcher.PerEndpoint
	// Usually fewer than its 8 (the first 16 start fairest first), but on a loaded machine the
	// workers may take the hanging endpoint's jobs first; its cap holds either way.
	if n := hang.Accepted(); n > per {
		t.Fatalf("the hanging endpoint holds %d requests before the others answer, over its cap of %d", n, per)
	}
	// A round now: every endpoint is at its cap, counting the jobs claimed ahead.
	e.Runtime.Dispatcher.Nudge()
	time.Sleep(100 * time.Millisecond)

	// The quick endpoints answer: the freed workers take the jobs claimed ahead, and the quick
	// endpoints' backlogs drain beside the hanging endpoint's 8 requests.
	close(gate)
	for _, q := range quick {
		q.Wait(t, 20, 5*slowdown*time.Second)
	}
	e.Eventually(2*time.Second, "the hanging endpoint to take its share", func() bool { return hang.Accepted() >= per })
	time.Sleep(100 * time.Millisecond) // and no more: a job claimed beyond the cap would start now
	if n := hang.Accepted(); n != per {
		t.Fatalf("the hanging endpoint holds %d requests, want its share of %d", n, per)
	}
}

// A graceful shutdown releases the jobs claimed ahead, using no attempt, as it does the
// requests it cuts short: after a restart every delivery goes at once, none waits for a lease.
func TestGracefulShutdownReleasesClaimedAheadJobs(t *testing.T) {
	// Not parallel: it bounds how long a close takes.
	dir := t.TempDir()
	const timeout = 5 * time.Second
	rcvs, urls := hangingReceivers(t)
	requests := func() (n int) {
		for _, r := range rcvs {
			n += len(r.Requests())
		}
		return n
	}
	a := apitest.New(t, onFile(dir, timeout))
	ws, orgs, keys := threeOrgs(a, urls)
	ids := emitEach(t, a, orgs, 20)
	a.Eventually(5*time.Second, "every worker to hold a request", func() bool { return requests() >= 16 })

	start := time.Now()
	a.Server.Close()
	if err := a.Runtime.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*slowdown*time.Second {
		t.Fatalf("graceful close took %s with 16 hanging requests and 8 jobs claimed ahead", d)
	}
	if n := requests(); n != 16 {
		t.Fatalf("%d requests before the restart, want the 16 workers' (none of the jobs claimed ahead)", n)
	}

	for _, r := range rcvs {
		r.Status(200)
	}
	b := apitest.New(t, onFile(dir, timeout)) // its clock never moves: no lease runs out
	b.Eventually(5*slowdown*time.Second, "every event delivered after the restart", func() bool {
		return requests() == 16+len(ids)
	})
	for _, r := range rcvs {
		for _, got := range r.Requests()[len(r.Requests())-20:] {
			if id := got.Header.Get("x-webhook-id"); !ids[id] || got.Header.Get("x-webhook-attempt") != "1" {
				t.Fatalf("after restart: event %s attempt %s, want attempt 1 (no attempt used before)", id,
					got.Header.Get("x-webhook-attempt"))
			}
		}
	}
	for i, w := range ws {
		b.Eventually(5*time.Second, "deliveries SUCCEEDED with one attempt", func() bool {
			ds := b.Deliveries(keys[i], orgs[i], w.ID, "?status=SUCCEEDED")
			return len(ds) == 20 && ds[0].AttemptsCount == 1 && ds[19].AttemptsCount == 1
		})
	}
}

// A process killed with jobs claimed ahead loses none of them: their leases are in the file,
// so after a restart they go once the lease has run out, like the requests cut short.
func TestKilledWithClaimedAheadJobsDeliversAfterTheLease(t *testing.T) {
	// Not parallel: its waits (leases, restarts) have tight ceilings under -race.
	dir := t.TempDir()
	const timeout = 5 * time.Second
	rcvs, urls := hangingReceivers(t)
	// received answers what arrived since the receivers had got from[i] requests each.
	received := func(from [3]int) (all []apitest.Received) {
		for i, r := range rcvs {
			all = append(all, r.Requests()[from[i]:]...)
		}
		return all
	}
	var none, before [3]int
	a := apitest.New(t, onFile(dir, timeout))
	ws, orgs, keys := threeOrgs(a, urls)
	ids := emitEach(t, a, orgs, 20)
	a.Eventually(5*time.Second, "every worker to hold a request", func() bool { return len(received(none)) >= 16 })

	// The kill: the database goes first, so neither a record nor a release reaches the file.
	a.Server.Close()
	if err := a.Runtime.DB.Close(); err != nil {
		t.Fatal(err)
	}
	a.Runtime.Close()

	for _, r := range rcvs {
		r.Status(200)
	}
	const leased = 16 + 8 // sent, and claimed ahead
	for i, r := range rcvs {
		before[i] = len(r.Requests())
	}
	b := apitest.New(t, onFile(dir, timeout))
	succeeded := func() (n int) {
		for i, w := range ws {
			n += len(b.Deliveries(keys[i], orgs[i], w.ID, "?status=SUCCEEDED"))
		}
		return n
	}
	// The unleased go at once and must be recorded before the clock jumps.
	b.Eventually(5*slowdown*time.Second, "the unleased deliveries SUCCEEDED", func() bool {
		return succeeded() == len(ids)-leased
	})
	if n := len(received(before)); n != len(ids)-leased {
		t.Fatalf("%d requests after the restart before the lease ran out, want the %d unleased", n, len(ids)-leased)
	}
	b.Clock.Advance(b.Runtime.Service.WebhookPolicy().Lease())
	b.Runtime.NudgeWorkers()
	b.Eventually(5*slowdown*time.Second, "every delivery SUCCEEDED", func() bool { return succeeded() == len(ids) })
	seen := eventIDs(received(before))
	for id := range ids {
		if seen[id] != 1 {
			t.Fatalf("event %s arrived %d times after the restart, want once", id, seen[id])
		}
	}
}

// A job that waited in the queue past its StartBy is handed back unattempted: no request,
// no attempt used, and the next claim takes it again at once (its lease released).
func TestJobPastItsStartIsHandedBack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const timeout = 4 * time.Second
	rcv := apitest.NewReceiver(t)
	cfg := cli.DefaultConfig()
	onFile(dir, timeout)(&cfg)
	cfg.Webhooks.AllowPrivateTargets = true
	cfg.Webhooks.CAFile = filepath.Join(dir, "ca.pem")
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rcv.Certificate().Raw})
	if err := os.WriteFile(cfg.Webhooks.CAFile, ca, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	clock := app.NewManualClock(apitest.Start)
	rt, err := cli.Build(ctx, cfg, cli.Options{Clock: clock, Resolver: apitest.Resolver})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	svc := rt.Service
	nk, _, err := svc.Bootstrap(ctx, "admin")
	if err != nil {
		t.Fatal(err)
	}
	w, err := svc.CreateWebhook(ctx, nk.OrgID, app.WebhookInput{Name: "hook", URL: rcv.URL, Events: []string{app.EventContactBlocked}})
	if err != nil {
		t.Fatal(err)
	}
	err = svc.Store().Write(ctx, func(tx app.Tx) error {
		_, err := svc.Emit(tx, nk.OrgID, app.EventContactBlocked, nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	claim := func() app.Job {
		t.Helper()
		jobs, err := svc.ClaimDeliveries(ctx, app.ClaimRoom{Limit: 1})
		if err != nil || len(jobs) != 1 {
			t.Fatalf("claimed %d jobs, err %v; want 1", len(jobs), err)
		}
		return jobs[0]
	}
	j := claim()
	if want := apitest.Start.Add(timeout / 2); !j.StartBy.Equal(want) {
		t.Fatalf("StartBy %s, want the claim's time plus half the timeout (%s)", j.StartBy, want)
	}
	clock.Advance(timeout/2 + time.Millisecond)
	rt.Dispatcher.RunJob(ctx, j)
	rcv.Quiet(t, 0, 50*time.Millisecond)

	again := claim() // released: no lease to wait for
	if again.DeliveryID != j.DeliveryID || again.Attempt != 1 {
		t.Fatalf("claimed %s attempt %d again, want %s attempt 1 (none used)", again.DeliveryID, again.Attempt, j.DeliveryID)
	}
	clock.Advance(timeout / 2) // exactly at StartBy: still in time
	rt.Dispatcher.RunJob(ctx, again)
	verify(t, w.Secret, rcv.Wait(t, 1, 5*time.Second)[0])
}

// hangingReceivers starts three receivers that hold every request until told otherwise.
func hangingReceivers(t *testing.T) (rcvs [3]*apitest.Receiver, urls [3]string) {
	for i := range rcvs {
		rcvs[i] = apitest.NewReceiver(t)
		rcvs[i].Hang()
		urls[i] = rcvs[i].URL
	}
	return rcvs, urls
}
