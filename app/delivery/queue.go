package delivery

import (
	"context"
	"time"

	"wsapi/app"
	"wsapi/app/channel"
)

// Store is the worker's Queue over the domain's store: it claims and records deliveries in
// store transactions, and streams each change of a delivery (message.delivery) through the
// service. The rule of what is queued is the domain's (app/messagedelivery.go); how the queue
// is worked is this package's.
type Store struct {
	Service *app.Service
}

var _ Queue = Store{}

func (q Store) now() app.Time { return app.At(q.Service.Clock().Now()) }

// ClaimMessageDeliveries leases the deliveries due now that room picks, with their message,
// chat and integration (a delivery whose message, chat or integration went is dropped). An
// idle loop looks on a reader first, so it does not take the writer on every tick.
func (q Store) ClaimMessageDeliveries(ctx context.Context, room app.ClaimRoom, lease time.Duration) (jobs []app.DeliveryJob, err error) {
	now := q.now()
	if room.LookFirst {
		due := false
		err := q.Service.Store().Read(ctx, func(tx app.Tx) (err error) {
			due, err = tx.AnyDeliveryQueued(now)
			return err
		})
		if err != nil || !due {
			return nil, err
		}
	}
	err = q.Service.Store().Write(ctx, func(tx app.Tx) error {
		queued, err := tx.ClaimDeliveries(now, app.At(now.Add(lease)), room)
		if err != nil {
			return err
		}
		for _, d := range queued {
			job, ok, err := loadJob(tx, d)
			if err != nil {
				return err
			}
			if !ok {
				if err := tx.DropDelivery(d.MessageID); err != nil {
					return err
				}
				continue
			}
			jobs = append(jobs, job)
		}
		return nil
	})
	return jobs, err
}

// loadJob reads what a send needs; ok is false when any of it is gone.
func loadJob(tx app.Tx, d app.QueuedDelivery) (job app.DeliveryJob, ok bool, err error) {
	job.QueuedDelivery = d
	if job.Message, err = tx.GetMessage(d.OrgID, d.ChatID, d.MessageID); err == nil {
		if job.Chat, err = tx.GetChatRow(d.OrgID, d.ChatID); err == nil {
			job.Deployment, err = tx.GetDeployment(d.OrgID, "", d.DeploymentID)
		}
	}
	if app.IsNotFound(err) {
		return job, false, nil
	}
	return job, err == nil, err
}

// FinishMessageDelivery records what sending came to: the message's delivery moves (and
// message.delivery reaches the chat's and the organization's streams), the queue row goes
// once the message is sent or failed for good (a broadcast's recipient flags with it). schedule[i] is the wait after attempt i+1;
// the attempt after the last is the last.
func (q Store) FinishMessageDelivery(ctx context.Context, job app.DeliveryJob, out app.DeliveryOutcome, schedule []time.Duration) error {
	now := q.now()
	return q.Service.Store().Write(ctx, func(tx app.Tx) error {
		if out.Err == nil && out.Wait > 0 { // not tried (a rate limit): no attempt used, nothing shown
			return tx.RetryDelivery(job.MessageID, job.Attempts, app.At(now.Add(out.Wait)))
		}
		d, err := record(tx, job, out, schedule, now)
		if err != nil {
			return err
		}
		err = channel.RecordDelivery(q.Service, tx, job.OrgID, job.ChatID, job.Message, d)
		if app.IsNotFound(err) {
			return nil // the message was deleted meanwhile
		}
		return err
	})
}

// record moves the queue row (gone once sent or failed for good, else due again after the
// schedule's wait) and answers the message's new delivery.
func record(tx app.Tx, job app.DeliveryJob, out app.DeliveryOutcome, schedule []time.Duration, now app.Time) (app.MessageDelivery, error) {
	d := app.MessageDelivery{Status: out.Status, UpdatedAt: now}
	if job.Message.Delivery != nil {
		d.ExternalID = job.Message.Delivery.ExternalID
	}
	if out.Err == nil {
		if out.ExternalID != "" {
			d.ExternalID = &out.ExternalID
		}
		return d, tx.DropDelivery(job.MessageID)
	}
	why := out.Err.Error()
	d.Error = &why
	attempts := job.Attempts + 1
	if out.Permanent || attempts > len(schedule) {
		d.Status = app.DeliveryFailed
		return d, tx.DropDelivery(job.MessageID)
	}
	d.Status = app.DeliveryPending
	return d, tx.RetryDelivery(job.MessageID, attempts, app.At(now.Add(schedule[attempts-1])))
}
