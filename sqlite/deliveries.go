package sqlite

import (
	"wsapi/app"
)

// CreateDelivery inserts a pending delivery.
func (t *Tx) CreateDelivery(d app.Delivery) error {
	_, err := t.exec(`INSERT INTO webhook_deliveries (id, org_id, webhook_id, event_id, event_type, status,
		attempts_count, next_attempt_at, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?)`,
		d.ID, d.OrgID, d.WebhookID, d.EventID, d.EventType, d.Status, d.AttemptsCount, d.NextAttemptAt,
		d.CreatedAt, d.UpdatedAt)
	t.queue(WorkDeliveries, err == nil)
	return err
}

// ClaimDue takes, for each enabled endpoint of a funded organization, its oldest due
// deliveries (a short walk of webhook_deliveries_claim per endpoint, no more than the round
// could take from one endpoint), picks among them round-robin across organizations and
// endpoints within the room's caps (app.ClaimRoom), and leases the picked ones.
func (t *Tx) ClaimDue(now, leaseUntil app.Time, room app.ClaimRoom) ([]app.Job, error) {
	perEndpoint := room.Limit
	if room.PerQueue > 0 {
		perEndpoint = min(perEndpoint, room.PerQueue)
	}
	ids, err := t.pickDue(room, `SELECT d.id, w.org_id, d.webhook_id FROM webhook_endpoints w
		JOIN orgs o ON o.id = w.org_id AND o.balance > 0
		JOIN webhook_deliveries d ON d.id IN (
			SELECT x.id FROM webhook_deliveries x
			WHERE x.webhook_id = w.id AND x.status = 'PENDING' AND x.next_attempt_at <= ?1
				AND (x.lease_until IS NULL OR x.lease_until <= ?1)
			ORDER BY x.next_attempt_at, x.id LIMIT ?2)
		WHERE w.enabled = 1
		ORDER BY d.next_attempt_at, d.id`, now, perEndpoint)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	return t.lease(ids, leaseUntil)
}

// AnyDeliveryDue tells whether a claim could find a delivery, without a write transaction.
func (t *Tx) AnyDeliveryDue(now app.Time) (bool, error) {
	var due bool
	err := t.row(`SELECT EXISTS (SELECT 1 FROM webhook_deliveries INDEXED BY webhook_deliveries_due
		WHERE status = 'PENDING' AND next_attempt_at <= ?1 AND (lease_until IS NULL OR lease_until <= ?1))`, now).Scan(&due)
	return due, mapErr(err)
}

func (t *Tx) lease(ids []string, leaseUntil app.Time) ([]app.Job, error) {
	list, err := t.leasePicked("webhook_deliveries", "id", ids, leaseUntil)
	if err != nil {
		return nil, err
	}
	rows, err := t.query(`SELECT d.id, d.org_id, d.webhook_id, w.url, w.secret, e.id, e.type, e.body, d.attempts_count
		FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.webhook_id JOIN events e ON e.id = d.event_id
		WHERE d.id IN (SELECT value FROM json_each(?))`, list)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(r rowScanner) (j app.Job, err error) {
		var sealed, body string
		if err := r.Scan(&j.DeliveryID, &j.OrgID, &j.WebhookID, &j.URL, &sealed, &j.EventID, &j.EventType,
			&body, &j.Attempt); err != nil {
			return j, err
		}
		j.Body, j.Attempt = []byte(body), j.Attempt+1
		j.Secret, err = t.open(sealed)
		return j, err
	})
}

const deliveryColumns = `d.id, d.org_id, d.webhook_id, d.event_id, d.event_type, d.status, d.attempts_count,
	d.next_attempt_at, d.created_at, d.updated_at, e.body`

func scanDelivery(r rowScanner) (app.Delivery, error) {
	var d app.Delivery
	var body string
	err := r.Scan(&d.ID, &d.OrgID, &d.WebhookID, &d.EventID, &d.EventType, &d.Status, &d.AttemptsCount,
		&d.NextAttemptAt, &d.CreatedAt, &d.UpdatedAt, &body)
	if err != nil {
		return d, err
	}
	if d.Status != app.DeliveryPending {
		d.NextAttemptAt = app.Time{}
	}
	d.Event, err = app.EventOf([]byte(body))
	return d, err
}

// DeliveryStates reads deliveries' own columns, by id.
func (t *Tx) DeliveryStates(ids []string) (map[string]app.Delivery, error) {
	rows, err := t.query(`SELECT id, org_id, webhook_id, event_id, event_type, status, attempts_count, next_attempt_at,
		created_at, updated_at FROM webhook_deliveries WHERE id IN (SELECT value FROM json_each(?))`, jsonText(ids))
	if err != nil {
		return nil, err
	}
	list, err := collect(rows, func(r rowScanner) (d app.Delivery, err error) {
		return d, r.Scan(&d.ID, &d.OrgID, &d.WebhookID, &d.EventID, &d.EventType, &d.Status, &d.AttemptsCount,
			&d.NextAttemptAt, &d.CreatedAt, &d.UpdatedAt)
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]app.Delivery, len(list))
	for _, d := range list {
		out[d.ID] = d
	}
	return out, nil
}

// GetDelivery reads a delivery with its event and attempts; an empty orgID matches any.
func (t *Tx) GetDelivery(orgID, id string) (app.Delivery, error) {
	d, err := scanDelivery(t.row(`SELECT `+deliveryColumns+` FROM webhook_deliveries d
		JOIN events e ON e.id = d.event_id WHERE d.id = ? AND (?2 = '' OR d.org_id = ?2)`, id, orgID))
	if err != nil {
		return d, one(err, "delivery")
	}
	list := []app.Delivery{d}
	if err := t.attachAttempts(list); err != nil {
		return d, err
	}
	return list[0], nil
}

