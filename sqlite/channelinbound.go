package sqlite

import (
	"fmt"

	"wsapi/app"
	"wsapi/app/channel/inbound"
)

var _ inbound.Tx = (*Tx)(nil)

// QueueUpdate stores a provider's update for the inbound worker, as the relay moves it out
// of the spool or the SMTP listener queues a mail: one already queued (a relay cut short
// before it took it out of the spool) or whose integration went meanwhile is left out. Its
// body goes to a row of its own, which leases and retries never rewrite (migration 00043).
func (t *Tx) QueueUpdate(u inbound.Update) error {
	res, err := t.exec(`INSERT INTO channel_updates (id, org_id, asi_id, integration_id, body, attempts, next_attempt_at,
		created_at) SELECT ?1,?2,?3,?4,x'',?5,?6,?7 WHERE EXISTS (SELECT 1 FROM assistant_integrations
		WHERE id = ?3 AND org_id = ?2) ON CONFLICT (id) DO NOTHING`, u.ID, u.OrgID, u.DeploymentID, u.IntegrationID,
		u.Attempts, u.NextAttemptAt, u.CreatedAt)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil || n == 0 {
		return mapErr(err)
	}
	t.queue(WorkInbound, true)
	_, err = t.exec(`INSERT INTO channel_update_bodies (update_id, body) VALUES (?,?)`, u.ID, u.Body)
	return err
}

// ClaimUpdates takes each organization's oldest due updates, picks among them round-robin
// across organizations and integrations (app.ClaimRoom), and leases the picked ones.
func (t *Tx) ClaimUpdates(now, leaseUntil app.Time, room app.ClaimRoom) ([]inbound.Update, error) {
	ids, err := t.pickDue(room, `SELECT u.id, u.org_id, u.asi_id FROM orgs o
		JOIN channel_updates u ON u.id IN (
			SELECT x.id FROM channel_updates x INDEXED BY channel_updates_claim
			WHERE x.org_id = o.id AND x.next_attempt_at <= ?1 AND (x.lease_until IS NULL OR x.lease_until <= ?1)
			ORDER BY x.next_attempt_at, x.id LIMIT ?2)
		ORDER BY u.next_attempt_at, u.id`, now, room.Limit)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	list, err := t.leasePicked("channel_updates", "id", ids, leaseUntil)
	if err != nil {
		return nil, err
	}
	ups, err := queryAll(t, func(r rowScanner) (u inbound.Update, err error) {
		return u, r.Scan(&u.ID, &u.OrgID, &u.DeploymentID, &u.IntegrationID, &u.Attempts, &u.NextAttemptAt, &u.CreatedAt)
	}, `SELECT id, org_id, asi_id, integration_id, attempts, next_attempt_at, created_at
		FROM channel_updates WHERE id IN (SELECT value FROM json_each(?)) ORDER BY next_attempt_at, id`, list)
	for i := range ups {
		if err == nil {
			err = t.updateBody(&ups[i])
		}
	}
	return ups, err
}

// updateBody reads an update's body on its own: a query that sorted rows with their bodies
// held a queued 25 MiB mail four times over in SQLite's sorter and the driver. A body that is
// missing is empty (the worker drops what it cannot read; the claim goes on).
func (t *Tx) updateBody(u *inbound.Update) error {
	err := t.row(`SELECT body FROM channel_update_bodies WHERE update_id = ?`, u.ID).Scan((*ownedBytes)(&u.Body))
	if app.IsNotFound(one(err, "update body")) {
		return nil
	}
	return mapErr(err)
}

// ownedBytes scans a blob without database/sql's copy of it: modernc's driver reads every
// blob into a slice of its own (conn.columnBlob), which no later row reuses
// (TestOwnedBytesKeepsItsRow), so that slice is the caller's already. A queued 25 MiB mail
// was otherwise held twice in Go memory while it was claimed (bench/email).
type ownedBytes []byte

func (b *ownedBytes) Scan(src any) error {
	switch v := src.(type) {
	case []byte:
		*b = v
	case string:
		*b = []byte(v)
	case nil:
		*b = nil
	default:
		return fmt.Errorf("sqlite: a blob column holds %T", src)
	}
	return nil
}

// AnyUpdateQueued tells whether a claim could find an update, on a reader.
func (t *Tx) AnyUpdateQueued(now app.Time) (bool, error) {
	var due bool
	err := t.row(`SELECT EXISTS (SELECT 1 FROM channel_updates INDEXED BY channel_updates_due
		WHERE next_attempt_at <= ?1 AND (lease_until IS NULL OR lease_until <= ?1))`, now).Scan(&due)
	return due, mapErr(err)
}

// RetryUpdate sets the attempts made and the next one's time, and releases the lease.
func (t *Tx) RetryUpdate(id string, attempts int, next app.Time) error {
	_, err := t.exec(`UPDATE channel_updates SET attempts = ?, next_attempt_at = ?, lease_until = NULL WHERE id = ?`,
		attempts, next, id)
	return err
}

// DropUpdate takes an update out of the queue (processed, or failed for good).
func (t *Tx) DropUpdate(id string) error {
	_, err := t.exec(`DELETE FROM channel_updates WHERE id = ?`, id)
	return err
}

// MarkSeen records a provider's id of something an integration took in; false when it was
// recorded before (the provider sent it again).
func (t *Tx) MarkSeen(deploymentID, externalID string, now app.Time) (bool, error) {
	res, err := t.exec(`INSERT INTO channel_seen (asi_id, external_id, created_at) VALUES (?,?,?)
		ON CONFLICT (asi_id, external_id) DO NOTHING`, deploymentID, externalID, now)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, mapErr(err)
}

// Seen tells whether a provider's id was recorded for an integration.
func (t *Tx) Seen(deploymentID, externalID string) (bool, error) {
	var seen bool
	err := t.row(`SELECT EXISTS (SELECT 1 FROM channel_seen WHERE asi_id = ? AND external_id = ?)`,
		deploymentID, externalID).Scan(&seen)
	return seen, mapErr(err)
}

// PurgeSeen forgets the ids recorded before a time (channel_seen_by_age).
func (t *Tx) PurgeSeen(before app.Time) (int, error) {
	res, err := t.exec(`DELETE FROM channel_seen WHERE created_at < ?`, before)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), mapErr(err)
}

// MessageByExternalID answers the chat and id of the organization's message whose delivery
// carries a provider's id (chat_messages_by_external_id).
func (t *Tx) MessageByExternalID(orgID, externalID string) (chatID, messageID string, err error) {
	err = t.row(`SELECT chat_id, id FROM chat_messages WHERE org_id = ? AND delivery IS NOT NULL
		AND json_extract(delivery, '$.external_id') = ? LIMIT 1`, orgID, externalID).Scan(&chatID, &messageID)
	return chatID, messageID, one(err, "message")
}
