package sqlite

import (
	"database/sql"
	"strings"

	"wsapi/app"
)

// batchRows is how many rows one multi-row INSERT carries; SQLite binds at most 32766
// variables per statement, and 13 to 19 columns a row stay well below that.
const batchRows = 500

// MatchChannels finds existing channels by user id, normalized email and normalized phone,
// one indexed lookup per key through json_each.
func (t *Tx) MatchChannels(orgID string, userIDs, emails, phones []string) (app.ChannelMatches, error) {
	m := app.ChannelMatches{ByUserID: map[string]app.ChannelRef{}, ByEmail: map[string]app.ChannelRef{}, ByPhone: map[string]app.ChannelRef{}}
	lookups := []struct {
		column string
		keys   []string
		into   map[string]app.ChannelRef
	}{{"user_id", userIDs, m.ByUserID}, {"email_norm", emails, m.ByEmail}, {"phone_norm", phones, m.ByPhone}}
	for _, l := range lookups {
		if len(l.keys) == 0 {
			continue
		}
		rows, err := t.query(`SELECT ch.`+l.column+`, ch.contact_id, ch.id FROM contact_channels ch
			WHERE ch.org_id = ? AND ch.`+l.column+` IN (SELECT value FROM json_each(?))
			ORDER BY ch.created_at, ch.id`, orgID, jsonText(l.keys))
		if err != nil {
			return m, err
		}
		for rows.Next() {
			var key string
			var ref app.ChannelRef
			if err := rows.Scan(&key, &ref.ContactID, &ref.ChannelID); err != nil {
				rows.Close()
				return m, mapErr(err)
			}
			if _, seen := l.into[key]; !seen { // the oldest channel wins
				l.into[key] = ref
			}
		}
		rows.Close()
	}
	return m, nil
}

// insertBatches runs one multi-row INSERT per batchRows rows. The statement of a full batch
// is prepared once and reused: parsing thousands of placeholders per batch cost more than
// the inserts themselves.
func (t *Tx) insertBatches(head string, columns, n int, row func(i int) []any) error {
	placeholder := "(" + strings.TrimSuffix(strings.Repeat("?,", columns), ",") + ")"
	query := func(rows int) string {
		return head + " VALUES " + strings.TrimSuffix(strings.Repeat(placeholder+",", rows), ",")
	}
	var full *sql.Stmt
	defer func() {
		if full != nil {
			full.Close()
		}
	}()
	for start := 0; start < n; start += batchRows {
		end := min(start+batchRows, n)
		args := make([]any, 0, (end-start)*columns)
		for i := start; i < end; i++ {
			args = append(args, row(i)...)
		}
		if end-start < batchRows {
			if _, err := t.exec(query(end-start), args...); err != nil {
				return err
			}
			continue
		}
		if full == nil {
			var err error
			if full, err = t.tx.PrepareContext(t.ctx, query(batchRows)); err != nil {
				return mapErr(err)
			}
		}
		if _, err := full.ExecContext(t.ctx, args...); err != nil {
			return mapErr(err)
		}
	}
	return nil
}

// InsertContacts inserts contact rows in batches.
func (t *Tx) InsertContacts(cs []app.Contact) error {
	return t.insertBatches(`INSERT INTO contacts (id, org_id, name, blocked, unsubscribed, is_admin, blocked_at,
		unsubscribed_at, unsubscribe_reason, unsubscribe_feedback, created_at, updated_at)`, 12, len(cs), func(i int) []any {
		c := cs[i]
		return []any{c.ID, c.OrgID, c.Name, c.Blocked, c.Unsubscribed, c.IsAdmin, c.BlockedAt, c.UnsubscribedAt,
			c.UnsubscribeReason, c.UnsubscribeFeedback, c.CreatedAt, c.UpdatedAt}
	})
}

// InsertChannels inserts channels in batches, with their normalized match keys.
func (t *Tx) InsertChannels(orgID string, chs []app.Channel) error {
	return t.insertBatches(`INSERT INTO contact_channels (id, org_id, contact_id, type, user_id, avatar, name, username,
		email, phone, country, agent, ip, language, platform_data, email_norm, phone_norm, created_at, updated_at)`,
		19, len(chs), func(i int) []any {
			ch := chs[i]
			pd := ch.PlatformData
			if pd == nil {
				pd = map[string]any{}
			}
			return []any{ch.ID, orgID, ch.ContactID, ch.Type, ch.UserID, ch.Avatar, ch.Name, ch.Username, ch.Email,
				ch.Phone, ch.Country, ch.Agent, ch.IP, ch.Language, jsonText(pd), app.NormalizeEmail(ch.Email),
				app.NormalizePhone(ch.Phone), ch.CreatedAt, ch.UpdatedAt}
		})
}

// FillChannel sets the empty identity fields of a channel from a bulk item; it never
// overwrites what the channel already has.
func (t *Tx) FillChannel(orgID, channelID string, it app.BulkChannel, now app.Time) error {
	email := strings.TrimSpace(it.Email)
	phone := strings.TrimSpace(it.Phone)
	return t.execOne("channel", `UPDATE contact_channels SET
		user_id = CASE WHEN user_id = '' THEN ?1 ELSE user_id END,
		name = CASE WHEN name = '' THEN ?2 ELSE name END,
		email = CASE WHEN email = '' THEN ?3 ELSE email END,
		email_norm = CASE WHEN email = '' THEN ?4 ELSE email_norm END,
		phone = CASE WHEN phone = '' THEN ?5 ELSE phone END,
		phone_norm = CASE WHEN phone = '' THEN ?6 ELSE phone_norm END,
		updated_at = ?7 WHERE id = ?8 AND org_id = ?9`,
		it.UserID, it.Name, email, app.NormalizeEmail(email), phone, app.NormalizePhone(phone), now, channelID, orgID)
}
