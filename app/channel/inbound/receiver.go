package inbound

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"

	"wsapi/app"
	"wsapi/app/channel"
)

// Receiver is the hook's side: check, store, answer.
type Receiver struct {
	Service *app.Service
	// Inbound holds the connectors by integration type; a type without one has no hook.
	Inbound map[string]channel.Inbound
	// Spool keeps the bodies until the worker's relay queues them in the store.
	Spool Spool
}

// errUnknown is every answer about an integration that cannot take this hook: unknown,
// deleted, of another type, of a deleted assistant. Never a hint of which.
var errUnknown = app.NotFound("integration")

// errRefused is the answer to a request the connector did not recognise as the provider's.
var errRefused = &app.Error{Code: app.CodePermission, Message: "the request is not signed by this integration's provider"}

// Receive checks a provider's request to /hooks/{typ}/{asi} and keeps its body in the spool
// (never behind the store's writer).
func (r *Receiver) Receive(ctx context.Context, typ, asi string, header http.Header, body []byte) error {
	in := r.Inbound[typ]
	if in == nil {
		return errUnknown
	}
	d, err := r.deployment(ctx, typ, asi)
	if err != nil {
		return err
	}
	if err := in.CheckRequest(d, header, body); err != nil {
		return errRefused
	}
	return r.Spool.Put(ctx, newUpdate(d, body, app.At(r.Service.Clock().Now())))
}

// Keep keeps a body in the spool for the worker once for each integration, in one commit:
// once it returns nil the body is committed (the SMTP listener answers 250 only then). The
// commit nudges the relay.
func Keep(ctx context.Context, s *app.Service, spool Spool, body []byte, ds ...app.Deployment) error {
	return spool.Put(ctx, updates(s, body, ds)...)
}

// Queue is Keep straight into the store's queue, in one write of the store's: for a body too
// big to copy through the spool (a mail past 1 MiB: read back by the relay and written
// again, a 25 MiB mail peaked the server at 397 MB instead of 175). The commit nudges the
// worker.
func Queue(ctx context.Context, s *app.Service, body []byte, ds ...app.Deployment) error {
	return queueAll(ctx, s, updates(s, body, ds))
}

// updates are body's updates for integrations ds, due now.
func updates(s *app.Service, body []byte, ds []app.Deployment) []Update {
	now := app.At(s.Clock().Now())
	ups := make([]Update, len(ds))
	for i, d := range ds {
		ups[i] = newUpdate(d, body, now)
	}
	return ups
}

// newUpdate is a body for integration d, due now.
func newUpdate(d app.Deployment, body []byte, now app.Time) Update {
	return Update{ID: updateID(), OrgID: d.OrgID, DeploymentID: d.ID, IntegrationID: d.IntegrationID, Body: body,
		NextAttemptAt: now, CreatedAt: now}
}

// queueAll stores updates in the store's queue in one write (a big mail, the relay's batch
// from the spool).
func queueAll(ctx context.Context, s *app.Service, ups []Update) error {
	return s.Store().Write(ctx, func(tx app.Tx) error {
		itx, err := txOf(tx)
		if err != nil {
			return err
		}
		for _, u := range ups {
			if err := itx.QueueUpdate(u); err != nil {
				return err
			}
		}
		return nil
	})
}

var queuedCount atomic.Uint64

// updateID is an update's id in the order of queueing: the second of app.NewID, then this
// process's count, then randomness. Claims take due updates by due time, then id, and updates
// queued within one millisecond (or under a test's clock, which stands still) are then taken
// in the order they came: the email channel's reply must follow its first mail
// (app/channel/email/order.go).
func updateID() string {
	id := app.NewID("upd") // "upd_", 6 digits of the second, 14 random
	return fmt.Sprintf("%s%012d%s", id[:10], queuedCount.Add(1)%1e12, id[10:18])
}

// deployment reads the integration of a hook with its secrets: of that type, its assistant
// not deleted.
func (r *Receiver) deployment(ctx context.Context, typ, asi string) (d app.Deployment, err error) {
	err = r.Service.Store().Read(ctx, func(tx app.Tx) error {
		if d, err = tx.FindDeployment(asi); err != nil {
			return err
		}
		a, err := tx.GetAssistant(d.OrgID, d.AssistantID)
		if err != nil || a.Deleted || d.IntegrationID != typ {
			return errUnknown
		}
		return nil
	})
	if app.IsNotFound(err) {
		return app.Deployment{}, errUnknown
	}
	return d, err
}
