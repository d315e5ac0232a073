package sqlite

import (
	"encoding/json"
	"fmt"

	"wsapi/app"
)

const broadcastBaseColumns = `b.id, b.org_id, b.name, b.integration_id, b.identity_id, b.subject, b.text, b.html,
	b.segment_ids, b.contact_ids, b.status, b.created_at, b.updated_at, b.asi_id, b.template`

const broadcastColumns = broadcastBaseColumns + `,
	(SELECT COUNT(*) FROM broadcast_recipients r WHERE r.broadcast_id = b.id),
	(SELECT COUNT(*) FROM broadcast_recipients r WHERE r.broadcast_id = b.id AND r.status = 'PROCESSED'),
	(SELECT COUNT(is_sent_at) || ',' || COUNT(is_delivered_at) || ',' || COUNT(is_failed_at) || ',' ||
		COUNT(is_skipped_at) || ',' || COUNT(is_bounced_at) || ',' || COUNT(is_complained_at) || ',' ||
		COUNT(is_opened_at) || ',' || COUNT(is_unsubscribed_at) FROM broadcast_recipients r WHERE r.broadcast_id = b.id)`

func scanBroadcast(r rowScanner) (app.Broadcast, error) {
	var b app.Broadcast
	var segs, contacts, flags string
	var template *string
	c := &b.Counts
	err := r.Scan(&b.ID, &b.OrgID, &b.Name, &b.IntegrationID, &b.IdentityID, &b.Subject, &b.Text, &b.HTML, &segs,
		&contacts, &b.Status, &b.CreatedAt, &b.UpdatedAt, &b.AssistantIntegrationID, &template, &c.Recipients, &c.Processed, &flags)
	if err != nil {
		return b, err
	}
	if template != nil {
		if err := json.Unmarshal([]byte(*template), &b.Template); err != nil {
			return b, fmt.Errorf("sqlite: broadcast template: %w", err)
		}
	}
	if _, err := fmt.Sscanf(flags, "%d,%d,%d,%d,%d,%d,%d,%d", &c.Sent, &c.Delivered, &c.Failed, &c.Skipped,
		&c.Bounced, &c.Complained, &c.Opened, &c.Unsubscribed); err != nil {
		return b, fmt.Errorf("sqlite: broadcast counts: %w", err)
	}
	if err := json.Unmarshal([]byte(segs), &b.SegmentIDs); err != nil {
		return b, fmt.Errorf("sqlite: broadcast segments: %w", err)
	}
	return b, json.Unmarshal([]byte(contacts), &b.ContactIDs)
}

// CreateBroadcast inserts a broadcast.
func (t *Tx) CreateBroadcast(b app.Broadcast) error {
	var template *string
	if b.Template != nil {
		s := jsonText(b.Template)
		template = &s
	}
	_, err := t.exec(`INSERT INTO broadcasts (id, org_id, name, integration_id, identity_id, subject, text, html,
		segment_ids, contact_ids, status, created_at, updated_at, asi_id, template) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		b.ID, b.OrgID, b.Name, b.IntegrationID, b.IdentityID, b.Subject, b.Text, b.HTML, jsonText(b.SegmentIDs),
		jsonText(b.ContactIDs), b.Status, b.CreatedAt, b.UpdatedAt, b.AssistantIntegrationID, template)
	return err
}

// GetBroadcast reads a broadcast with its counts.
func (t *Tx) GetBroadcast(orgID, id string) (app.Broadcast, error) {
	b, err := scanBroadcast(t.row(`SELECT `+broadcastColumns+` FROM broadcasts b WHERE b.org_id = ? AND b.id = ?`, orgID, id))
	return b, one(err, "broadcast")
}

// GetBroadcastContent reads a broadcast without its counts, which take a pass over all its
// recipients: the sender reads the broadcast once per recipient.
func (t *Tx) GetBroadcastContent(orgID, id string) (app.Broadcast, error) {
	b, err := scanBroadcast(t.row(`SELECT `+broadcastBaseColumns+`, 0, 0, '0,0,0,0,0,0,0,0' FROM broadcasts b
		WHERE b.org_id = ? AND b.id = ?`, orgID, id))
	return b, one(err, "broadcast")
}

// SetBroadcastStatus changes a broadcast's status.
func (t *Tx) SetBroadcastStatus(orgID, id, status string, now app.Time) error {
	return t.execOne("broadcast", `UPDATE broadcasts SET status = ?, updated_at = ? WHERE org_id = ? AND id = ?`, status, now, orgID, id)
}

// ListBroadcasts lists one page of broadcasts, newest first.
func (t *Tx) ListBroadcasts(orgID string, p app.Page) ([]app.Broadcast, int, error) {
	return listPage(t, scanBroadcast, p, `SELECT COUNT(*) FROM broadcasts WHERE org_id = ?`,
		`SELECT `+broadcastColumns+` FROM broadcasts b WHERE b.org_id = ?
		ORDER BY b.created_at DESC, b.id DESC LIMIT ? OFFSET ?`,
		orgID)
}

// CreateRecipients picks, per target contact, its channel of the broadcast's integration (for
// email: an email channel first, else any channel with an address) and inserts a recipient.
func (t *Tx) CreateRecipients(b app.Broadcast, now app.Time) (int, error) {
	rows, err := t.query(`WITH targets AS (
			SELECT sm.contact_id FROM segment_members sm WHERE sm.segment_id IN (SELECT value FROM json_each(?1))
			UNION SELECT value FROM json_each(?2)
		), ranked AS (
			SELECT ch.contact_id, ch.id, ch.user_id, COALESCE(NULLIF(ch.name, ''), c.name) AS name, ch.username,
				ch.phone, ch.email,
				ROW_NUMBER() OVER (PARTITION BY ch.contact_id ORDER BY ch.type = ?3 DESC, ch.created_at, ch.id) AS rn
			FROM contact_channels ch JOIN targets t ON t.contact_id = ch.contact_id JOIN contacts c ON c.id = ch.contact_id
			WHERE ch.org_id = ?4 AND (ch.type = ?3 OR (?3 = 'email' AND ch.email <> ''))
				AND (?3 <> 'email' OR ch.email <> '')
		)
		SELECT contact_id, id, user_id, name, username, phone, email FROM ranked WHERE rn = 1 ORDER BY contact_id`,
		jsonText(b.SegmentIDs), jsonText(b.ContactIDs), b.IntegrationID, b.OrgID)
	if err != nil {
		return 0, err
	}
	type target struct{ contact, channel, userID, name, username, phone, email string }
	ts, err := collect(rows, func(r rowScanner) (x target, err error) {
		return x, r.Scan(&x.contact, &x.channel, &x.userID, &x.name, &x.username, &x.phone, &x.email)
	})
	if err != nil {
		return 0, err
	}
	err = t.insertBatches(`INSERT INTO broadcast_recipients (id, org_id, broadcast_id, contact_id, channel_id,
		integration_id, user_id, name, username, phone, email, status, created_at, updated_at)`, 14, len(ts), func(i int) []any {
		x := ts[i]
		return []any{app.NewID("rcpt"), b.OrgID, b.ID, x.contact, x.channel, b.IntegrationID, nullable(x.userID),
			nullable(x.name), nullable(x.username), nullable(x.phone), nullable(x.email), app.RecipientSending, now, now}
	})
	t.queue(WorkRecipients, err == nil && len(ts) > 0)
	return len(ts), err
}
