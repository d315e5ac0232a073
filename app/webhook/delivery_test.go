package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// verify checks a delivery's signature with an HMAC computed here, independently of Sign.
func verify(t *testing.T, secret string, r apitest.Received) {
	t.Helper()
	ts := r.Header.Get("x-webhook-timestamp")
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(r.Header.Get("x-webhook-id") + "." + ts + "." + string(r.Body)))
	want := "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
	if got := r.Header.Get("x-webhook-signature"); !hmac.Equal([]byte(got), []byte(want)) {
		t.Fatalf("signature %q, want %q", got, want)
	}
}

func TestDeliverySignedWithEnvelopeAndHeaders(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	rcv := apitest.NewReceiver(t)
	w := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	evt := e.Emit(e.Org.ID, app.EventContactBlocked, map[string]string{"id": "ct_1"})
	got := rcv.Wait(t, 1, 5*time.Second)[0]
	verify(t, w.Secret, got)
	var env map[string]any
	if err := json.Unmarshal(got.Body, &env); err != nil {
		t.Fatal(err)
	}
	if env["id"] != evt.ID || env["type"] != app.EventContactBlocked || env["org_id"] != e.Org.ID {
		t.Fatalf("envelope %v", env)
	}
	if env["created_at"] != evt.CreatedAt.String() || env["data"].(map[string]any)["id"] != "ct_1" {
		t.Fatalf("envelope %v", env)
	}
	h := got.Header
	if h.Get("x-webhook-id") != evt.ID || h.Get("x-webhook-event") != app.EventContactBlocked || h.Get("x-webhook-attempt") != "1" {
		t.Fatalf("headers %v", h)
	}
	if h.Get("x-webhook-timestamp") != strconv.FormatInt(apitest.Start.Unix(), 10) {
		t.Fatalf("timestamp %s, want the clock's %d", h.Get("x-webhook-timestamp"), apitest.Start.Unix())
	}
	e.Eventually(2*time.Second, "delivery SUCCEEDED", func() bool {
		ds := e.Deliveries(e.AdminKey, "c", w.ID, "")
		return len(ds) == 1 && ds[0].Status == app.DeliverySucceeded && len(ds[0].Attempts) == 1 &&
			*ds[0].Attempts[0].ResponseCode == 200
	})
}

func TestRetryScheduleSameEventIDAndFailedAfterSeventh(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	rcv := apitest.NewReceiver(t)
	rcv.Respond(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(strings.Repeat("x", 5000)))
	})
	w := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	evt := e.Emit(e.Org.ID, app.EventContactBlocked, map[string]string{})
	rcv.Wait(t, 1, 5*time.Second)
	// Move the clock only once the attempt is recorded: moving it past the claim's lease while
	// the attempt is in flight would (rightly) let another claim send it again.
	recorded := func(n int) {
		e.Eventually(5*time.Second, "attempt recorded", func() bool {
			ds := e.Deliveries(e.AdminKey, "c", w.ID, "")
			return len(ds) == 1 && ds[0].AttemptsCount == n
		})
	}
	schedule := []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour}
	for i, delay := range schedule {
		recorded(i + 1)
		e.Clock.Advance(delay - time.Second)
		rcv.Quiet(t, i+1, 100*time.Millisecond)
		e.Clock.Advance(time.Second)
		got := rcv.Wait(t, i+2, 5*time.Second)
		r := got[i+1]
		if r.Header.Get("x-webhook-id") != evt.ID || r.Header.Get("x-webhook-attempt") != strconv.Itoa(i+2) {
			t.Fatalf("attempt %d headers %v", i+2, r.Header)
		}
		verify(t, w.Secret, r)
	}
	e.Eventually(2*time.Second, "delivery FAILED", func() bool {
		ds := e.Deliveries(e.AdminKey, "c", w.ID, "?status=FAILED")
		return len(ds) == 1 && ds[0].AttemptsCount == 7 && len(ds[0].Attempts) == 7
	})
	d := e.Deliveries(e.AdminKey, "c", w.ID, "")[0]
	if d.NextAttemptAt.IsZero() == false || len(d.Attempts[6].ResponseBody) != 4096 || *d.Attempts[6].ResponseCode != 503 {
		t.Fatalf("final delivery %+v", d)
	}
	e.Clock.Advance(24 * time.Hour)
	rcv.Quiet(t, 7, 100*time.Millisecond)
}

