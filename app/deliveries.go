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
	// StartBy is the latest a request for this claim may start (zero: no limit). A dispatcher
	// that claims ahead of its free workers hands back, unattempted, a job that waited past
	// it, so the longest request still ends well within the lease and is recorded in it.
	StartBy Time
}

// Finished is a recorded attempt and the delivery's state after it.
type Finished struct {
	Delivery Delivery
	Attempt  Attempt
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
	// DeliveryStates reads deliveries' own columns only (no event, no attempts), by id:
	// what recording attempts needs, on the hot path. Missing ids are absent from the map.
	DeliveryStates(ids []string) (map[string]Delivery, error)
	ListDeliveries(orgID, webhookID, status string, p Page) ([]Delivery, int, error)
	CreateDelivery(d Delivery) error
	// FinishAttempts stores the attempts and the deliveries' new states, and clears their
	// leases; each delivery must exist.
	FinishAttempts(done []Finished) error
	ReleaseDelivery(id string) error
	SetWebhookHealth(w Webhook) error
	// ResetWebhookStreak sets an endpoint's failure streak to 0 (and updated_at to now)
	// unless it already is 0.
	ResetWebhookStreak(id string, now Time) error
	// PurgeDeliveries deletes finished deliveries last changed before cutoff, and events
	// left with no delivery.
	PurgeDeliveries(cutoff Time) (int, error)
}

// ClaimDeliveries leases due work for the dispatcher; see FinishAndClaim.
func (s *Service) ClaimDeliveries(ctx context.Context, room ClaimRoom) ([]Job, error) {
	return s.FinishAndClaim(ctx, nil, room)
}

// FinishAndClaim records the attempts that finished since the dispatcher's last claim (see
// FinishDeliveries) and leases due work, in one write transaction: one commit per round of
// the dispatcher, instead of one per attempt and one per claim. An idle dispatcher with
// nothing to record looks on a reader first, so it does not take the single writer on every
// tick.
func (s *Service) FinishAndClaim(ctx context.Context, finished []Outcome, room ClaimRoom) (jobs []Job, err error) {
	if len(finished) == 0 {
		now := s.now()
		if due, err := s.anyDue(ctx, room, func(tx Tx) (bool, error) { return tx.AnyDeliveryDue(now) }); !due {
			return nil, err
		}
	}
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if err := s.recordAttempts(tx, finished); err != nil {
			return err
		}
		now := s.now()
		jobs, err = tx.ClaimDue(now, At(now.Add(s.d.Webhooks.Lease())), room)
		// Half the timeout: the lease (2 x timeout + 5 s) then keeps half a timeout and 5 s
		// after the longest request for the round that records it.
		if s.d.Webhooks.Timeout > 0 {
			startBy := At(now.Add(s.d.Webhooks.Timeout / 2))
			for i := range jobs {
				jobs[i].StartBy = startBy
			}
		}
		return err
	})
	return jobs, err
}

// Outcome is a claimed job and the attempt made for it (Attempt.CreatedAt: when it was sent).
type Outcome struct {
	Job     Job
	Attempt Attempt
}

// FinishDelivery records one attempt; see FinishDeliveries.
func (s *Service) FinishDelivery(ctx context.Context, j Job, a Attempt) error {
	return s.FinishDeliveries(ctx, []Outcome{{Job: j, Attempt: a}})
}

// FinishDeliveries records attempts, in order, in one write transaction, and moves each
// delivery on: SUCCEEDED; retried after the next delay of the schedule; or FAILED after the
// last attempt, which lengthens the endpoint's failure streak and may disable it. A success
// resets the streak. A delivery whose endpoint was deleted, or which was settled meanwhile,
// is skipped.
func (s *Service) FinishDeliveries(ctx context.Context, outs []Outcome) error {
	return s.d.Store.Write(ctx, func(tx Tx) error { return s.recordAttempts(tx, outs) })
}

