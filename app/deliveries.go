package app

import (
	"context"
	"encoding/json"
)

// Delivery statuses. A delivery is PENDING until an attempt succeeds or its last one fails.
const (
	DeliveryPending   = "PENDING"
	DeliverySucceeded = "SUCCEEDED"
	DeliveryFailed    = "FAILED"
)

// Delivery is one event on its way to one endpoint.
type Delivery struct {
	ID            string    `json:"id"`
	OrgID         string    `json:"org_id"`
	WebhookID     string    `json:"webhook_id"`
	EventID       string    `json:"event_id"`
	EventType     string    `json:"event_type"`
	Status        string    `json:"status"`
	AttemptsCount int       `json:"attempts_count"`
	NextAttemptAt Time      `json:"next_attempt_at"`
	CreatedAt     Time      `json:"created_at"`
	UpdatedAt     Time      `json:"updated_at"`
	Event         *Event    `json:"event,omitempty"`
	Attempts      []Attempt `json:"attempts"`
}

// Attempt is one request to an endpoint and what came back.
type Attempt struct {
	Number       int     `json:"number"`
	Status       string  `json:"status"`
	ResponseCode *int    `json:"response_code"`
	ResponseBody string  `json:"response_body"`
	DurationMs   float64 `json:"duration_ms"`
	Error        *string `json:"error"`
	CreatedAt    Time    `json:"created_at"`
}

// Attempt statuses.
const (
	AttemptSucceeded = "succeeded"
	AttemptFailed    = "failed"
)

// Succeeded tells a 2xx answer.
func (a Attempt) Succeeded() bool { return a.Status == AttemptSucceeded }

// Job is a claimed delivery with everything needed to send it.
type Job struct {
	DeliveryID string
	OrgID      string
	WebhookID  string
	URL        string
	Secret     string
	EventID    string
	EventType  string
	Body       []byte
	Attempt    int
}

// WebhookSender makes one signed delivery request.
type WebhookSender interface {
	Send(ctx context.Context, j Job) Attempt
}

// DeliveryTx is the deliveries part of a transaction.
type DeliveryTx interface {
	// ClaimDue leases due deliveries of enabled endpoints in organizations with a positive
	// balance, as many as room allows and picked as room.Pick does (queues are endpoints),
	// the oldest first within each endpoint.
	ClaimDue(now, leaseUntil Time, room ClaimRoom) ([]Job, error)
	// AnyDeliveryDue tells, cheaply and on a reader, whether a claim may find work.
	AnyDeliveryDue(now Time) (bool, error)
	GetDelivery(orgID, id string) (Delivery, error)
	// DeliveryState reads a delivery's own columns only (no event, no attempts): what
	// recording an attempt needs, on the hot path.
	DeliveryState(orgID, id string) (Delivery, error)
	ListDeliveries(orgID, webhookID, status string, p Page) ([]Delivery, int, error)
	CreateDelivery(d Delivery) error
	// FinishAttempt stores the attempt and the delivery's new state, and clears its lease.
	FinishAttempt(d Delivery, a Attempt) error
	ReleaseDelivery(id string) error
	SetWebhookHealth(w Webhook) error
	// PurgeDeliveries deletes finished deliveries last changed before cutoff, and events
	// left with no delivery.
	PurgeDeliveries(cutoff Time) (int, error)
}

// ClaimDeliveries leases due work for the dispatcher. An idle dispatcher looks on a reader
// first, so it does not take the single writer on every tick.
func (s *Service) ClaimDeliveries(ctx context.Context, room ClaimRoom) (jobs []Job, err error) {
	now := s.now()
	if due, err := s.anyDue(ctx, room, func(tx Tx) (bool, error) { return tx.AnyDeliveryDue(now) }); !due {
		return nil, err
	}
	err = s.Store.Write(ctx, func(tx Tx) error {
		jobs, err = tx.ClaimDue(now, At(now.Add(s.Webhooks.Lease())), room)
		return err
	})
	return jobs, err
}

// FinishDelivery records an attempt (a.CreatedAt is when it was sent) and moves the delivery on: SUCCEEDED; retried after the
// next delay of the schedule; or FAILED after the last attempt, which lengthens the
// endpoint's failure streak and may disable it. A success resets the streak.
func (s *Service) FinishDelivery(ctx context.Context, j Job, a Attempt) error {
	return s.Store.Write(ctx, func(tx Tx) error {
		d, err := tx.DeliveryState(j.OrgID, j.DeliveryID)
		if IsNotFound(err) || (err == nil && d.Status != DeliveryPending) {
			return nil // endpoint deleted or delivery settled meanwhile
		}
		if err != nil {
			return err
		}
		now := s.now()
		if a.CreatedAt.IsZero() {
			a.CreatedAt = now
		}
		a.Number = d.AttemptsCount + 1
		d.AttemptsCount, d.UpdatedAt = a.Number, now
		switch {
		case a.Succeeded():
			d.Status = DeliverySucceeded
		case a.Number >= s.Webhooks.MaxAttempts():
			d.Status = DeliveryFailed
		default:
			// The delay runs from when the attempt was made, not from when it was recorded.
			d.NextAttemptAt = At(a.CreatedAt.Add(s.Webhooks.RetrySchedule[a.Number-1]))
		}
		if err := tx.FinishAttempt(d, a); err != nil {
			return err
		}
		return s.updateHealth(tx, d, a)
	})
}

