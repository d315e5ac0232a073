package inbound

import (
	"context"
	"fmt"

	"wsapi/app"
)

// Update is one body a provider POSTed, queued for the worker.
type Update struct {
	ID            string
	OrgID         string
	DeploymentID  string
	IntegrationID string
	Body          []byte
	Attempts      int
	NextAttemptAt app.Time
	CreatedAt     app.Time
}

// Spool keeps the updates the hook and the SMTP listener acknowledged until the relay has
// queued them in the store (sqlite.Spool): a file with a writer of its own, so that an
// acknowledgement never waits for the store's writer. Put answers once its updates are
// committed, all or none; Take reads the oldest (at most n, and past the first at most
// maxBytes of bodies) without taking them out; Remove takes them out.
type Spool interface {
	Put(ctx context.Context, ups ...Update) error
	Take(ctx context.Context, n int, maxBytes int64) ([]Update, error)
	Remove(ctx context.Context, ids []string) error
}

// Tx is what the pipeline needs of a store transaction beside app.Tx; the SQLite store's
// transactions have it (sqlite/channelinbound.go).
type Tx interface {
	// QueueUpdate queues an update the relay took from the spool; one already queued, or
	// whose integration is gone, is left out.
	QueueUpdate(u Update) error
	// ClaimUpdates leases the due updates room picks (fair across organizations).
	ClaimUpdates(now, leaseUntil app.Time, room app.ClaimRoom) ([]Update, error)
	AnyUpdateQueued(now app.Time) (bool, error)
	RetryUpdate(id string, attempts int, next app.Time) error
	DropUpdate(id string) error
	// MarkSeen records a provider's id for an integration; false when it was already.
	MarkSeen(deploymentID, externalID string, now app.Time) (bool, error)
	Seen(deploymentID, externalID string) (bool, error)
	PurgeSeen(before app.Time) (int, error)
	// MessageByExternalID finds the organization's message whose delivery carries a
	// provider's id.
	MessageByExternalID(orgID, externalID string) (chatID, messageID string, err error)
}

// txOf is tx as the pipeline's Tx: a store without these methods cannot run channels.
func txOf(tx app.Tx) (Tx, error) {
	itx, ok := tx.(Tx)
	if !ok {
		return nil, fmt.Errorf("inbound: the store (%T) keeps no channel updates", tx)
	}
	return itx, nil
}
