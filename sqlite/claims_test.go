package sqlite_test

import (
	"fmt"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/secret"
	"wsapi/sqlite"
)

// claimEnv is a migrated store with a service to seed it and a manual clock, so that each
// seeded item is a second older than the next.
type claimEnv struct {
	db    *sqlite.DB
	svc   *app.Service
	clock *app.ManualClock
}

func newClaimEnv(t *testing.T) *claimEnv {
	t.Helper()
	db, _ := openDB(t)
	box, err := secret.New(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	db.SetSealer(box)
	clock := app.NewManualClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	svc := app.NewService(app.Deps{Store: db, Clock: clock,
		Webhooks: app.WebhookPolicy{AllowPrivateTargets: true, Timeout: time.Second}})
	return &claimEnv{db: db, svc: svc, clock: clock}
}

func (c *claimEnv) org(t *testing.T, name string) string {
	t.Helper()
	o, err := c.svc.CreateOrg(bg, app.OrgInput{Name: name}, "")
	if err != nil {
		t.Fatal(err)
	}
	return o.ID
}

func (c *claimEnv) endpoint(t *testing.T, org string) string {
	t.Helper()
	w, err := c.svc.CreateWebhook(bg, org, app.WebhookInput{Name: "hook", URL: "https://127.0.0.1:9/hook",
		Events: []string{app.EventContactBlocked}})
	if err != nil {
		t.Fatal(err)
	}
	return w.ID
}

// emit queues n events of org, a second apart: one delivery per endpoint of org each.
func (c *claimEnv) emit(t *testing.T, org string, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		c.clock.Advance(time.Second)
		err := c.db.Write(bg, func(tx app.Tx) error {
			_, err := c.svc.Emit(tx, org, app.EventContactBlocked, map[string]int{"n": i})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func (c *claimEnv) claimDeliveries(t *testing.T, room app.ClaimRoom) map[string]int {
	t.Helper()
	var jobs []app.Job
	now := app.At(c.clock.Now())
	err := c.db.Write(bg, func(tx app.Tx) (err error) {
		jobs, err = tx.ClaimDue(now, app.At(c.clock.Now().Add(time.Minute)), room)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, j := range jobs {
		per[j.WebhookID]++
		per[j.OrgID]++
	}
	return per
}

// Deliveries are claimed round-robin across organizations and across the endpoints of one,
// although one organization's backlog is older than everything else; the caps count what is
// in flight; leased deliveries are not claimed again.
func TestClaimDueRoundRobinAndCaps(t *testing.T) {
	c := newClaimEnv(t)
	a, b := c.org(t, "A"), c.org(t, "B")
	a1, a2, b1 := c.endpoint(t, a), c.endpoint(t, a), c.endpoint(t, b)
	c.emit(t, a, 3) // 3 deliveries on each of a1 and a2, all older than b's
	c.emit(t, b, 3)

	got := c.claimDeliveries(t, app.ClaimRoom{Limit: 4})
	if got[a] != 2 || got[a1] != 1 || got[a2] != 1 || got[b1] != 2 {
		t.Fatalf("round-robin claim took %v; want 1 from each endpoint of A and 2 from B", got)
	}
	// In flight now: A 2 (one per endpoint), B 2. A may have 3, an endpoint 2.
	got = c.claimDeliveries(t, app.ClaimRoom{Limit: 10, PerOrg: 3, PerQueue: 2,
		Org: map[string]int{a: 2, b: 2}, Queue: map[string]int{a1: 1, a2: 1, b1: 2}})
	if got[a] != 1 || got[b] != 0 {
		t.Fatalf("capped claim took %v; want 1 from A (its cap) and none from B (its endpoint's cap)", got)
	}
	got = c.claimDeliveries(t, app.ClaimRoom{Limit: 10})
	if got[a1]+got[a2] != 3 || got[b1] != 1 {
		t.Fatalf("last claim took %v; want the 4 deliveries not leased yet", got)
	}
	if got = c.claimDeliveries(t, app.ClaimRoom{Limit: 10}); len(got) != 0 {
		t.Fatalf("leased deliveries claimed again: %v", got)
	}
	c.expectDue(t, "deliveries, all leased", false, func(tx app.Tx, now app.Time) (bool, error) { return tx.AnyDeliveryDue(now) })
	c.clock.Advance(2 * time.Minute) // the leases lapse: the work is due again
	c.expectDue(t, "deliveries, leases lapsed", true, func(tx app.Tx, now app.Time) (bool, error) { return tx.AnyDeliveryDue(now) })
}

// expectDue checks a reader's look for due work.
func (c *claimEnv) expectDue(t *testing.T, what string, want bool, look func(app.Tx, app.Time) (bool, error)) {
	t.Helper()
	var due bool
	err := c.db.Read(bg, func(tx app.Tx) (err error) {
		due, err = look(tx, app.At(c.clock.Now()))
		return err
	})
	if err != nil || due != want {
		t.Fatalf("%s: due %v (%v), want %v", what, due, err, want)
	}
}

// Within an endpoint the oldest due delivery goes first.
func TestClaimDueOldestFirstWithinEndpoint(t *testing.T) {
	c := newClaimEnv(t)
	a := c.org(t, "A")
	a1 := c.endpoint(t, a)
	c.emit(t, a, 3)
	var jobs []app.Job
	err := c.db.Write(bg, func(tx app.Tx) (err error) {
		jobs, err = tx.ClaimDue(app.At(c.clock.Now()), app.At(c.clock.Now().Add(time.Minute)), app.ClaimRoom{Limit: 1})
		return err
	})
	if err != nil || len(jobs) != 1 || jobs[0].WebhookID != a1 || string(jobs[0].Body) == "" {
		t.Fatalf("claim %v %+v", err, jobs)
	}
	ds, err := c.svc.ListDeliveries(bg, a, a1, "", app.Page{Page: 1, Take: 10})
	if err != nil || len(ds.Items) != 3 {
		t.Fatalf("list %v %d", err, len(ds.Items))
	}
	if oldest := ds.Items[2]; jobs[0].DeliveryID != oldest.ID { // the list is newest first
		t.Fatalf("claimed %s, want the oldest %s", jobs[0].DeliveryID, oldest.ID)
	}
}

func (c *claimEnv) broadcast(t *testing.T, org string, n int) string {
	t.Helper()
	var ids []string
	for i := 0; i < n; i++ {
		ct, err := c.svc.CreateContact(bg, org, app.ContactInput{Name: fmt.Sprintf("C%d", i), Channels: []app.ChannelInput{
			{ChannelProfile: app.ChannelProfile{Type: "internal", UserID: fmt.Sprintf("u%d", i)}}}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ct.ID)
	}
	c.clock.Advance(time.Second)
	bc, err := c.svc.CreateBroadcast(bg, org, app.BroadcastInput{Name: "B", IntegrationID: "internal", Text: "hi", ContactIDs: ids})
	if err != nil || bc.Counts.Recipients != n {
		t.Fatalf("broadcast %v %+v", err, bc.Counts)
	}
	return bc.ID
}

func (c *claimEnv) claimRecipients(t *testing.T, room app.ClaimRoom) map[string]int {
	t.Helper()
	var rs []app.Recipient
	now := app.At(c.clock.Now())
	err := c.db.Write(bg, func(tx app.Tx) (err error) {
		rs, err = tx.ClaimRecipients(now, app.At(c.clock.Now().Add(time.Minute)), room)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, r := range rs {
		per[r.BroadcastID]++
		per[r.OrgID]++
	}
	return per
}

// Broadcast recipients are claimed round-robin across organizations and the broadcasts of one,
// within the per-organization cap.
func TestClaimRecipientsRoundRobinAndCaps(t *testing.T) {
	c := newClaimEnv(t)
	a, b := c.org(t, "A"), c.org(t, "B")
	c.expectDue(t, "no recipients", false, func(tx app.Tx, now app.Time) (bool, error) { return tx.AnyRecipientDue(now) })
	bigA := c.broadcast(t, a, 4)
	smallB := c.broadcast(t, b, 2)
	laterA := c.broadcast(t, a, 2)

	// A and B alternate (a tie goes to the older recipient: B's second is older than
	// laterA's first); within A, laterA gets its turn before bigA's second.
	got := c.claimRecipients(t, app.ClaimRoom{Limit: 4})
	if got[bigA] != 1 || got[smallB] != 2 || got[laterA] != 1 {
		t.Fatalf("round-robin claim took %v; want one of each broadcast of A and both of B", got)
	}
	got = c.claimRecipients(t, app.ClaimRoom{Limit: 10, PerOrg: 3, Org: map[string]int{a: 2, b: 2}})
	if got[a] != 1 || got[bigA] != 1 || got[b] != 0 {
		t.Fatalf("capped claim took %v; want one more of A (its cap), the older broadcast's", got)
	}
	got = c.claimRecipients(t, app.ClaimRoom{Limit: 10})
	if got[bigA] != 2 || got[laterA] != 1 || got[b] != 0 {
		t.Fatalf("last claim took %v; want the 3 of A not leased yet", got)
	}
	c.expectDue(t, "recipients, all leased", false, func(tx app.Tx, now app.Time) (bool, error) { return tx.AnyRecipientDue(now) })
}

// Knowledge contents are claimed round-robin across organizations within the cap, and
// marked PROCESSING.
func TestClaimKnowledgeRoundRobinAndCaps(t *testing.T) {
	c := newClaimEnv(t)
	a, b := c.org(t, "A"), c.org(t, "B")
	add := func(org string, n int) {
		name := "Helper"
		asst, err := c.svc.CreateAssistant(bg, org, app.AssistantInput{Name: &name})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			c.clock.Advance(time.Second)
			if _, err := c.svc.CreateKnowledge(bg, org, asst.ID, app.KnowledgeInput{Title: "T",
				Content: app.KnowledgeBody{Type: "TEXT", Text: "some text"}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	add(a, 3)
	add(b, 1)
	claim := func(room app.ClaimRoom) map[string]int {
		var ks []app.KnowledgeContent
		err := c.db.Write(bg, func(tx app.Tx) (err error) {
			ks, err = tx.ClaimKnowledge(app.At(c.clock.Now()), app.At(c.clock.Now().Add(time.Minute)), room)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		per := map[string]int{}
		for _, k := range ks {
			if k.Status != "PROCESSING" {
				t.Fatalf("claimed content %s is %s", k.ID, k.Status)
			}
			per[k.OrgID]++
		}
		return per
	}
	if got := claim(app.ClaimRoom{Limit: 2}); got[a] != 1 || got[b] != 1 {
		t.Fatalf("round-robin claim took %v; want one of each organization", got)
	}
	if got := claim(app.ClaimRoom{Limit: 5, PerOrg: 2, Org: map[string]int{a: 1, b: 1}}); got[a] != 1 || got[b] != 0 {
		t.Fatalf("capped claim took %v; want one more of A (its cap) and none of B (none left)", got)
	}
	c.expectDue(t, "knowledge, one left", true, func(tx app.Tx, now app.Time) (bool, error) { return tx.AnyKnowledgeDue(now) })
	if got := claim(app.ClaimRoom{Limit: 5}); got[a] != 1 {
		t.Fatalf("last claim took %v; want A's last", got)
	}
	c.expectDue(t, "knowledge, all leased", false, func(tx app.Tx, now app.Time) (bool, error) { return tx.AnyKnowledgeDue(now) })
}
