package sqlite

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"wsapi/app"
)

const recipientColumns = `r.id, r.org_id, r.broadcast_id, b.name, r.integration_id, COALESCE(r.contact_id, ''), r.user_id,
	r.name, r.username, r.phone, r.email, r.status, r.is_skipped_at, r.is_failed_at, r.is_bounced_at, r.is_sent_at,
	r.is_delivered_at, r.is_complained_at, r.is_unsubscribed_at, r.is_opened_at, r.is_played_at, r.error_message,
	r.external_message_id, r.click_count, r.last_clicked_at, r.created_at, r.updated_at`

const recipientFrom = ` FROM broadcast_recipients r JOIN broadcasts b ON b.id = r.broadcast_id`

func scanRecipient(s rowScanner) (app.Recipient, error) {
	var r app.Recipient
	var flags [9]app.Time
	err := s.Scan(&r.ID, &r.OrgID, &r.BroadcastID, &r.BroadcastName, &r.IntegrationID, &r.ContactID, &r.UserID,
		&r.Name, &r.Username, &r.Phone, &r.Email, &r.Status, &flags[0], &flags[1], &flags[2], &flags[3], &flags[4],
		&flags[5], &flags[6], &flags[7], &flags[8], &r.ErrorMessage, &r.ExternalMessageID, &r.ClickCount,
		&r.LastClickedAt, &r.CreatedAt, &r.UpdatedAt)
	r.Flags = map[string]app.Time{}
	for i, f := range app.RecipientFlags {
		if !flags[i].IsZero() {
			r.Flags[f] = flags[i]
		}
	}
	return r, err
}

func (t *Tx) loadRecipients(withContacts bool, query string, args ...any) ([]app.Recipient, error) {
	rows, err := t.query(query, args...)
	if err != nil {
		return nil, err
	}
	out, err := collect(rows, scanRecipient)
	if err != nil || !withContacts || len(out) == 0 {
		return out, err
	}
	return out, t.attachRecipientContacts(out)
}

func (t *Tx) attachRecipientContacts(rs []app.Recipient) error {
	ids := make([]string, 0, len(rs))
	for _, r := range rs {
		ids = append(ids, r.ContactID)
	}
	cs, err := t.loadContacts(`SELECT `+contactColumns+` FROM contacts c WHERE c.id IN (SELECT value FROM json_each(?))`, jsonText(ids))
	if err != nil {
		return err
	}
	byID := map[string]*app.Contact{}
	for i := range cs {
		byID[cs[i].ID] = &cs[i]
	}
	for i := range rs {
		rs[i].Contact = byID[rs[i].ContactID]
	}
	return nil
}

// GetRecipient reads a recipient of an organization with its contact.
func (t *Tx) GetRecipient(orgID, id string) (app.Recipient, error) {
	rs, err := t.loadRecipients(true, `SELECT `+recipientColumns+recipientFrom+` WHERE r.org_id = ? AND r.id = ?`, orgID, id)
	if err != nil {
		return app.Recipient{}, err
	}
	if len(rs) == 0 {
		return app.Recipient{}, app.NotFound("recipient")
	}
	return rs[0], nil
}

// FindRecipient reads a recipient of any organization.
func (t *Tx) FindRecipient(id string) (app.Recipient, error) {
	rs, err := t.loadRecipients(false, `SELECT `+recipientColumns+recipientFrom+` WHERE r.id = ?`, id)
	if err != nil {
		return app.Recipient{}, err
	}
	if len(rs) == 0 {
		return app.Recipient{}, app.NotFound("recipient")
	}
	return rs[0], nil
}

