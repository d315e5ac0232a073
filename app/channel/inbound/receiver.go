package inbound

import (
	"context"
	"net/http"

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
	now := app.At(r.Service.Clock().Now())
	u := Update{ID: app.NewID("upd"), OrgID: d.OrgID, DeploymentID: d.ID, IntegrationID: typ, Body: body,
		NextAttemptAt: now, CreatedAt: now}
	return r.Spool.Put(ctx, u)
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