func TestThirtyFailedDeliveriesDisableAndPatchReEnables(t *testing.T) {
	// Not parallel: its waits (leases, restarts) have tight ceilings under -race.
	e := apitest.New(t, func(c *cli.Config) { c.Webhooks.RetrySchedule = nil })
	rcv := apitest.NewReceiver(t)
	rcv.Status(500)
	w := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	for i := 0; i < 30; i++ {
		e.Emit(e.Org.ID, app.EventContactBlocked, map[string]int{"n": i})
	}
	rcv.Wait(t, 30, 10*time.Second)
	var got app.Webhook
	e.Eventually(2*time.Second, "endpoint disabled", func() bool {
		e.Do("GET", "/orgs/c/webhooks/"+w.ID, e.AdminKey, nil).Expect(200).JSON(&got)
		return !got.Enabled
	})
	if got.DisabledReason == nil || !strings.Contains(*got.DisabledReason, "30 deliveries in a row failed") || got.ConsecutiveFailures != 30 {
		t.Fatalf("disabled endpoint %+v", got)
	}
	// A disabled endpoint gets no new deliveries.
	e.Emit(e.Org.ID, app.EventContactBlocked, map[string]int{"n": 30})
	if n := len(e.Deliveries(e.AdminKey, "c", w.ID, "")); n != 30 {
		t.Fatalf("%d deliveries after disabling, want 30", n)
	}
	rcv.Status(200)
	e.Do("PATCH", "/orgs/c/webhooks/"+w.ID, e.AdminKey, map[string]any{"enabled": true}).Expect(200).JSON(&got)
	if !got.Enabled || got.DisabledReason != nil || got.ConsecutiveFailures != 0 {
		t.Fatalf("re-enabled endpoint %+v", got)
	}
	e.Emit(e.Org.ID, app.EventContactBlocked, map[string]int{"n": 31})
	rcv.Wait(t, 31, 5*time.Second)
}

func TestStreakResetBySuccess(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, func(c *cli.Config) { c.Webhooks.RetrySchedule = nil; c.Webhooks.DisableAfter = 3 })
	rcv := apitest.NewReceiver(t)
	rcv.Status(500)
	w := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	for i := 0; i < 2; i++ {
		e.Emit(e.Org.ID, app.EventContactBlocked, nil)
	}
	rcv.Wait(t, 2, 5*time.Second)
	var got app.Webhook
	e.Eventually(2*time.Second, "streak of 2", func() bool {
		e.Do("GET", "/orgs/c/webhooks/"+w.ID, e.AdminKey, nil).JSON(&got)
		return got.ConsecutiveFailures == 2
	})
	rcv.Status(204)
	e.Emit(e.Org.ID, app.EventContactBlocked, nil)
	rcv.Wait(t, 3, 5*time.Second)
	e.Eventually(2*time.Second, "streak reset", func() bool {
		e.Do("GET", "/orgs/c/webhooks/"+w.ID, e.AdminKey, nil).JSON(&got)
		return got.ConsecutiveFailures == 0
	})
	rcv.Status(500)
	for i := 0; i < 2; i++ {
		e.Emit(e.Org.ID, app.EventContactBlocked, nil)
	}
	rcv.Wait(t, 5, 5*time.Second)
	e.Eventually(2*time.Second, "streak of 2", func() bool {
		e.Do("GET", "/orgs/c/webhooks/"+w.ID, e.AdminKey, nil).JSON(&got)
		return got.ConsecutiveFailures == 2
	})
	if !got.Enabled {
		t.Fatalf("endpoint disabled after a reset streak: %+v", got)
	}
}
