package sqlite_test

import (
	"testing"
	"time"

	"wsapi/app"
)

// TestIdempotencyKeys: the first request with a key claims it; a second while it runs finds
// it claimed and not done; once the response is saved a repeat gets it back (opened from its
// seal); a claim left unfinished past the stale age, or any past the expiry, is claimed
// anew; keys are per route; released keys are free again; purging drops old keys.
func TestIdempotencyKeys(t *testing.T) {
	t.Parallel()
	db := sealedDB(t)
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	k := app.IdempotencyKey{OrgID: newOrg(t, db, "org_1", "", 0).ID, Key: "k1", Route: "POST /contacts"}
	type claim struct {
		key     app.IdempotencyKey
		hash    string
		now     time.Duration // after t0
		claimed bool
		done    bool
		body    string
	}
	try := func(step string, c claim) {
		t.Helper()
		now := t0.Add(c.now)
		prev, claimed, err := db.ClaimIdempotencyKey(bg, c.key, c.hash, now, now.Add(-24*time.Hour), now.Add(-time.Minute))
		if err != nil || claimed != c.claimed || prev.Done != c.done || string(prev.Body) != c.body {
			t.Fatalf("%s: claimed %v, previous %+v (%v)", step, claimed, prev, err)
		}
		if !claimed && prev.RequestHash != "h1" {
			t.Fatalf("%s: previous hash %q", step, prev.RequestHash)
		}
	}
	try("first", claim{key: k, hash: "h1", claimed: true})
	try("while it runs", claim{key: k, hash: "h1", now: time.Second})
	other := k
	other.Route = "POST /segments"
	try("another route", claim{key: other, hash: "h9", now: time.Second, claimed: true})
	if err := db.SaveIdempotentResponse(bg, k, app.StoredResponse{Status: 201, ContentType: "application/json", Body: []byte(`{"id":1}`)}); err != nil {
		t.Fatal(err)
	}
	try("a repeat", claim{key: k, hash: "h1", now: 2 * time.Second, done: true, body: `{"id":1}`})
	try("a repeat after a day", claim{key: k, hash: "h2", now: 25 * time.Hour, claimed: true})
	try("the other route, stale", claim{key: other, hash: "h3", now: 2 * time.Minute, claimed: true})
	if err := db.ReleaseIdempotencyKey(bg, other); err != nil {
		t.Fatal(err)
	}
	try("released", claim{key: other, hash: "h4", now: 2*time.Minute + time.Second, claimed: true})
	n, err := db.PurgeIdempotencyKeys(bg, t0.Add(time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("purged %d (%v), want the other route's key", n, err)
	}
	try("after the purge", claim{key: other, hash: "h1", now: 3 * time.Minute, claimed: true})
}