func (s *Service) recordAttempts(tx Tx, outs []Outcome) error {
	if len(outs) == 0 {
		return nil
	}
	ids := make([]string, len(outs))
	for i, o := range outs {
		ids[i] = o.Job.DeliveryID
	}
	states, err := tx.DeliveryStates(ids)
	if err != nil {
		return err
	}
	now := s.now()
	var done []Finished
	for _, o := range outs {
		d, ok := states[o.Job.DeliveryID]
		if !ok || d.OrgID != o.Job.OrgID || d.Status != DeliveryPending {
			continue // endpoint deleted or delivery settled meanwhile
		}
		d, a := s.nextState(d, o.Attempt, now)
		states[d.ID] = d // a second outcome of one delivery sees the first one's result
		done = append(done, Finished{Delivery: d, Attempt: a})
	}
	if err := tx.FinishAttempts(done); err != nil {
		return err
	}
	return s.updateHealth(tx, done, now)
}

// nextState numbers the attempt and works out the delivery's state after it.
func (s *Service) nextState(d Delivery, a Attempt, now Time) (Delivery, Attempt) {
	if a.CreatedAt.IsZero() {
		a.CreatedAt = now
	}
	a.Number = d.AttemptsCount + 1
	d.AttemptsCount, d.UpdatedAt = a.Number, now
	switch {
	case a.Succeeded():
		d.Status = DeliverySucceeded
	case a.Number >= s.d.Webhooks.MaxAttempts():
		d.Status = DeliveryFailed
	default:
		// The delay runs from when the attempt was made, not from when it was recorded.
		d.NextAttemptAt = At(a.CreatedAt.Add(s.d.Webhooks.RetrySchedule[a.Number-1]))
	}
	return d, a
}

// updateHealth applies the finished attempts to their endpoints' failure streaks, in order.
// A success resets the streak with one conditional write (no read: nearly always there is
// nothing to reset); a last failure reads the endpoint, lengthens its streak and may disable it.
func (s *Service) updateHealth(tx Tx, done []Finished, now Time) error {
	reset := map[string]bool{} // endpoints whose streak this batch has already reset
	for _, f := range done {
		d, a := f.Delivery, f.Attempt
		switch {
		case a.Succeeded():
			if reset[d.WebhookID] {
				continue
			}
			if err := tx.ResetWebhookStreak(d.WebhookID, now); err != nil {
				return err
			}
			reset[d.WebhookID] = true
		case d.Status == DeliveryFailed:
			if err := s.lengthenStreak(tx, d, a, now); err != nil {
				return err
			}
			reset[d.WebhookID] = false
		}
	}
	return nil
}

func (s *Service) lengthenStreak(tx Tx, d Delivery, a Attempt, now Time) error {
	w, err := tx.GetWebhook(d.OrgID, d.WebhookID)
	if err != nil {
		return err
	}
	w.ConsecutiveFailures++
	if w.Enabled && s.d.Webhooks.DisableAfter > 0 && w.ConsecutiveFailures >= s.d.Webhooks.DisableAfter {
		reason := itoa(w.ConsecutiveFailures) + " deliveries in a row failed; last error: " + attemptError(a)
		w.Enabled, w.DisabledReason = false, &reason
	}
	w.UpdatedAt = now
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
	return s.d.Store.Write(ctx, func(tx Tx) error { return tx.ReleaseDelivery(id) })
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
	err = s.d.Store.Read(ctx, func(tx Tx) error {
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
	err = s.d.Store.Write(ctx, func(tx Tx) error {
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
	err := s.d.Store.Read(ctx, func(tx Tx) (err error) {
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
	a := s.d.Sender.Send(ctx, Job{OrgID: orgID, WebhookID: w.ID, URL: w.URL, Secret: w.Secret,
		EventID: evt.ID, EventType: evt.Type, Body: body, Attempt: 1})
	a.Number, a.CreatedAt = 1, s.now()
	return a, nil
}

// PurgeDeliveries is the janitor's retention pass.
func (s *Service) PurgeDeliveries(ctx context.Context) (n int, err error) {
	cutoff := At(s.d.Clock.Now().Add(-s.d.Webhooks.Retention))
	err = s.d.Store.Write(ctx, func(tx Tx) error {
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
