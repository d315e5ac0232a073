package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"wsapi/app"
)

// MailboxCursor is where the IMAP poller of one integration stands (mailbox_cursors).
type MailboxCursor struct {
	Key         string // host, port, username and mailbox the cursor belongs to
	UIDValidity uint32
	LastUID     uint32
	LastDate    time.Time // INTERNALDATE of the last mail imported; zero when none
}

// ImapDeployments answers the ids and organizations of the email integrations that poll an
// IMAP mailbox, every organization's, ordered by organization.
func (db *DB) ImapDeployments(ctx context.Context) (ids, orgs []string, err error) {
	err = db.Read(ctx, func(atx app.Tx) error {
		rows, err := atx.(*Tx).query(`SELECT id, org_id FROM assistant_integrations
			WHERE integration_id = ? AND json_extract(config, '$.inbound') = 'imap' ORDER BY org_id, created_at, id`,
			app.IntegrationEmail)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id, org string
			if err := rows.Scan(&id, &org); err != nil {
				return err
			}
			ids, orgs = append(ids, id), append(orgs, org)
		}
		return rows.Err()
	})
	return ids, orgs, err
}

// GetMailboxCursor reads an integration's cursor; ok is false when it has none yet.
func (db *DB) GetMailboxCursor(ctx context.Context, asiID string) (c MailboxCursor, ok bool, err error) {
	err = db.Read(ctx, func(atx app.Tx) error {
		var last sql.NullString
		err := atx.(*Tx).row(`SELECT mailbox_key, uid_validity, last_uid, last_date FROM mailbox_cursors WHERE asi_id = ?`,
			asiID).Scan(&c.Key, &c.UIDValidity, &c.LastUID, &last)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		ok = true
		if last.Valid {
			c.LastDate, err = time.Parse(time.RFC3339, last.String)
		}
		return err
	})
	return c, ok, err
}

// SaveMailboxCursor records an integration's cursor. An integration deleted meanwhile saves
// nothing (its row is gone, and the cursor with it).
func (db *DB) SaveMailboxCursor(ctx context.Context, asiID, orgID string, c MailboxCursor, now time.Time) error {
	var last any
	if !c.LastDate.IsZero() {
		last = c.LastDate.UTC().Format(time.RFC3339)
	}
	return db.Write(ctx, func(atx app.Tx) error {
		_, err := atx.(*Tx).exec(`INSERT INTO mailbox_cursors (asi_id, org_id, mailbox_key, uid_validity, last_uid, last_date, updated_at)
			SELECT ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM assistant_integrations WHERE id = ?)
			ON CONFLICT (asi_id) DO UPDATE SET mailbox_key = excluded.mailbox_key, uid_validity = excluded.uid_validity,
				last_uid = excluded.last_uid, last_date = excluded.last_date, updated_at = excluded.updated_at`,
			asiID, orgID, c.Key, c.UIDValidity, c.LastUID, last, app.At(now), asiID)
		return err
	})
}
