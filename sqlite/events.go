package sqlite

import (
	"database/sql"
	"errors"
	"fmt"

	"wsapi/app"
)

// InsertEvent stores the envelope and fans it out to the subscribed enabled endpoints.
func (t *Tx) InsertEvent(e app.Event, body []byte) (int, error) {
	if _, err := t.exec(`INSERT INTO events (id, org_id, type, body, created_at) VALUES (?,?,?,?,?)`,
		e.ID, e.OrgID, e.Type, string(body), e.CreatedAt); err != nil {
		return 0, err
	}
	ids, err := queryAll(t, scanString, `SELECT w.id FROM webhook_endpoints w WHERE w.org_id = ? AND w.enabled = 1
		AND EXISTS (SELECT 1 FROM json_each(w.events) WHERE json_each.value = ?)`, e.OrgID, e.Type)
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
	t.queue(WorkDeliveries, len(ids) > 0)
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
