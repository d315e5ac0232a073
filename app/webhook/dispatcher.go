package webhook

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"sync"
	"time"

	"wsapi/app"
	"wsapi/app/claim"
)

// Dispatcher claims due deliveries and runs them on a fixed number of workers. It claims
// only as many as it has free workers, at most PerEndpoint in flight per endpoint, so one
// hanging endpoint cannot hold every worker while healthy ones wait.
type Dispatcher struct {
	Service     *app.Service
	Sender      app.WebhookSender
	PerEndpoint int
	Log         *slog.Logger

	loop claim.Loop
	mu   sync.Mutex
	busy map[string]int // in-flight deliveries per endpoint
}

// NewDispatcher prepares a dispatcher; PerEndpoint defaults to half the workers.
func NewDispatcher(svc *app.Service, sender app.WebhookSender, workers int, tick time.Duration, log *slog.Logger) *Dispatcher {
	return &Dispatcher{Service: svc, Sender: sender, PerEndpoint: max(1, (workers+1)/2), Log: log,
		loop: claim.Loop{Slots: workers, Tick: tick}, busy: map[string]int{}}
}

// Nudge asks for a claim now rather than at the next tick (new events, a finished job).
func (d *Dispatcher) Nudge() { d.loop.Nudge() }

// Run claims and dispatches until ctx ends, then waits for the running deliveries: those cut
// short by the shutdown are released without using an attempt.
func (d *Dispatcher) Run(ctx context.Context) { d.loop.Run(ctx, d.claim) }

func (d *Dispatcher) claim(ctx context.Context, free int) []func() {
	d.mu.Lock()
	busy := maps.Clone(d.busy)
	d.mu.Unlock()
	jobs, err := d.Service.ClaimDeliveries(ctx, free, d.PerEndpoint, busy)
	if err != nil {
		if ctx.Err() == nil {
			d.Log.Error("webhooks: claim", "err", err)
		}
		return nil
	}
	work := make([]func(), len(jobs))
	d.mu.Lock()
	for i, j := range jobs {
		d.busy[j.WebhookID]++
		work[i] = func() { d.run(ctx, j) }
	}
	d.mu.Unlock()
	return work
}

func (d *Dispatcher) run(ctx context.Context, j app.Job) {
	defer func() {
		d.mu.Lock()
		if d.busy[j.WebhookID]--; d.busy[j.WebhookID] <= 0 {
			delete(d.busy, j.WebhookID)
		}
		d.mu.Unlock()
	}()
	sentAt := app.At(d.Service.Clock.Now())
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
