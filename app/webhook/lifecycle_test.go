package webhook_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// signedWith tells whether a received request carries a valid v1 signature for secret.
func signedWith(secret string, r apitest.Received) bool {
	ts := r.Header.Get("x-webhook-timestamp")
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(r.Header.Get("x-webhook-id") + "." + ts + "." + string(r.Body)))
	want := "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
	return hmac.Equal([]byte(r.Header.Get("x-webhook-signature")), []byte(want))
}

func TestZeroBalancePausesWithoutUsingAnAttempt(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	ctx := context.Background()
	rcv := apitest.NewReceiver(t)
	w := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	if _, err := e.Runtime.Service.SetBalance(ctx, e.Org.ID, 0); err != nil {
		t.Fatal(err)
	}
	evt := e.Emit(e.Org.ID, app.EventContactBlocked, nil)
	rcv.Quiet(t, 0, 200*time.Millisecond)
	// Time passing does not use attempts either.
	e.Clock.Advance(time.Hour)
	rcv.Quiet(t, 0, 50*time.Millisecond)
	ds := e.Deliveries(e.AdminKey, "c", w.ID, "")
	if len(ds) != 1 || ds[0].Status != app.DeliveryPending || ds[0].AttemptsCount != 0 || len(ds[0].Attempts) != 0 {
		t.Fatalf("paused deliveries %+v, want one PENDING with no attempt", ds)
	}
	if _, err := e.Runtime.Service.SetBalance(ctx, e.Org.ID, 100); err != nil {
		t.Fatal(err)
	}
	got := rcv.Wait(t, 1, 5*time.Second)[0]
	if got.Header.Get("x-webhook-id") != evt.ID || got.Header.Get("x-webhook-attempt") != "1" {
		t.Fatalf("resumed delivery headers %v, want attempt 1 of %s", got.Header, evt.ID)
	}
	e.Eventually(2*time.Second, "delivery SUCCEEDED", func() bool {
		ds := e.Deliveries(e.AdminKey, "c", w.ID, "")
		return ds[0].Status == app.DeliverySucceeded && ds[0].AttemptsCount == 1
	})
	var wh app.Webhook
	e.Do("GET", "/orgs/c/webhooks/"+w.ID, e.AdminKey, nil).Expect(200).JSON(&wh)
	if wh.ConsecutiveFailures != 0 || !wh.Enabled {
		t.Fatalf("endpoint after a pause %+v", wh)
	}
}

func TestNegativeBalancePausesToo(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	ctx := context.Background()
	rcv := apitest.NewReceiver(t)
	e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	if _, err := e.Runtime.Service.SetBalance(ctx, e.Org.ID, -5); err != nil {
		t.Fatal(err)
	}
	e.Emit(e.Org.ID, app.EventContactBlocked, nil)
	rcv.Quiet(t, 0, 100*time.Millisecond)
	if _, err := e.Runtime.Service.SetBalance(ctx, e.Org.ID, 0.5); err != nil {
		t.Fatal(err)
	}
	rcv.Wait(t, 1, 5*time.Second)
}

// A disabled endpoint gets no new deliveries; a delivery already pending waits (no attempt
// used while disabled) and goes out when the endpoint is enabled again.
func TestDisabledEndpointWaitsAndResumes(t *testing.T) {
	// Not parallel: its waits (leases, restarts) have tight ceilings under -race.
	e := apitest.New(t)
	rcv := apitest.NewReceiver(t)
	rcv.Status(500)
	w := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	evt := e.Emit(e.Org.ID, app.EventContactBlocked, nil)
	rcv.Wait(t, 1, 5*time.Second)
	d := settled(e, w.ID, 1)
	if d.Status != app.DeliveryPending || !d.NextAttemptAt.Equal(apitest.Start.Add(5*time.Second)) {
		t.Fatalf("delivery %+v, want PENDING with a retry 5 s after the first attempt", d)
	}

	var wh app.Webhook
	e.Do("PATCH", "/orgs/c/webhooks/"+w.ID, e.AdminKey, map[string]any{"enabled": false}).Expect(200).JSON(&wh)
	if wh.Enabled {
		t.Fatalf("PATCH enabled=false answered %+v", wh)
	}
	// No new delivery for a disabled endpoint.
	e.Emit(e.Org.ID, app.EventContactBlocked, nil)
	if ds := e.Deliveries(e.AdminKey, "c", w.ID, ""); len(ds) != 1 {
		t.Fatalf("%d deliveries after an event for a disabled endpoint, want 1", len(ds))
	}
	// The pending one is due but waits.
	rcv.Status(200)
	e.Clock.Advance(10 * time.Second)
	rcv.Quiet(t, 1, 200*time.Millisecond)
	e.Clock.Advance(24 * time.Hour)
	rcv.Quiet(t, 1, 50*time.Millisecond)
	if d := settled(e, w.ID, 1); d.AttemptsCount != 1 || d.Status != app.DeliveryPending {
		t.Fatalf("waiting delivery %+v, want PENDING with 1 attempt", d)
	}

	e.Do("PATCH", "/orgs/c/webhooks/"+w.ID, e.AdminKey, map[string]any{"enabled": true}).Expect(200).JSON(&wh)
	got := rcv.Wait(t, 2, 5*time.Second)[1]
	if got.Header.Get("x-webhook-id") != evt.ID || got.Header.Get("x-webhook-attempt") != "2" {
		t.Fatalf("resumed request headers %v, want attempt 2 of %s", got.Header, evt.ID)
	}
	verify(t, w.Secret, got)
	e.Eventually(2*time.Second, "delivery SUCCEEDED", func() bool {
		ds := e.Deliveries(e.AdminKey, "c", w.ID, "")
		return len(ds) == 1 && ds[0].Status == app.DeliverySucceeded && ds[0].AttemptsCount == 2
	})
	rcv.Quiet(t, 2, 50*time.Millisecond)
}

