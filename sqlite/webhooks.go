package sqlite

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"wsapi/app"
)

const webhookColumns = `id, org_id, name, url, events, enabled, secret, disabled_reason, consecutive_failures, created_at, updated_at`

func (t *Tx) seal(plain string) (string, error) {
	if t.db.sealer == nil {
		return "", errors.New("sqlite: no sealer set for secrets")
	}
	return t.db.sealer.Seal(plain)
}

func (t *Tx) open(sealed string) (string, error) {
	if t.db.sealer == nil {
		return "", errors.New("sqlite: no sealer set for secrets")
	}
	return t.db.sealer.Open(sealed)
}

func (t *Tx) scanWebhook(r rowScanner) (app.Webhook, error) {
	var w app.Webhook
	var events, sealed string
	err := r.Scan(&w.ID, &w.OrgID, &w.Name, &w.URL, &events, &w.Enabled, &sealed, &w.DisabledReason,
		&w.ConsecutiveFailures, &w.CreatedAt, &w.UpdatedAt)
	if err != nil {
		return w, err
	}
	if err := json.Unmarshal([]byte(events), &w.Events); err != nil {
		return w, fmt.Errorf("sqlite: webhook events: %w", err)
	}
	w.Secret, err = t.open(sealed)
	return w, err
}

// CreateWebhook inserts an endpoint with its secret sealed.
func (t *Tx) CreateWebhook(w app.Webhook) error {
	sealed, err := t.seal(w.Secret)
	if err != nil {
		return err
	}
	_, err = t.exec(`INSERT INTO webhook_endpoints (`+webhookColumns+`) VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
		w.ID, w.OrgID, w.Name, w.URL, jsonText(w.Events), w.Enabled, sealed, w.DisabledReason,
		w.ConsecutiveFailures, w.CreatedAt, w.UpdatedAt)
	return err
}

// GetWebhook reads an endpoint of an organization with its secret opened.
func (t *Tx) GetWebhook(orgID, id string) (app.Webhook, error) {
	w, err := t.scanWebhook(t.row(`SELECT `+webhookColumns+` FROM webhook_endpoints WHERE org_id = ? AND id = ?`, orgID, id))
	return w, one(err, "webhook")
}

// UpdateWebhook writes every mutable column, sealing the secret again.
func (t *Tx) UpdateWebhook(w app.Webhook) error {
	sealed, err := t.seal(w.Secret)
	if err != nil {
		return err
	}
	return t.execOne("webhook", `UPDATE webhook_endpoints SET name=?, url=?, events=?, enabled=?, secret=?,
		disabled_reason=?, consecutive_failures=?, updated_at=? WHERE org_id=? AND id=?`,
		w.Name, w.URL, jsonText(w.Events), w.Enabled, sealed, w.DisabledReason, w.ConsecutiveFailures,
		w.UpdatedAt, w.OrgID, w.ID)
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

// DeleteWebhook removes an endpoint; its deliveries go with it.
func (t *Tx) DeleteWebhook(orgID, id string) error {
	return t.execOne("webhook", `DELETE FROM webhook_endpoints WHERE org_id = ? AND id = ?`, orgID, id)
}

// ListWebhooks lists one page of endpoints, oldest first.
func (t *Tx) ListWebhooks(orgID string, p app.Page) ([]app.Webhook, int, error) {
	total, err := t.count(`SELECT COUNT(*) FROM webhook_endpoints WHERE org_id = ?`, orgID)
	if err != nil {
		return nil, 0, err
	}
	rows, err := t.query(`SELECT `+webhookColumns+` FROM webhook_endpoints WHERE org_id = ?
		ORDER BY created_at, id LIMIT ? OFFSET ?`, orgID, p.Take, p.Offset())
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []app.Webhook{}
	for rows.Next() {
		w, err := t.scanWebhook(rows)
		if err != nil {
			return nil, 0, mapErr(err)
		}
		out = append(out, w)
	}
	return out, total, mapErr(rows.Err())
}

// InsertEvent stores the envelope and fans it out to the subscribed enabled endpoints.
func (t *Tx) InsertEvent(e app.Event, body []byte) (int, error) {
	if _, err := t.exec(`INSERT INTO events (id, org_id, type, body, created_at) VALUES (?,?,?,?,?)`,
		e.ID, e.OrgID, e.Type, string(body), e.CreatedAt); err != nil {
		return 0, err
	}
	rows, err := t.query(`SELECT w.id FROM webhook_endpoints w WHERE w.org_id = ? AND w.enabled = 1
		AND EXISTS (SELECT 1 FROM json_each(w.events) WHERE json_each.value = ?)`, e.OrgID, e.Type)
	if err != nil {
		return 0, err
	}
	ids, err := collect(rows, scanString)
	if err != nil {
		return 0, err
	}
	for _, id := range ids {
		d := app.Delivery{ID: app.NewID("dlv"), OrgID: e.OrgID, WebhookID: id, EventID: e.ID, EventType: e.Type,
			Status: app.DeliveryPending, NextAttemptAt: e.CreatedAt, CreatedAt: e.CreatedAt, UpdatedAt: e.CreatedAt}
		if err := t.CreateDelivery(d); err != nil {
			return 0, err
		}
	}
	t.queued = t.queued || len(ids) > 0
	return len(ids), nil
}

// GetEvent reads a stored envelope.
func (t *Tx) GetEvent(orgID, id string) (app.Event, []byte, error) {
	var body string
	err := t.row(`SELECT body FROM events WHERE org_id = ? AND id = ?`, orgID, id).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return app.Event{}, nil, app.NotFound("event")
	}
	if err != nil {
		return app.Event{}, nil, mapErr(err)
	}
	e, err := app.EventOf([]byte(body))
	if err != nil {
		return app.Event{}, nil, fmt.Errorf("sqlite: event body: %w", err)
	}
	return *e, []byte(body), nil
}
