package webhook

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"wsapi/app"
)

// Dispatcher claims due deliveries and runs them on a fixed number of workers. It claims
// only as many as it has free workers, at most PerEndpoint in flight per endpoint, so one
// hanging endpoint cannot hold every worker while healthy ones wait.
type Dispatcher struct {
	Service     *app.Service
	Sender      app.WebhookSender
	Workers     int
	PerEndpoint int
	Tick        time.Duration
	Log         *slog.Logger

	nudge    chan struct{}
	mu       sync.Mutex
	inFlight int
	busy     map[string]int
}

// NewDispatcher prepares a dispatcher; PerEndpoint defaults to half the workers.
func NewDispatcher(svc *app.Service, sender app.WebhookSender, workers int, tick time.Duration, log *slog.Logger) *Dispatcher {
	return &Dispatcher{Service: svc, Sender: sender, Workers: workers, PerEndpoint: max(1, (workers+1)/2),
		Tick: tick, Log: log, nudge: make(chan struct{}, 1), busy: map[string]int{}}
}

// Nudge asks for a claim now rather than at the next tick (new events, a finished job).
func (d *Dispatcher) Nudge() {
	select {
	case d.nudge <- struct{}{}:
	default:
	}
}

// Run claims and dispatches until ctx ends, then waits for the running deliveries: those cut
// short by the shutdown are released without using an attempt.
func (d *Dispatcher) Run(ctx context.Context) {
	ticker := time.NewTicker(d.Tick)
	defer ticker.Stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		case <-d.nudge:
		}
		d.dispatch(ctx, &wg)
	}
}

func (d *Dispatcher) dispatch(ctx context.Context, wg *sync.WaitGroup) {
	d.mu.Lock()
	free := d.Workers - d.inFlight
	busy := make(map[string]int, len(d.busy))
	for k, v := range d.busy {
		busy[k] = v
	}
	d.mu.Unlock()
	if free <= 0 {
		return
	}
	jobs, err := d.Service.ClaimDeliveries(ctx, free, d.PerEndpoint, busy)
	if err != nil {
		if ctx.Err() == nil {
			d.Log.Error("webhooks: claim", "err", err)
		}
		return
	}
	d.mu.Lock()
	d.inFlight += len(jobs)
	for _, j := range jobs {
		d.busy[j.WebhookID]++
	}
	d.mu.Unlock()
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.run(ctx, j)
		}()
	}
	if len(jobs) == free {
		d.Nudge() // there may be more due work than we had workers for
	}
}

func (d *Dispatcher) run(ctx context.Context, j app.Job) {
	defer func() {
		d.mu.Lock()
		d.inFlight--
		if d.busy[j.WebhookID]--; d.busy[j.WebhookID] <= 0 {
			delete(d.busy, j.WebhookID)
		}
		d.mu.Unlock()
		d.Nudge()
	}()
	sentAt := app.At(d.Service.Clock.Now())
	a := d.Sender.Send(ctx, j)
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
