package webhook_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

// slowdown scales wall-clock bounds: 1, or more in -race builds (race_test.go).
var slowdown time.Duration = 1

// One endpoint that hangs with a deep backlog holds at most its share of the workers: a
// healthy endpoint's deliveries still go out at once.
func TestHangingEndpointDoesNotStarveOthers(t *testing.T) {
	e := apitest.New(t) // 16 workers, timeout 10 s: the hanging requests outlast the test
	stuck := apitest.NewReceiver(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) }) // runs before the receiver's own clean-up
	stuck.Respond(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	healthy := apitest.NewReceiver(t)
	e.Webhook(e.AdminKey, "c", stuck.URL, app.EventContactBlocked)
	hw := e.Webhook(e.AdminKey, "c", healthy.URL, app.EventContactUnsubscribed)

	svc := e.Runtime.Service
	err := svc.Store().Write(context.Background(), func(tx app.Tx) error {
		for i := 0; i < 1000; i++ {
			if _, err := svc.Emit(tx, e.Org.ID, app.EventContactBlocked, map[string]int{"n": i}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	per := e.Runtime.Dispatcher.PerEndpoint
	stuck.Wait(t, per, 5*time.Second)

	start := time.Now()
	want := map[string]bool{}
	for i := 0; i < 20; i++ {
		want[e.Emit(e.Org.ID, app.EventContactUnsubscribed, map[string]int{"n": i}).ID] = true
	}
	got := healthy.Wait(t, 20, slowdown*time.Second)
	if d := time.Since(start); d > slowdown*time.Second {
		t.Fatalf("20 healthy deliveries took %s behind a hanging endpoint", d)
	} else {
		t.Logf("20 healthy deliveries in %s beside %d hanging requests and 1,000 queued", d, per)
	}
	for _, r := range got {
		if !want[r.Header.Get("x-webhook-id")] {
			t.Fatalf("unexpected event %s at the healthy endpoint", r.Header.Get("x-webhook-id"))
		}
		verify(t, hw.Secret, r)
	}
	if n := len(stuck.Requests()); n != per {
		t.Fatalf("hanging endpoint holds %d requests, want its share of %d", n, per)
	}
}
