package mail

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"wsapi/app"
)

// Worker is the broadcast sender: it claims SENDING recipients, as many as it has free
// workers, and gives each its outcome. At most Workers recipients are in flight, so a crash
// resends at most that many messages (their leases expire and they are claimed again).
type Worker struct {
	Service *app.Service
	Workers int
	Tick    time.Duration
	Log     *slog.Logger

	mu       sync.Mutex
	inFlight int
	wake     chan struct{}
}

// NewWorker prepares a sender.
func NewWorker(svc *app.Service, workers int, tick time.Duration, log *slog.Logger) *Worker {
	return &Worker{Service: svc, Workers: max(1, workers), Tick: tick, Log: log, wake: make(chan struct{}, 1)}
}

// Nudge asks for a claim now (a broadcast was created, a send finished).
func (w *Worker) Nudge() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Run sends until ctx ends, then waits for the sends under way.
func (w *Worker) Run(ctx context.Context) {
	ticker := time.NewTicker(w.Tick)
	defer ticker.Stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		case <-w.wake:
		}
		w.claim(ctx, &wg)
	}
}

func (w *Worker) claim(ctx context.Context, wg *sync.WaitGroup) {
	w.mu.Lock()
	free := w.Workers - w.inFlight
	w.mu.Unlock()
	if free <= 0 {
		return
	}
	rs, err := w.Service.ClaimRecipients(ctx, free)
	if err != nil {
		if ctx.Err() == nil {
			w.Log.Error("broadcasts: claim", "err", err)
		}
		return
	}
	w.mu.Lock()
	w.inFlight += len(rs)
	w.mu.Unlock()
	for _, r := range rs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				w.mu.Lock()
				w.inFlight--
				w.mu.Unlock()
				w.Nudge()
			}()
			if err := w.Service.ProcessRecipient(ctx, r); err != nil && ctx.Err() == nil {
				w.Log.Error("broadcasts: send", "recipient", r.ID, "err", err)
			}
		}()
	}
}
