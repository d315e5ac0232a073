package webhook

import (
	"context"

	"wsapi/app"
)

// RunJob runs one claimed job as a worker does, for tests of what a worker does with a job
// that waited too long in the queue.
func (d *Dispatcher) RunJob(ctx context.Context, j app.Job) { d.run(ctx, j) }
