package sqlite

import "wsapi/app"

// QueueDelivery puts a message in the delivery worker's queue, once: a message queued again
// (a retried write of the same finished run) keeps its row.
func (t *Tx) QueueDelivery(d app.QueuedDelivery) error {
	t.queue(WorkMessages, true)
	_, err := t.exec(`INSERT INTO message_deliveries (message_id, org_id, chat_id, integration_id, asi_id, attempts,
		next_attempt_at, created_at) VALUES (?,?,?,?,?,?,?,?) ON CONFLICT (message_id) DO NOTHING`,
		d.MessageID, d.OrgID, d.ChatID, d.IntegrationID, d.DeploymentID, d.Attempts, d.NextAttemptAt, d.CreatedAt)
	return err
}

// SetMessageDelivery writes a message's delivery as answered.
func (t *Tx) SetMessageDelivery(orgID, messageID string, d app.MessageDelivery) error {
	return t.execOne("message", `UPDATE chat_messages SET delivery = ? WHERE org_id = ? AND id = ?`,
		jsonText(d), orgID, messageID)
}

// ClaimDeliveries takes each organization's oldest due deliveries (a short walk of
// message_deliveries_claim per organization), picks among them round-robin across
// organizations and chats (app.ClaimRoom), and leases the picked ones.
func (t *Tx) ClaimDeliveries(now, leaseUntil app.Time, room app.ClaimRoom) ([]app.QueuedDelivery, error) {
	ids, err := t.pickDue(room, `SELECT d.message_id, d.org_id, d.chat_id FROM orgs o
		JOIN message_deliveries d ON d.message_id IN (
			SELECT x.message_id FROM message_deliveries x INDEXED BY message_deliveries_claim
			WHERE x.org_id = o.id AND x.next_attempt_at <= ?1 AND (x.lease_until IS NULL OR x.lease_until <= ?1)
			ORDER BY x.next_attempt_at, x.message_id LIMIT ?2)
		ORDER BY d.next_attempt_at, d.message_id`, now, room.Limit)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	list, err := t.leasePicked("message_deliveries", "message_id", ids, leaseUntil)
	if err != nil {
		return nil, err
	}
	return queryAll(t, func(r rowScanner) (d app.QueuedDelivery, err error) {
		return d, r.Scan(&d.MessageID, &d.OrgID, &d.ChatID, &d.IntegrationID, &d.DeploymentID, &d.Attempts,
			&d.NextAttemptAt, &d.CreatedAt)
	}, `SELECT message_id, org_id, chat_id, integration_id, asi_id, attempts, next_attempt_at, created_at
		FROM message_deliveries WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY next_attempt_at, message_id`, list)
}

// AnyDeliveryQueued tells whether a claim could find a message to deliver, on a reader.
func (t *Tx) AnyDeliveryQueued(now app.Time) (bool, error) {
	var due bool
	err := t.row(`SELECT EXISTS (SELECT 1 FROM message_deliveries INDEXED BY message_deliveries_due
		WHERE next_attempt_at <= ?1 AND (lease_until IS NULL OR lease_until <= ?1))`, now).Scan(&due)
	return due, mapErr(err)
}

// RetryDelivery sets the attempts made and the next one's time, and releases the lease.
func (t *Tx) RetryDelivery(messageID string, attempts int, next app.Time) error {
	_, err := t.exec(`UPDATE message_deliveries SET attempts = ?, next_attempt_at = ?, lease_until = NULL
		WHERE message_id = ?`, attempts, next, messageID)
	return err
}

// DropDelivery takes a message out of the queue (sent, failed for good, or gone).
func (t *Tx) DropDelivery(messageID string) error {
	_, err := t.exec(`DELETE FROM message_deliveries WHERE message_id = ?`, messageID)
	return err
}
