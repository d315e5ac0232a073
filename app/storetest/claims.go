package storetest

import (
	"sync"
	"testing"
	"time"

	"wsapi/app"
)

// claimsLeaseEachPieceOnce: the workers of every process claim due work in write
// transactions; a piece is leased to one claimer, is not claimed again while its lease
// holds, is due again once it lapses (a crashed worker loses nothing) or once it is
// released. Two claimers at once never take the same piece.
func claimsLeaseEachPieceOnce(t *testing.T, e *env) {
	hook, err := e.svc.CreateWebhook(e.ctx, e.org, app.WebhookInput{Name: "hook", URL: "https://127.0.0.1:9/hook",
		Events: []string{app.EventContactBlocked}})
	if err != nil {
		t.Fatal(err)
	}
	const pieces = 12
	for i := range pieces {
		e.clock.Advance(time.Second)
		e.write(func(tx app.Tx) error {
			_, err := e.svc.Emit(tx, e.org, app.EventContactBlocked, map[string]int{"n": i})
			return err
		})
	}
	lease := time.Minute
	claim := func(limit int) ([]app.Job, error) {
		var jobs []app.Job
		now := e.clock.Now()
		err := e.store.Write(e.ctx, func(tx app.Tx) (err error) {
			jobs, err = tx.ClaimDue(app.At(now), app.At(now.Add(lease)), app.ClaimRoom{Limit: limit})
			return err
		})
		return jobs, err
	}
	var mu sync.Mutex
	taken := map[string]int{}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2 { // 8 of the 12 pieces at most: some are left for the claim after
				jobs, err := claim(1)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, j := range jobs {
					taken[j.DeliveryID]++
					if j.WebhookID != hook.ID || j.OrgID != e.org {
						t.Errorf("a claim answered %+v", j)
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for id, n := range taken {
		if n != 1 {
			t.Errorf("delivery %s was claimed %d times at once", id, n)
		}
	}
	rest, err := claim(pieces)
	if err != nil {
		t.Fatal(err)
	}
	if len(taken)+len(rest) != pieces {
		t.Fatalf("%d claimed at once and %d after, want %d in all", len(taken), len(rest), pieces)
	}
	if again, err := claim(pieces); err != nil || len(again) != 0 {
		t.Fatalf("leased pieces were claimed again: %d (%v)", len(again), err)
	}
	e.expectDue(false, "with every piece leased")
	// A released piece is due at once; the others when their lease lapses.
	e.write(func(tx app.Tx) error { return tx.ReleaseDelivery(rest[0].DeliveryID) })
	if got, err := claim(pieces); err != nil || len(got) != 1 || got[0].DeliveryID != rest[0].DeliveryID {
		t.Fatalf("after a release the claim took %d (%v), want the released piece", len(got), err)
	}
	e.clock.Advance(lease + time.Second)
	e.expectDue(true, "once the leases lapsed")
	if got, err := claim(pieces); err != nil || len(got) != pieces {
		t.Fatalf("after the leases lapsed the claim took %d (%v), want %d", len(got), err, pieces)
	}
}

// expectDue checks the readers' cheap look for due deliveries.
func (e *env) expectDue(want bool, when string) {
	e.t.Helper()
	e.read(func(tx app.Tx) error {
		due, err := tx.AnyDeliveryDue(app.At(e.clock.Now()))
		if err == nil && due != want {
			e.t.Errorf("deliveries due %s: %v, want %v", when, due, want)
		}
		return err
	})
}