// ListDeliveries lists one page of deliveries, newest first; empty org and webhook match any.
func (t *Tx) ListDeliveries(orgID, webhookID, status string, p app.Page) ([]app.Delivery, int, error) {
	where := `(?1 = '' OR d.org_id = ?1) AND (?2 = '' OR d.webhook_id = ?2) AND (?3 = '' OR d.status = ?3)`
	total, err := t.count(`SELECT COUNT(*) FROM webhook_deliveries d WHERE `+where, orgID, webhookID, status)
	if err != nil {
		return nil, 0, err
	}
	out, err := queryAll(t, scanDelivery, `SELECT `+deliveryColumns+` FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
		WHERE `+where+` ORDER BY d.created_at DESC, d.id DESC LIMIT ?4 OFFSET ?5`,
		orgID, webhookID, status, p.Take, p.Offset())
	if err != nil {
		return nil, 0, err
	}
	if out == nil {
		out = []app.Delivery{}
	}
	return out, total, t.attachAttempts(out)
}

func (t *Tx) attachAttempts(ds []app.Delivery) error {
	if len(ds) == 0 {
		return nil
	}
	index := map[string]int{}
	ids := make([]string, len(ds))
	for i, d := range ds {
		index[d.ID] = i
		ids[i] = d.ID
		ds[i].Attempts = []app.Attempt{}
	}
	rows, err := t.query(`SELECT delivery_id, number, status, response_code, response_body, duration_ms, error, created_at
		FROM webhook_attempts WHERE delivery_id IN (SELECT value FROM json_each(?)) ORDER BY delivery_id, number`, jsonText(ids))
	if err != nil {
		return err
	}
	attempts, err := collect(rows, func(r rowScanner) (k keyed[app.Attempt], err error) {
		a := &k.v
		return k, r.Scan(&k.key, &a.Number, &a.Status, &a.ResponseCode, &a.ResponseBody, &a.DurationMs, &a.Error, &a.CreatedAt)
	})
	for _, a := range attempts {
		ds[index[a.key]].Attempts = append(ds[index[a.key]].Attempts, a.v)
	}
	return err
}

// FinishAttempts stores attempts and the deliveries' new states, and clears their leases:
// one statement for the attempts and one for the deliveries, whatever their number (a
// delivery named twice takes its last state). A delivery that does not exist is not_found.
func (t *Tx) FinishAttempts(done []app.Finished) error {
	if len(done) == 0 {
		return nil
	}
	if err := t.insertJSON(`INSERT INTO webhook_attempts (delivery_id, number, status, response_code, response_body,
		duration_ms, error, created_at)`, 8, len(done), func(i int) []any {
		d, a := done[i].Delivery, done[i].Attempt
		return []any{d.ID, a.Number, a.Status, a.ResponseCode, a.ResponseBody, a.DurationMs, a.Error, a.CreatedAt}
	}); err != nil {
		return err
	}
	last := map[string]app.Delivery{}
	var states [][]any
	for _, f := range done {
		last[f.Delivery.ID] = f.Delivery
	}
	for id, d := range last {
		states = append(states, []any{id, d.Status, d.AttemptsCount, d.NextAttemptAt, d.UpdatedAt})
	}
	res, err := t.exec(`UPDATE webhook_deliveries AS d SET status = x.value ->> 1, attempts_count = x.value ->> 2,
		next_attempt_at = x.value ->> 3, lease_until = NULL, updated_at = x.value ->> 4
		FROM jsonb_each(?) AS x WHERE d.id = x.value ->> 0`, jsonText(states))
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || int(n) != len(states) {
		return app.NotFound("delivery")
	}
	return nil
}

// ReleaseDelivery clears a lease without an attempt.
func (t *Tx) ReleaseDelivery(id string) error {
	_, err := t.exec(`UPDATE webhook_deliveries SET lease_until = NULL WHERE id = ?`, id)
	return err
}

// PurgeDeliveries deletes finished deliveries older than cutoff and then orphaned events.
func (t *Tx) PurgeDeliveries(cutoff app.Time) (int, error) {
	res, err := t.exec(`DELETE FROM webhook_deliveries WHERE status <> 'PENDING' AND updated_at < ?`, cutoff)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	_, err = t.exec(`DELETE FROM events WHERE created_at < ? AND NOT EXISTS
		(SELECT 1 FROM webhook_deliveries d WHERE d.event_id = events.id)`, cutoff)
	return int(n), err
}

// SetWebhookHealth writes the failure streak and enabled state only.
func (t *Tx) SetWebhookHealth(w app.Webhook) error {
	return t.execOne("webhook", `UPDATE webhook_endpoints SET enabled=?, disabled_reason=?, consecutive_failures=?,
		updated_at=? WHERE id=?`, w.Enabled, w.DisabledReason, w.ConsecutiveFailures, w.UpdatedAt, w.ID)
}

// ResetWebhookStreak ends an endpoint's failure streak; it writes nothing when there is none.
func (t *Tx) ResetWebhookStreak(id string, now app.Time) error {
	_, err := t.exec(`UPDATE webhook_endpoints SET consecutive_failures = 0, updated_at = ?
		WHERE id = ? AND consecutive_failures <> 0`, now, id)
	return err
}
