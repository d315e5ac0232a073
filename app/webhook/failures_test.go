package webhook_test

import (
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// settled waits until the endpoint's only delivery has n attempts and answers it.
func settled(e *apitest.Env, webhookID string, n int) app.Delivery {
	e.T.Helper()
	var d app.Delivery
	// A ceiling for a stuck worker, not a bound: parallel -race tests on a busy machine.
	e.Eventually(20*time.Second, "attempt "+strconv.Itoa(n)+" recorded", func() bool {
		ds := e.Deliveries(e.AdminKey, "c", webhookID, "")
		if len(ds) != 1 || len(ds[0].Attempts) < n {
			return false
		}
		d = ds[0]
		return true
	})
	return d
}

// A name that passed the check at create but points at loopback when dialled: the dial-time
// guard refuses it, and the attempt says so.
func TestDNSRebindingRefusedAtDial(t *testing.T) {
	t.Parallel()
	e := strictEnv(t)
	rcv := apitest.NewReceiver(t)
	host := "rebind.example.test"
	apitest.Resolver.Set(host, apitest.Addrs("93.184.216.34"), apitest.Addrs("127.0.0.1"))
	url := "https://" + host + ":" + rcv.URL[strings.LastIndex(rcv.URL, ":")+1:] + "/hook"
	w := e.Webhook(e.AdminKey, "c", url, app.EventContactBlocked)
	e.Emit(e.Org.ID, app.EventContactBlocked, map[string]string{"id": "ct_1"})
	d := settled(e, w.ID, 1)
	a := d.Attempts[0]
	if a.Status != app.AttemptFailed || a.ResponseCode != nil || a.Error == nil {
		t.Fatalf("attempt %+v, want failed with an error and no response", a)
	}
	if !strings.Contains(*a.Error, "forbidden target address") || !strings.Contains(*a.Error, "127.0.0.1") ||
		!strings.Contains(*a.Error, "loopback") {
		t.Fatalf("attempt error %q does not name the forbidden address", *a.Error)
	}
	if d.Status != app.DeliveryPending || d.AttemptsCount != 1 {
		t.Fatalf("delivery %+v, want PENDING with a retry", d)
	}
	rcv.Quiet(t, 0, 50*time.Millisecond)
	// The retry resolves again and is refused again.
	e.Clock.Advance(5 * time.Second)
	d = settled(e, w.ID, 2)
	if !strings.Contains(*d.Attempts[1].Error, "forbidden target address") {
		t.Fatalf("second attempt %+v", d.Attempts[1])
	}
	rcv.Quiet(t, 0, 50*time.Millisecond)
}

// The test operation goes through the same guarded client.
func TestPingToRebindingHostRefused(t *testing.T) {
	t.Parallel()
	e := strictEnv(t)
	rcv := apitest.NewReceiver(t)
	host := "rebind-ping.example.test"
	apitest.Resolver.Set(host, apitest.Addrs("93.184.216.34"), apitest.Addrs("::1", "127.0.0.1"))
	url := "https://" + host + ":" + rcv.URL[strings.LastIndex(rcv.URL, ":")+1:] + "/hook"
	w := e.Webhook(e.AdminKey, "c", url, app.EventContactBlocked)
	var a app.Attempt
	e.Do("POST", "/orgs/c/webhooks/"+w.ID+"/test", e.AdminKey, nil).Expect(200).JSON(&a)
	if a.Status != app.AttemptFailed || a.Error == nil || !strings.Contains(*a.Error, "forbidden target address") {
		t.Fatalf("ping attempt %+v", a)
	}
	rcv.Quiet(t, 0, 50*time.Millisecond)
}

func TestRedirectIsAFailedAttemptAndNotFollowed(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	target := apitest.NewReceiver(t)
	rcv := apitest.NewReceiver(t)
	rcv.Respond(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/elsewhere", http.StatusFound)
	})
	w := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	e.Emit(e.Org.ID, app.EventContactBlocked, nil)
	d := settled(e, w.ID, 1)
	a := d.Attempts[0]
	if a.Status != app.AttemptFailed || a.ResponseCode == nil || *a.ResponseCode != 302 || d.Status != app.DeliveryPending {
		t.Fatalf("delivery %+v attempt %+v, want a failed attempt with 302", d, a)
	}
	if a.Error == nil || !strings.Contains(*a.Error, "redirects are not followed") {
		t.Fatalf("attempt error %v", a.Error)
	}
	target.Quiet(t, 0, 50*time.Millisecond)
	if n := len(rcv.Requests()); n != 1 {
		t.Fatalf("receiver got %d requests, want 1", n)
	}
}

