package webhook_test

import (
	"context"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

// One organization's four endpoints accept TCP and never answer, with a deep backlog each:
// they hold at most the organization's share of the workers, and another organization's
// delivery still arrives at once (before this change it waited for the whole backlog, a
// timeout at a time).
func TestHangingOrgDoesNotDelayOtherOrgs(t *testing.T) {
	// The timeout (the default 10 s) is well past the 2 s the other organization may wait, so
	// a worker held by a hanging request cannot free itself in time to hide the unfairness.
	e := apitest.New(t)
	svc := e.Runtime.Service
	silent := make([]*apitest.Silent, 4)
	for i := range silent {
		silent[i] = apitest.NewSilent(t)
		e.Webhook(e.AdminKey, "c", silent[i].URL, app.EventContactBlocked)
	}
	err := svc.Store().Write(context.Background(), func(tx app.Tx) error {
		for i := 0; i < 250; i++ {
			if _, err := svc.Emit(tx, e.Org.ID, app.EventContactBlocked, map[string]int{"n": i}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	d := e.Runtime.Dispatcher
	held := func() int {
		n := 0
		for _, s := range silent {
			n += s.Accepted()
		}
		return n
	}
	e.Eventually(5*time.Second, "the hanging endpoints to take their share", func() bool { return held() >= d.PerOrg })

	other, key := e.TenantWithAdmin("Other")
	healthy := apitest.NewReceiver(t)
	hw := e.Webhook(key, other.ID, healthy.URL, app.EventContactUnsubscribed)
	start := time.Now()
	evt := e.Emit(other.ID, app.EventContactUnsubscribed, map[string]string{"contact_id": "ct_1"})
	got := healthy.Wait(t, 1, 2*time.Second)
	t.Logf("the other organization's delivery arrived in %s beside %d hanging requests and 1,000 queued",
		time.Since(start), held())
	if got[0].Header.Get("x-webhook-id") != evt.ID {
		t.Fatalf("unexpected event %s", got[0].Header.Get("x-webhook-id"))
	}
	verify(t, hw.Secret, got[0])
	if n := held(); n != d.PerOrg {
		t.Fatalf("the hanging organization holds %d requests, want its share of %d (of %d workers)",
			n, d.PerOrg, e.Runtime.Config.Webhooks.Workers)
	}
}
