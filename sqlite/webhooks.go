package sqlite

import (
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

// DeleteWebhook removes an endpoint; its deliveries go with it.
func (t *Tx) DeleteWebhook(orgID, id string) error {
	return t.execOne("webhook", `DELETE FROM webhook_endpoints WHERE org_id = ? AND id = ?`, orgID, id)
}

// ListWebhooks lists one page of endpoints, oldest first.
func (t *Tx) ListWebhooks(orgID string, p app.Page) ([]app.Webhook, int, error) {
	return listPage(t, t.scanWebhook, p, `SELECT COUNT(*) FROM webhook_endpoints WHERE org_id = ?`,
		`SELECT `+webhookColumns+` FROM webhook_endpoints WHERE org_id = ?
		ORDER BY created_at, id LIMIT ? OFFSET ?`,
		orgID)
}