func TestRotateSignsWithTheNewSecretOnly(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	rcv := apitest.NewReceiver(t)
	w := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	e.Emit(e.Org.ID, app.EventContactBlocked, nil)
	first := rcv.Wait(t, 1, 5*time.Second)[0]
	if !signedWith(w.Secret, first) {
		t.Fatal("first delivery not signed with the create secret")
	}

	var rotated app.Webhook
	e.Do("POST", "/orgs/c/webhooks/"+w.ID+"/rotate", e.AdminKey, nil).Expect(200).JSON(&rotated)
	if rotated.ID != w.ID || rotated.Secret == w.Secret || !strings.HasPrefix(rotated.Secret, app.SecretPrefix) ||
		len(rotated.Secret) != len(w.Secret) || strings.HasSuffix(rotated.Secret, "…") {
		t.Fatalf("rotate answered secret %q (old %q), want a new full whsec_ secret", rotated.Secret, w.Secret)
	}
	var got app.Webhook
	e.Do("GET", "/orgs/c/webhooks/"+w.ID, e.AdminKey, nil).Expect(200).JSON(&got)
	if got.Secret == rotated.Secret || !strings.HasSuffix(got.Secret, "…") {
		t.Fatalf("GET after rotate shows secret %q, want it masked", got.Secret)
	}

	e.Emit(e.Org.ID, app.EventContactBlocked, nil)
	next := rcv.Wait(t, 2, 5*time.Second)[1]
	if !signedWith(rotated.Secret, next) {
		t.Fatal("delivery after rotate not signed with the new secret")
	}
	if signedWith(w.Secret, next) {
		t.Fatal("delivery after rotate still verifies with the old secret")
	}
	// The test ping too.
	e.Do("POST", "/orgs/c/webhooks/"+w.ID+"/test", e.AdminKey, nil).Expect(200)
	ping := rcv.Wait(t, 3, 5*time.Second)[2]
	if !signedWith(rotated.Secret, ping) || signedWith(w.Secret, ping) {
		t.Fatal("ping after rotate not signed with the new secret only")
	}
}

// A retry pending when the secret rotates is signed with the new secret.
func TestRotateAppliesToPendingRetries(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	rcv := apitest.NewReceiver(t)
	rcv.Status(503)
	w := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	e.Emit(e.Org.ID, app.EventContactBlocked, nil)
	rcv.Wait(t, 1, 5*time.Second)
	settled(e, w.ID, 1)
	var rotated app.Webhook
	e.Do("POST", "/orgs/c/webhooks/"+w.ID+"/rotate", e.AdminKey, nil).Expect(200).JSON(&rotated)
	rcv.Status(200)
	e.Clock.Advance(5 * time.Second)
	retry := rcv.Wait(t, 2, 5*time.Second)[1]
	if retry.Header.Get("x-webhook-attempt") != "2" || !signedWith(rotated.Secret, retry) || signedWith(w.Secret, retry) {
		t.Fatalf("retry after rotate: attempt %s, not signed with the new secret only", retry.Header.Get("x-webhook-attempt"))
	}
}