func TestConnectionClosedIsAFailedAttempt(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	rcv := apitest.NewReceiver(t)
	rcv.Respond(func(w http.ResponseWriter, _ *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	})
	w := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	e.Emit(e.Org.ID, app.EventContactBlocked, nil)
	d := settled(e, w.ID, 1)
	a := d.Attempts[0]
	if a.Status != app.AttemptFailed || a.ResponseCode != nil || a.Error == nil || *a.Error == "" {
		t.Fatalf("attempt %+v, want failed with an error and no response code", a)
	}
	if d.Status != app.DeliveryPending || d.AttemptsCount != 1 {
		t.Fatalf("delivery %+v, want PENDING after one attempt", d)
	}
}

func TestHangingReceiverTimesOut(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, func(c *cli.Config) { c.Webhooks.Timeout = 300 * time.Millisecond })
	rcv := apitest.NewReceiver(t)
	rcv.Hang()
	w := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	e.Emit(e.Org.ID, app.EventContactBlocked, nil)
	rcv.Wait(t, 1, 5*time.Second)
	d := settled(e, w.ID, 1)
	a := d.Attempts[0]
	if a.Status != app.AttemptFailed || a.ResponseCode != nil || a.Error == nil {
		t.Fatalf("attempt %+v, want failed with an error", a)
	}
	if !strings.Contains(*a.Error, "timed out") {
		t.Fatalf("attempt error %q does not say it timed out", *a.Error)
	}
	if a.DurationMs < 250 || a.DurationMs > 5000 {
		t.Fatalf("attempt took %v ms, want about the 300 ms timeout", a.DurationMs)
	}
}

// Any 2xx is success; the body kept is at most 4 KiB.
func TestAny2xxSucceedsAndBodyIsCapped(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	rcv := apitest.NewReceiver(t)
	var calls atomic.Int32
	rcv.Respond(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusAccepted)
			w.Write([]byte("queued"))
			return
		}
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(strings.Repeat("ab", 5000)))
	})
	w := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	e.Emit(e.Org.ID, app.EventContactBlocked, nil)
	d := settled(e, w.ID, 1)
	if d.Status != app.DeliverySucceeded || *d.Attempts[0].ResponseCode != 202 || d.Attempts[0].ResponseBody != "queued" ||
		d.Attempts[0].Error != nil || d.Attempts[0].Status != app.AttemptSucceeded {
		t.Fatalf("202 delivery %+v attempts %+v", d, d.Attempts)
	}
	e.Clock.Advance(time.Second)
	e.Emit(e.Org.ID, app.EventContactBlocked, nil)
	e.Eventually(5*time.Second, "second delivery settled", func() bool {
		ds := e.Deliveries(e.AdminKey, "c", w.ID, "?status=SUCCEEDED")
		return len(ds) == 2
	})
	big := e.Deliveries(e.AdminKey, "c", w.ID, "")[0] // newest first
	if len(big.Attempts) != 1 || big.Attempts[0].ResponseBody != strings.Repeat("ab", 2048) {
		t.Fatalf("stored body of %d bytes, want the first 4096", len(big.Attempts[0].ResponseBody))
	}
}
