package webhook_test

import (
	"context"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

// Finished deliveries older than webhooks.retention (7 days) are purged with their attempts;
// younger ones and pending ones, however old, are kept.
func TestRetentionPurgesOldFinishedDeliveriesOnly(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	ctx := context.Background()
	svc := e.Runtime.Service
	rcv := apitest.NewReceiver(t)
	w := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	sub, subKey := e.OrgWithAdmin("Paused")
	sw := e.Webhook(subKey, "c", rcv.URL, app.EventContactBlocked)
	if _, err := svc.SetBalance(ctx, sub.ID, 0); err != nil {
		t.Fatal(err)
	}

	// Day 0: one delivery succeeds, one (paused workspace) stays pending.
	old := e.Emit(e.Org.ID, app.EventContactBlocked, map[string]string{"age": "old"})
	paused := e.Emit(sub.ID, app.EventContactBlocked, nil)
	rcv.Wait(t, 1, 5*time.Second)
	oldDlv := settled(e, w.ID, 1)
	// Day 3: a second delivery succeeds.
	e.Clock.Advance(3 * 24 * time.Hour)
	young := e.Emit(e.Org.ID, app.EventContactBlocked, map[string]string{"age": "young"})
	rcv.Wait(t, 2, 5*time.Second)
	e.Eventually(5*time.Second, "young delivery SUCCEEDED", func() bool {
		return len(e.Deliveries(e.AdminKey, "c", w.ID, "?status=SUCCEEDED")) == 2
	})

	// Exactly 7 days after: nothing is older than the cut-off yet.
	e.Clock.Advance(4 * 24 * time.Hour)
	if n, err := svc.PurgeDeliveries(ctx); err != nil || n != 0 {
		t.Fatalf("purge at exactly 7 days removed %d, %v; want 0", n, err)
	}
	e.Clock.Advance(time.Second)
	n, err := svc.PurgeDeliveries(ctx)
	if err != nil || n != 1 {
		t.Fatalf("purge removed %d, %v; want 1", n, err)
	}
	ds := e.Deliveries(e.AdminKey, "c", w.ID, "")
	if len(ds) != 1 || ds[0].EventID != young.ID || ds[0].Status != app.DeliverySucceeded || len(ds[0].Attempts) != 1 {
		t.Fatalf("after purge: %+v, want only the young delivery", ds)
	}
	pending := e.Deliveries(subKey, "c", sw.ID, "")
	if len(pending) != 1 || pending[0].EventID != paused.ID || pending[0].Status != app.DeliveryPending {
		t.Fatalf("paused delivery after purge: %+v", pending)
	}
	// The purged delivery's event goes with it; the kept ones' events stay.
	err = svc.Store().Read(ctx, func(tx app.Tx) error {
		if _, _, err := tx.GetEvent(e.Org.ID, old.ID); !app.IsNotFound(err) {
			t.Errorf("purged delivery's event: %v, want not found", err)
		}
		if _, _, err := tx.GetEvent(sub.ID, paused.ID); err != nil {
			t.Errorf("pending delivery's event: %v", err)
		}
		_, err := tx.GetDelivery("", oldDlv.ID)
		if !app.IsNotFound(err) {
			t.Errorf("purged delivery: %v, want not found", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// The kept pending delivery still goes out once the workspace is topped up.
	if _, err := svc.SetBalance(ctx, sub.ID, 100); err != nil {
		t.Fatal(err)
	}
	got := rcv.Wait(t, 3, 5*time.Second)[2]
	if got.Header.Get("x-webhook-id") != paused.ID {
		t.Fatalf("resumed delivery is %s, want %s", got.Header.Get("x-webhook-id"), paused.ID)
	}
	verify(t, sw.Secret, got)
	e.Eventually(5*time.Second, "resumed delivery SUCCEEDED", func() bool {
		ds := e.Deliveries(subKey, "c", sw.ID, "")
		return len(ds) == 1 && ds[0].Status == app.DeliverySucceeded
	})
	// Replaying a delivery whose event is still kept works after a purge elsewhere.
	e.Do("POST", "/orgs/c/webhooks/"+w.ID+"/deliveries/"+ds[0].ID+"/replay", e.AdminKey, nil).Expect(202)
	rcv.Wait(t, 4, 5*time.Second)
}
