package webhook

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"wsapi/app"
	"wsapi/app/claim"
)

// Dispatcher claims due deliveries and runs them on a fixed number of workers. It claims
// only as many as it has free workers, round-robin across organizations and their endpoints,
// at most PerOrg in flight per organization and PerEndpoint per endpoint, so one
// organization's (or one endpoint's) hanging requests cannot hold every worker while others'
// deliveries wait.
type Dispatcher struct {
	Service     Deliveries
	Clock       app.Clock // stamps the attempts
	Sender      app.WebhookSender
	PerEndpoint int
	PerOrg      int
	Log         *slog.Logger

	loop claim.Loop
}

// Deliveries is what the dispatcher needs of the domain (app.Service has it).
type Deliveries interface {
	ClaimDeliveries(ctx context.Context, room app.ClaimRoom) ([]app.Job, error)
	FinishDelivery(ctx context.Context, j app.Job, a app.Attempt) error
	ReleaseDelivery(ctx context.Context, id string) error
}

// NewDispatcher prepares a dispatcher; PerEndpoint is half the workers, PerOrg is perOrg
// (webhooks.max_in_flight_per_org) or by default three quarters of them (app.OrgShare).
func NewDispatcher(svc Deliveries, clock app.Clock, sender app.WebhookSender, workers, perOrg int, tick time.Duration, log *slog.Logger) *Dispatcher {
	return &Dispatcher{Service: svc, Clock: clock, Sender: sender, PerEndpoint: max(1, (workers+1)/2),
		PerOrg: app.OrgShare(perOrg, workers), Log: log,
		loop: claim.Loop{Slots: workers, Tick: tick}}
}

// Nudge asks for a claim now rather than at the next tick (new events, a finished job).
func (d *Dispatcher) Nudge() { d.loop.Nudge() }

// Run claims and dispatches until ctx ends, then waits for the running deliveries: those cut
// short by the shutdown are released without using an attempt.
func (d *Dispatcher) Run(ctx context.Context) { d.loop.Run(ctx, d.claim) }

func (d *Dispatcher) claim(ctx context.Context, r claim.Round) []claim.Piece {
	jobs, err := d.Service.ClaimDeliveries(ctx, app.ClaimRoom{Limit: r.Free, PerOrg: d.PerOrg,
		PerQueue: d.PerEndpoint, Org: r.Org, Queue: r.Queue, LookFirst: r.Idle})
	if err != nil {
		if ctx.Err() == nil {
			d.Log.Error("webhooks: claim", "err", err)
		}
		return nil
	}
	work := make([]claim.Piece, len(jobs))
	for i, j := range jobs {
		work[i] = claim.Piece{Org: j.OrgID, Queue: j.WebhookID, Run: func() { d.run(ctx, j) }}
	}
	return work
}

func (d *Dispatcher) run(ctx context.Context, j app.Job) {
	sentAt := app.At(d.Clock.Now())
	a := d.send(ctx, j)
	a.CreatedAt = sentAt
	// A shutdown cut the request short: that says nothing about the endpoint.
	if ctx.Err() != nil {
		if err := d.Service.ReleaseDelivery(context.WithoutCancel(ctx), j.DeliveryID); err != nil {
			d.Log.Error("webhooks: release", "delivery", j.DeliveryID, "err", err)
		}
		return
	}
	if err := d.Service.FinishDelivery(ctx, j, a); err != nil && !errors.Is(err, context.Canceled) {
		d.Log.Error("webhooks: record attempt", "delivery", j.DeliveryID, "err", err)
	}
}

// send makes one attempt. A panic while sending is that attempt's failure, recorded like any
// other (the delivery retries on its schedule), never the process's end.
func (d *Dispatcher) send(ctx context.Context, j app.Job) (a app.Attempt) {
	err := app.Safely(func() error {
		a = d.Sender.Send(ctx, j)
		return nil
	})
	if err != nil {
		app.LogFailure(d.Log, "webhooks: send", err, "delivery", j.DeliveryID)
		msg := "could not send this delivery: an internal error, reported in the server log"
		a = app.Attempt{Status: app.AttemptFailed, Error: &msg}
	}
	return a
}
