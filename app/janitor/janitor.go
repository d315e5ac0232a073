// Package janitor runs the periodic tasks: clean-up (delivery retention, temporary chats) and
// the assistant automation's timed passes (auto resolve, follow-ups).
package janitor

import (
	"context"
	"log/slog"
	"time"

	"wsapi/app"
)

// Task is one pass; it answers how many rows it removed (or, for the automation's passes,
// how many chats it acted on: logged under the same "removed" key).
type Task struct {
	Name string
	Run  func(ctx context.Context) (int, error)
}

// Janitor runs every task once per interval.
type Janitor struct {
	Interval time.Duration
	Tasks    []Task
	Log      *slog.Logger
}

// Run loops until ctx ends, starting with a pass at once.
func (j *Janitor) Run(ctx context.Context) {
	ticker := time.NewTicker(j.Interval)
	defer ticker.Stop()
	for {
		j.RunOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// RunOnce runs each task once.
func (j *Janitor) RunOnce(ctx context.Context) {
	for _, t := range j.Tasks {
		var n int
		// A task that panics fails this pass only; the other tasks and later passes run.
		err := app.Safely(func() (err error) {
			n, err = t.Run(ctx)
			return err
		})
		switch {
		case err != nil && ctx.Err() == nil, isPanic(err):
			app.LogFailure(j.Log, "janitor: task failed", err, "task", t.Name)
		case n > 0:
			j.Log.Info("janitor", "task", t.Name, "removed", n)
		}
	}
}

func isPanic(err error) bool {
	_, ok := app.IsPanic(err)
	return ok
}
