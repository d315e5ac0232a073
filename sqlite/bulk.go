package sqlite

import (
	"database/sql"
	"slices"
	"strings"

	"wsapi/app"
)

// batchRows is how many rows one multi-row INSERT carries; SQLite binds at most 32766
// variables per statement, and 13 to 19 columns a row stay well below that.
const batchRows = 500

// MatchChannels finds existing channels by user id, normalized email and normalized phone,
// one indexed lookup per key. The keys go sorted and without repeats, and json_each is the
// outer loop of a join, so the lookups walk each index once in order; "col IN (SELECT value
// FROM json_each(?))" first copied every key into a temporary index (a fifth of the dry
// run's time).
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
		keys := slices.Compact(slices.Sorted(slices.Values(l.keys)))
		// "<> ''" lets SQLite use the partial index of the column (an equality with a
		// json_each value does not imply the index's WHERE); without it every lookup scanned
		// the channels of all organizations.
		rows, err := t.query(`SELECT ch.`+l.column+`, ch.contact_id, ch.id FROM json_each(?) j CROSS JOIN contact_channels ch
			WHERE ch.org_id = ? AND ch.`+l.column+` <> '' AND ch.`+l.column+` = j.value
			ORDER BY ch.created_at, ch.id`, jsonText(keys), orgID)
		if err != nil {
			return m, err
		}
		type keyed struct {
			key string
			ref app.ChannelRef
		}
		found, err := collect(rows, func(r rowScanner) (k keyed, err error) {
			return k, r.Scan(&k.key, &k.ref.ContactID, &k.ref.ChannelID)
		})
		if err != nil {
			return m, err
		}
		for _, k := range found {
			if _, seen := l.into[k.key]; !seen { // the oldest channel wins
				l.into[k.key] = k.ref
			}
		}
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

// jsonRows is how many rows one jsonb_each statement carries. Within a transaction SQLite
// copies every existing page a statement changes into that statement's journal, so the
// number of statements, not of rows, drives the cost of bulk writes into large random-key
// indexes; the bound keeps the JSON parameter and one statement's journal moderate. Ids now
// sort by time, so a statement's rows go to the end of the id indexes and smaller statements
// cost no more: at 2,500 the peak RSS of bench/contacts' 50,000-contact seeding is 134 MB
// instead of 164 MB, for the same import time.
const jsonRows = 2500

// insertJSON inserts n rows with one INSERT ... SELECT FROM jsonb_each per jsonRows rows: the
// rows travel as one JSON array of arrays, in order, so the statement is short to parse
// whatever the number of rows (jsonb_each hands each row over as JSONB, so ->> does not
// parse its text again for every column; see jsonChunk). Values must marshal to what the
// driver would bind (strings, numbers, booleans, null; app.Time marshals to its stored form).
func (t *Tx) insertJSON(head string, columns, n int, row func(i int) []any) error {
	if n == 1 {
		// One row (POST create): bound directly, without encoding a JSON array for SQLite to
		// parse again.
		return t.insertRow(head, columns, row(0))
	}
	rows := make([][]any, 0, min(jsonRows, n))
	for start := 0; start < n; start += jsonRows {
		rows = rows[:0]
		for i := start; i < min(start+jsonRows, n); i++ {
			rows = append(rows, row(i))
		}
		query, args := jsonChunk(head, columns, rows)
		if _, err := t.exec(query, args...); err != nil {
			return err
		}
	}
	return nil
}

// insertRow inserts one row with a plain VALUES list; the statement text is the same for every
// call of one head, so it stays prepared.
func (t *Tx) insertRow(head string, columns int, values []any) error {
	_, err := t.exec(head+" VALUES (?"+strings.Repeat(", ?", columns-1)+")", values...)
	return err
}

// InsertContacts inserts contact rows.
func (t *Tx) InsertContacts(cs []app.Contact) error {
	return t.insertJSON(`INSERT INTO contacts (id, org_id, name, blocked, unsubscribed, is_admin, blocked_at,
		unsubscribed_at, unsubscribe_reason, unsubscribe_feedback, created_at, updated_at)`, 12, len(cs), func(i int) []any {
		c := cs[i]
		return []any{c.ID, c.OrgID, c.Name, c.Blocked, c.Unsubscribed, c.IsAdmin, c.BlockedAt, c.UnsubscribedAt,
			c.UnsubscribeReason, c.UnsubscribeFeedback, c.CreatedAt, c.UpdatedAt}
	})
}

