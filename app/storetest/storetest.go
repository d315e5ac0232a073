package storetest

import (
	"context"
	"testing"
	"time"

	"wsapi/app"
)

// Open makes a fresh, migrated, empty store for one test, closed by the test's cleanup. A
// store that keeps secrets must be given its sealer before it is answered.
type Open func(t *testing.T) app.Store

// Run runs the whole contract, each part a subtest on a store of its own.
func Run(t *testing.T, open Open) {
	for _, c := range []struct {
		name string
		test func(*testing.T, *env)
	}{
		{"WritesAreSerialized", writesAreSerialized},
		{"StreamSeqsFollowCommitOrder", streamSeqsFollowCommitOrder},
		{"AFailedWriteLeavesNothing", failedWriteLeavesNothing},
		{"ClaimsLeaseEachPieceOnce", claimsLeaseEachPieceOnce},
		{"CursorsWalkWithoutGapsOrRepeats", cursorsWalkWithoutGapsOrRepeats},
		{"CountersFollowWrites", countersFollowWrites},
		{"SearchFindsByNameAndText", searchFindsByNameAndText},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.test(t, newEnv(t, open(t)))
		})
	}
}

// env is a store, a service over it to seed it the way the product does, a manual clock,
// and a bootstrapped organization with its owner.
type env struct {
	t     *testing.T
	ctx   context.Context
	store app.Store
	svc   *app.Service
	clock *app.ManualClock
	org   string
	owner app.Caller
}

func newEnv(t *testing.T, store app.Store) *env {
	t.Helper()
	ctx := context.Background()
	clock := app.NewManualClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	svc := app.NewService(app.Deps{Store: store, Clock: clock,
		Webhooks: app.WebhookPolicy{AllowPrivateTargets: true, Timeout: time.Second}})
	nk, ok, err := svc.Bootstrap(ctx, "store contract")
	if err != nil || !ok {
		t.Fatalf("bootstrap: %v %v", ok, err)
	}
	p, err := svc.Authenticate(ctx, nk.Token)
	if err != nil {
		t.Fatalf("authenticate: %v", err)
	}
	return &env{t: t, ctx: ctx, store: store, svc: svc, clock: clock, org: nk.OrgID,
		owner: app.Caller{Principal: p, OrgID: nk.OrgID}}
}

// write runs fn in a write transaction and fails the test on its error.
func (e *env) write(fn func(app.Tx) error) {
	e.t.Helper()
	if err := e.store.Write(e.ctx, fn); err != nil {
		e.t.Fatal(err)
	}
}

// read runs fn in a read transaction and fails the test on its error.
func (e *env) read(fn func(app.Tx) error) {
	e.t.Helper()
	if err := e.store.Read(e.ctx, fn); err != nil {
		e.t.Fatal(err)
	}
}

// contactCount is the number of the organization's contacts, as the list counts them.
func contactCount(tx app.Tx, org string) (int, error) {
	_, n, err := tx.ListContacts(org, app.ContactFilter{}, app.Page{Page: 1, Take: 1})
	return n, err
}

// newContact is a contact of org named name, made now.
func (e *env) newContact(org, name string) app.Contact {
	now := app.At(e.clock.Now())
	return app.Contact{ID: app.NewID("ct"), OrgID: org, Name: name, CreatedAt: now, UpdatedAt: now}
}

// lastSeq is the stream's last seq now.
func (e *env) lastSeq() (seq int64) {
	e.t.Helper()
	e.read(func(tx app.Tx) (err error) {
		seq, err = tx.LastStreamSeq()
		return err
	})
	return seq
}