func (s *Service) updateHealth(tx Tx, d Delivery, a Attempt) error {
	if !a.Succeeded() && d.Status != DeliveryFailed {
		return nil
	}
	w, err := tx.GetWebhook(d.OrgID, d.WebhookID)
	if err != nil {
		return err
	}
	if a.Succeeded() {
		if w.ConsecutiveFailures == 0 {
			return nil
		}
		w.ConsecutiveFailures = 0
	} else {
		w.ConsecutiveFailures++
		if w.Enabled && s.Webhooks.DisableAfter > 0 && w.ConsecutiveFailures >= s.Webhooks.DisableAfter {
			reason := itoa(w.ConsecutiveFailures) + " deliveries in a row failed; last error: " + attemptError(a)
			w.Enabled, w.DisabledReason = false, &reason
		}
	}
	w.UpdatedAt = s.now()
	return tx.SetWebhookHealth(w)
}

func attemptError(a Attempt) string {
	if a.Error != nil {
		return *a.Error
	}
	if a.ResponseCode != nil {
		return "HTTP " + itoa(*a.ResponseCode)
	}
	return "unknown"
}

// ReleaseDelivery hands an unfinished claim back (shutdown) without using an attempt.
func (s *Service) ReleaseDelivery(ctx context.Context, id string) error {
	return s.Store.Write(ctx, func(tx Tx) error { return tx.ReleaseDelivery(id) })
}

// DeliveryStatusValid tells a status filter value.
func DeliveryStatusValid(st string) bool {
	return st == "" || st == DeliveryPending || st == DeliverySucceeded || st == DeliveryFailed
}

// ListDeliveries lists an endpoint's deliveries, newest first, each with its attempts. An
// empty orgID and webhookID (the operator's CLI) list every delivery.
func (s *Service) ListDeliveries(ctx context.Context, orgID, webhookID, status string, pg Page) (l List[Delivery], err error) {
	if !DeliveryStatusValid(status) {
		return l, Invalid("status", "must be PENDING, SUCCEEDED or FAILED")
	}
	err = s.Store.Read(ctx, func(tx Tx) error {
		if orgID != "" {
			if _, err := tx.GetWebhook(orgID, webhookID); err != nil {
				return err
			}
		}
		l.Items, l.Total, err = tx.ListDeliveries(orgID, webhookID, status, pg)
		return err
	})
	return l, err
}

// ReplayDelivery queues the delivery's event again, same event id, as a new delivery due
// now, whether the original succeeded or failed. An empty orgID is the operator's CLI.
func (s *Service) ReplayDelivery(ctx context.Context, orgID, webhookID, deliveryID string) (d Delivery, err error) {
	err = s.Store.Write(ctx, func(tx Tx) error {
		orig, err := tx.GetDelivery(orgID, deliveryID)
		if err != nil {
			return err
		}
		if webhookID != "" && orig.WebhookID != webhookID {
			return NotFound("delivery")
		}
		now := s.now()
		d = Delivery{ID: NewID("dlv"), OrgID: orig.OrgID, WebhookID: orig.WebhookID, EventID: orig.EventID,
			EventType: orig.EventType, Status: DeliveryPending, NextAttemptAt: now, CreatedAt: now, UpdatedAt: now,
			Event: orig.Event, Attempts: []Attempt{}}
		return tx.CreateDelivery(d)
	})
	return d, err
}

// TestWebhook sends a signed ping now and answers the attempt. Pings are not stored as
// deliveries: they test the endpoint, not the pipeline.
func (s *Service) TestWebhook(ctx context.Context, orgID, id string) (Attempt, error) {
	var w Webhook
	err := s.Store.Read(ctx, func(tx Tx) (err error) {
		w, err = tx.GetWebhook(orgID, id)
		return err
	})
	if err != nil {
		return Attempt{}, err
	}
	data := map[string]string{"webhook_id": w.ID, "message": "This is a test event from the workspace API."}
	evt, body, err := NewEvent(orgID, EventPing, data, s.now())
	if err != nil {
		return Attempt{}, err
	}
	a := s.Sender.Send(ctx, Job{OrgID: orgID, WebhookID: w.ID, URL: w.URL, Secret: w.Secret,
		EventID: evt.ID, EventType: evt.Type, Body: body, Attempt: 1})
	a.Number, a.CreatedAt = 1, s.now()
	return a, nil
}

// PurgeDeliveries is the janitor's retention pass.
func (s *Service) PurgeDeliveries(ctx context.Context) (n int, err error) {
	cutoff := At(s.Clock.Now().Add(-s.Webhooks.Retention))
	err = s.Store.Write(ctx, func(tx Tx) error {
		n, err = tx.PurgeDeliveries(cutoff)
		return err
	})
	return n, err
}

// EventOf decodes a stored envelope.
func EventOf(body []byte) (*Event, error) {
	var e Event
	if err := json.Unmarshal(body, &e); err != nil {
		return nil, err
	}
	return &e, nil
}