// ListRecipients answers a page of recipients with the filters that are set.
func (t *Tx) ListRecipients(orgID string, f app.RecipientFilter, after *app.RecipientCursor, offset, limit int) ([]app.Recipient, int, error) {
	conds, args := []string{"r.org_id = ?"}, []any{orgID}
	for col, v := range map[string]string{"r.broadcast_id": f.BroadcastID, "r.integration_id": f.IntegrationID,
		"r.contact_id": f.ContactID, "r.user_id": f.UserID, "r.username": f.Username} {
		if v != "" {
			conds, args = append(conds, col+" = ?"), append(args, v)
		}
	}
	if f.Email != "" {
		conds, args = append(conds, "lower(r.email) = lower(?)"), append(args, f.Email)
	}
	if f.Status != "" && f.Status != "ALL" {
		conds, args = append(conds, "r.status = ?"), append(args, f.Status)
	}
	for flag, set := range f.Flags {
		if set {
			conds = append(conds, "r.is_"+flag+"_at IS NOT NULL")
		} else {
			conds = append(conds, "r.is_"+flag+"_at IS NULL")
		}
	}
	where := strings.Join(conds, " AND ")
	total, err := t.count(`SELECT COUNT(*) FROM broadcast_recipients r WHERE `+where, args...)
	if err != nil {
		return nil, 0, err
	}
	col, dir, cmp := "r."+f.SortField, "ASC", ">"
	if f.SortDesc {
		dir, cmp = "DESC", "<"
	}
	if after != nil {
		where += " AND (" + col + " " + cmp + " ? OR (" + col + " = ? AND r.id " + cmp + " ?))"
		args = append(args, after.Value, after.Value, after.ID)
	}
	rs, err := t.loadRecipients(true, `SELECT `+recipientColumns+recipientFrom+` WHERE `+where+`
		ORDER BY `+col+` `+dir+`, r.id `+dir+` LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	return rs, total, err
}

// SetRecipientFlag sets a flag and its time once.
func (t *Tx) SetRecipientFlag(id, flag string, at, now app.Time) (bool, error) {
	if !slices.Contains(app.RecipientFlags, flag) { // the flag names a column
		return false, fmt.Errorf("sqlite: unknown recipient flag %q", flag)
	}
	res, err := t.exec(`UPDATE broadcast_recipients SET is_`+flag+`_at = ?, updated_at = ? WHERE id = ? AND is_`+flag+`_at IS NULL`,
		at, now, id)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// FinishRecipient marks a recipient PROCESSED and releases its lease.
func (t *Tx) FinishRecipient(id string, externalID, errMsg *string, now app.Time) error {
	return t.execOne("recipient", `UPDATE broadcast_recipients SET status = 'PROCESSED', lease_until = NULL,
		external_message_id = COALESCE(?, external_message_id), error_message = COALESCE(?, error_message), updated_at = ?
		WHERE id = ?`, externalID, errMsg, now, id)
}

// RecipientOfMessage finds the recipient of a broadcast whose message (on a messaging app)
// is messageID (index recipients_by_broadcast, then the few rows of that broadcast).
func (t *Tx) RecipientOfMessage(orgID, broadcastID, messageID string) (app.Recipient, error) {
	var id string
	err := t.row(`SELECT id FROM broadcast_recipients WHERE broadcast_id = ? AND org_id = ? AND external_message_id = ?`,
		broadcastID, orgID, messageID).Scan(&id)
	if err != nil {
		return app.Recipient{}, one(err, "recipient")
	}
	return t.GetRecipient(orgID, id)
}

// RecordClick counts a click.
func (t *Tx) RecordClick(id string, now app.Time) error {
	return t.execOne("recipient", `UPDATE broadcast_recipients SET click_count = click_count + 1, last_clicked_at = ?,
		updated_at = ? WHERE id = ?`, now, now, id)
}

// ClaimRecipients takes, for each SENDING broadcast, its oldest SENDING email and internal
// recipients (a short walk of the partial index recipients_claim per broadcast, in the order
// they were made), picks among them round-robin across organizations and broadcasts within
// the room's caps (app.ClaimRoom), and leases the picked ones.
func (t *Tx) ClaimRecipients(now, leaseUntil app.Time, room app.ClaimRoom) ([]app.Recipient, error) {
	ids, err := t.pickDue(room, `SELECT r.id, r.org_id, r.broadcast_id FROM broadcasts b INDEXED BY broadcasts_sending
		JOIN broadcast_recipients r ON r.id IN (
			SELECT x.id FROM broadcast_recipients x INDEXED BY recipients_claim
			WHERE x.broadcast_id = b.id AND x.status = 'SENDING' AND x.integration_id <> 'custom'
				AND (x.lease_until IS NULL OR x.lease_until <= ?1)
			ORDER BY x.created_at LIMIT ?2)
		WHERE b.status = 'SENDING'
		ORDER BY r.created_at`, now, room.Limit)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	list, err := t.leasePicked("broadcast_recipients", "id", ids, leaseUntil)
	if err != nil {
		return nil, err
	}
	return t.loadRecipients(false, `SELECT `+recipientColumns+recipientFrom+` WHERE r.id IN (SELECT value FROM json_each(?))
		ORDER BY r.created_at, r.rowid`, list)
}

// AnyRecipientDue tells whether a claim could find a recipient, without a write transaction.
func (t *Tx) AnyRecipientDue(now app.Time) (bool, error) {
	var due bool
	err := t.row(`SELECT EXISTS (SELECT 1 FROM broadcast_recipients r INDEXED BY recipients_sending
		JOIN broadcasts b ON b.id = r.broadcast_id
		WHERE r.status = 'SENDING' AND r.integration_id <> 'custom' AND b.status = 'SENDING'
			AND (r.lease_until IS NULL OR r.lease_until <= ?))`, now).Scan(&due)
	return due, mapErr(err)
}

// ContactOptedOut reads the two opt-out flags of a contact (no channels or segments).
func (t *Tx) ContactOptedOut(orgID, contactID string) (bool, error) {
	var out bool
	err := t.row(`SELECT blocked OR unsubscribed FROM contacts WHERE org_id = ? AND id = ?`, orgID, contactID).Scan(&out)
	if errors.Is(err, sql.ErrNoRows) {
		return true, nil
	}
	return out, mapErr(err)
}

// RecipientOwner answers the contact that owns a recipient's address now: its own contact
// while it exists (merges carry recipients along), else the oldest contact of the
// organization with a channel of that email, else of that phone; "" when none does.
func (t *Tx) RecipientOwner(r app.Recipient) (string, error) {
	var email, phone string
	if r.Email != nil {
		email = app.NormalizeEmail(*r.Email)
	}
	if r.Phone != nil {
		phone = app.NormalizePhone(*r.Phone)
	}
	var id string
	err := t.row(`SELECT id FROM (
			SELECT id, 0 AS k, '' AS at FROM contacts WHERE org_id = ?1 AND id = ?2
			UNION ALL SELECT * FROM (SELECT contact_id, 1, created_at FROM contact_channels
				WHERE org_id = ?1 AND email_norm = ?3 AND ?3 <> '' ORDER BY created_at, id LIMIT 1)
			UNION ALL SELECT * FROM (SELECT contact_id, 2, created_at FROM contact_channels
				WHERE org_id = ?1 AND phone_norm = ?4 AND ?4 <> '' ORDER BY created_at, id LIMIT 1)
		) ORDER BY k LIMIT 1`, r.OrgID, r.ContactID, email, phone).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, mapErr(err)
}

// SkipCandidates reads the SENDING recipients of a broadcast that the skip rules may take:
// a suppressed address, or a contact that is unsubscribed, blocked or gone. The service
// decides on each (app.skipReason), so the rules stay in one place; this only narrows.
func (t *Tx) SkipCandidates(broadcastID string) ([]app.Recipient, error) {
	return t.loadRecipients(false, `SELECT `+recipientColumns+recipientFrom+` WHERE r.broadcast_id = ? AND r.status = 'SENDING'
		AND (EXISTS (SELECT 1 FROM suppressions s WHERE s.org_id = r.org_id AND s.email = lower(r.email))
			OR NOT EXISTS (SELECT 1 FROM contacts c WHERE c.id = r.contact_id AND c.org_id = r.org_id AND NOT c.blocked AND NOT c.unsubscribed))
		ORDER BY r.created_at, r.rowid`, broadcastID)
}

// RecipientProgress runs after every outcome. While any recipient is SENDING it answers
// pending 1 from the index alone; the counts over all recipients are made once, at the end.
func (t *Tx) RecipientProgress(broadcastID string) (pending, failed, total int, err error) {
	err = t.row(`SELECT EXISTS (SELECT 1 FROM broadcast_recipients WHERE broadcast_id = ? AND status = 'SENDING')`,
		broadcastID).Scan(&pending)
	if err != nil || pending > 0 {
		return pending, 0, 0, mapErr(err)
	}
	err = t.row(`SELECT COUNT(is_failed_at), COUNT(*) FROM broadcast_recipients WHERE broadcast_id = ?`, broadcastID).
		Scan(&failed, &total)
	return pending, failed, total, mapErr(err)
}