// InsertChannels inserts channels, in order, with their normalized match keys.
func (t *Tx) InsertChannels(orgID string, chs []app.Channel) error {
	return t.insertJSON(`INSERT INTO contact_channels (id, org_id, contact_id, type, user_id, avatar, name, username,
		email, phone, country, agent, ip, language, platform_data, email_norm, phone_norm, created_at, updated_at)`,
		19, len(chs), func(i int) []any {
			ch := chs[i]
			pd := "{}" // nil or empty: the same text, without encoding a map for every row
			if len(ch.PlatformData) > 0 {
				pd = jsonText(ch.PlatformData)
			}
			return []any{ch.ID, orgID, ch.ContactID, ch.Type, ch.UserID, ch.Avatar, ch.Name, ch.Username, ch.Email,
				ch.Phone, ch.Country, ch.Agent, ch.IP, ch.Language, pd, app.NormalizeEmail(ch.Email),
				app.NormalizePhone(ch.Phone), ch.CreatedAt, ch.UpdatedAt}
		})
}

// FillChannels sets the empty identity fields (user_id, name, email, phone) of channels from
// bulk items, never overwriting what a channel already has, and touches updated_at of every
// channel named. Fills of one channel apply in order, as one UPDATE per fill would: an empty
// field takes the first non-empty value given for it. A channel that is not the
// organization's is not_found.
func (t *Tx) FillChannels(orgID string, fills []app.ChannelFill, now app.Time) error {
	type fill struct{ id, userID, name, email, phone string }
	index := map[string]int{}
	var folded []fill
	first := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	for _, f := range fills {
		i, ok := index[f.ChannelID]
		if !ok {
			i = len(folded)
			index[f.ChannelID] = i
			folded = append(folded, fill{id: f.ChannelID})
		}
		fd := &folded[i]
		first(&fd.userID, f.Item.UserID)
		first(&fd.name, f.Item.Name)
		first(&fd.email, strings.TrimSpace(f.Item.Email))
		first(&fd.phone, strings.TrimSpace(f.Item.Phone))
	}
	// In id order, each statement's channels lie together in the table and its id index
	// instead of all over both (the items come in the client's order).
	slices.SortFunc(folded, func(a, b fill) int { return strings.Compare(a.id, b.id) })
	for start := 0; start < len(folded); start += jsonRows {
		chunk := folded[start:min(start+jsonRows, len(folded))]
		ids := make([]string, len(chunk))
		var values [][]string
		for i, f := range chunk {
			ids[i] = f.id
			if f.userID != "" || f.name != "" || f.email != "" || f.phone != "" {
				values = append(values, []string{f.id, f.userID, f.name, f.email, app.NormalizeEmail(f.email),
					f.phone, app.NormalizePhone(f.phone)})
			}
		}
		// Only channels with an empty field to fill are rewritten with their indexed columns.
		if len(values) > 0 {
			if _, err := t.exec(`WITH f(id, user_id, name, email, email_norm, phone, phone_norm) AS (
					SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6
					FROM jsonb_each(?1))
				UPDATE contact_channels AS ch SET
					user_id = CASE WHEN ch.user_id = '' THEN f.user_id ELSE ch.user_id END,
					name = CASE WHEN ch.name = '' THEN f.name ELSE ch.name END,
					email = CASE WHEN ch.email = '' THEN f.email ELSE ch.email END,
					email_norm = CASE WHEN ch.email = '' THEN f.email_norm ELSE ch.email_norm END,
					phone = CASE WHEN ch.phone = '' THEN f.phone ELSE ch.phone END,
					phone_norm = CASE WHEN ch.phone = '' THEN f.phone_norm ELSE ch.phone_norm END
				FROM f WHERE ch.id = f.id AND ch.org_id = ?2
					AND ((ch.user_id = '' AND f.user_id <> '') OR (ch.name = '' AND f.name <> '')
						OR (ch.email = '' AND f.email <> '') OR (ch.phone = '' AND f.phone <> ''))`,
				jsonText(values), orgID); err != nil {
				return err
			}
		}
		// OR FAIL spares the statement journal of a many-row UPDATE (nothing here can fail
		// half-way that the caller would not roll back with the whole transaction anyway).
		res, err := t.exec(`UPDATE OR FAIL contact_channels SET updated_at = ?1
			WHERE id IN (SELECT value FROM json_each(?2)) AND org_id = ?3`, now, jsonText(ids), orgID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return mapErr(err)
		} else if int(n) != len(chunk) {
			return app.NotFound("channel")
		}
	}
	return nil
}

// TouchContacts sets updated_at of the named contacts. OR FAIL, as in FillChannels: without
// it SQLite keeps the original of every page the statement changes in a statement journal
// (in memory), and the 25,000 contacts bench/contacts' import touches are spread over every
// page of the table: 26 MB of journal, the process's peak RSS.
func (t *Tx) TouchContacts(orgID string, ids []string, now app.Time) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := t.exec(`UPDATE OR FAIL contacts SET updated_at = ? WHERE org_id = ? AND id IN (SELECT value FROM json_each(?))`,
		now, orgID, jsonText(ids))
	return err
}