func TestReplayFailedAndSucceededDeliveries(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, func(c *cli.Config) { c.Webhooks.RetrySchedule = nil })
	rcv := apitest.NewReceiver(t)
	rcv.Status(500)
	w := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	other := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactUnsubscribed)
	evt := e.Emit(e.Org.ID, app.EventContactBlocked, map[string]string{"id": "ct_9"})
	first := rcv.Wait(t, 1, 5*time.Second)[0]
	orig := settled(e, w.ID, 1)
	if orig.Status != app.DeliveryFailed {
		t.Fatalf("delivery %+v, want FAILED with an empty retry schedule", orig)
	}

	rcv.Status(200)
	e.Clock.Advance(time.Second)
	// The delivery belongs to w, not to other: 404.
	e.Do("POST", "/orgs/c/webhooks/"+other.ID+"/deliveries/"+orig.ID+"/replay", e.AdminKey, nil).ExpectError(404, "not_found")
	e.Do("POST", "/orgs/c/webhooks/"+w.ID+"/deliveries/dlv_doesnotexist/replay", e.AdminKey, nil).ExpectError(404, "not_found")
	rcv.Quiet(t, 1, 50*time.Millisecond)

	var replay app.Delivery
	e.Do("POST", "/orgs/c/webhooks/"+w.ID+"/deliveries/"+orig.ID+"/replay", e.AdminKey, nil).Expect(202).JSON(&replay)
	if replay.ID == orig.ID || !strings.HasPrefix(replay.ID, "dlv_") || replay.EventID != evt.ID || replay.WebhookID != w.ID {
		t.Fatalf("replay answered %+v", replay)
	}
	again := rcv.Wait(t, 2, 5*time.Second)[1]
	if again.Header.Get("x-webhook-id") != evt.ID || again.Header.Get("x-webhook-id") != first.Header.Get("x-webhook-id") ||
		string(again.Body) != string(first.Body) {
		t.Fatalf("replayed request id %s body %s, want the original event", again.Header.Get("x-webhook-id"), again.Body)
	}
	verify(t, w.Secret, again)

	byID := func() map[string]app.Delivery {
		m := map[string]app.Delivery{}
		for _, d := range e.Deliveries(e.AdminKey, "c", w.ID, "") {
			m[d.ID] = d
		}
		return m
	}
	e.Eventually(2*time.Second, "replay SUCCEEDED", func() bool {
		return byID()[replay.ID].Status == app.DeliverySucceeded
	})
	m := byID()
	if len(m) != 2 || m[orig.ID].Status != app.DeliveryFailed || m[orig.ID].AttemptsCount != 1 || m[replay.ID].AttemptsCount != 1 {
		t.Fatalf("after replay: %+v", m)
	}

	// A SUCCEEDED delivery can be replayed as well.
	e.Clock.Advance(time.Second)
	var replay2 app.Delivery
	e.Do("POST", "/orgs/c/webhooks/"+w.ID+"/deliveries/"+replay.ID+"/replay", e.AdminKey, nil).Expect(202).JSON(&replay2)
	third := rcv.Wait(t, 3, 5*time.Second)[2]
	if third.Header.Get("x-webhook-id") != evt.ID || third.Header.Get("x-webhook-attempt") != "1" {
		t.Fatalf("second replay headers %v", third.Header)
	}
	e.Eventually(2*time.Second, "second replay SUCCEEDED", func() bool {
		return byID()[replay2.ID].Status == app.DeliverySucceeded
	})
	if m := byID(); len(m) != 3 || m[replay.ID].Status != app.DeliverySucceeded || m[orig.ID].Status != app.DeliveryFailed {
		t.Fatalf("after the second replay: %+v", m)
	}
}

var errRolledBack = errors.New("feature failed after emitting")

// The outbox: an event emitted in a transaction that rolls back leaves nothing behind.
func TestRolledBackTransactionEmitsNothing(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	rcv := apitest.NewReceiver(t)
	w := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	svc := e.Runtime.Service
	var evt app.Event
	err := svc.Store().Write(context.Background(), func(tx app.Tx) error {
		var err error
		if evt, err = svc.Emit(tx, e.Org.ID, app.EventContactBlocked, map[string]string{"id": "ct_1"}); err != nil {
			return err
		}
		return errRolledBack
	})
	if !errors.Is(err, errRolledBack) {
		t.Fatalf("Write answered %v", err)
	}
	if ds := e.Deliveries(e.AdminKey, "c", w.ID, ""); len(ds) != 0 {
		t.Fatalf("rolled back event left deliveries %+v", ds)
	}
	err = svc.Store().Read(context.Background(), func(tx app.Tx) error {
		_, _, err := tx.GetEvent(e.Org.ID, evt.ID)
		return err
	})
	if !app.IsNotFound(err) {
		t.Fatalf("rolled back event still readable: %v", err)
	}
	rcv.Quiet(t, 0, 100*time.Millisecond)
	// The pipeline still works for the next committed event.
	e.Emit(e.Org.ID, app.EventContactBlocked, nil)
	rcv.Wait(t, 1, 5*time.Second)
}
