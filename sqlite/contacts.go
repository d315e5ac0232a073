package sqlite

import (
	"encoding/json"
	"fmt"
	"strings"

	"wsapi/app"
)

const contactColumns = `c.id, c.org_id, c.name, c.blocked, c.unsubscribed, c.is_admin, c.blocked_at, c.unsubscribed_at,
	c.unsubscribe_reason, c.unsubscribe_feedback, c.created_at, c.updated_at`

func scanContact(r rowScanner) (app.Contact, error) {
	var c app.Contact
	err := r.Scan(contactFields(&c)...)
	c.Channels, c.Segments = []app.Channel{}, []app.Segment{}
	return c, err
}

// contactFields are where the columns of contactColumns scan to.
func contactFields(c *app.Contact) []any {
	return []any{&c.ID, &c.OrgID, &c.Name, &c.Blocked, &c.Unsubscribed, &c.IsAdmin, &c.BlockedAt, &c.UnsubscribedAt,
		&c.UnsubscribeReason, &c.UnsubscribeFeedback, &c.CreatedAt, &c.UpdatedAt}
}

// CreateContact inserts a contact row (channels and memberships are added separately).
func (t *Tx) CreateContact(c app.Contact) error { return t.InsertContacts([]app.Contact{c}) }

// CreateChannel inserts one channel.
func (t *Tx) CreateChannel(orgID string, ch app.Channel) error {
	return t.InsertChannels(orgID, []app.Channel{ch})
}

// GetContact reads a contact with its channels and segments: one statement for the contact
// and its channels (one row per channel, or one row of empty channel columns), which also
// tells whether the contact is in any segment; a second only if it is. GET contact ran three
// statements, and each statement's own cost was most of its work.
func (t *Tx) GetContact(orgID, id string) (app.Contact, error) {
	type row struct {
		c          app.Contact
		inSegments bool
		ch         app.Channel
		pd         string
	}
	rows, err := queryAll(t, func(r rowScanner) (v row, err error) {
		dest := append(contactFields(&v.c), &v.inSegments)
		return v, r.Scan(append(dest, channelFields(&v.ch, &v.pd)...)...)
	}, `SELECT `+contactColumns+`, EXISTS (SELECT 1 FROM segment_members sm WHERE sm.contact_id = c.id), `+
		joinedChannelColumns+` FROM contacts c LEFT JOIN contact_channels ch ON ch.contact_id = c.id
		WHERE c.org_id = ? AND c.id = ? ORDER BY ch.created_at, ch.rowid`, orgID, id)
	if err != nil {
		return app.Contact{}, err
	}
	if len(rows) == 0 {
		return app.Contact{}, app.NotFound("contact")
	}
	c := rows[0].c
	c.Channels, c.Segments = []app.Channel{}, []app.Segment{}
	for _, r := range rows {
		if r.ch.ID == "" { // the LEFT JOIN's row of a contact without channels
			continue
		}
		if err := finishChannel(&r.ch, r.pd); err != nil {
			return c, err
		}
		c.Channels = append(c.Channels, r.ch)
	}
	if !rows[0].inSegments {
		return c, nil
	}
	list := []app.Contact{c}
	if err := t.attachSegments(list); err != nil {
		return c, err
	}
	return list[0], nil
}

// likePattern matches s anywhere, with LIKE's wildcards escaped.
func likePattern(s string) string {
	if s == "" {
		return ""
	}
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(s) + "%"
}

// ListContacts lists one page of contacts matching the filter, oldest first. Only the
// filters given are in the SQL: SQLite does not fold a bound parameter, so "?2 = ” OR ..."
// would be evaluated on every row the COUNT(*) visits (the page count of GET /contacts went
// from a scan with expressions to an index-only count). Each combination is its own cached
// statement; there are 16.
func (t *Tx) ListContacts(orgID string, f app.ContactFilter, p app.Page) ([]app.Contact, int, error) {
	where := `c.org_id = ?1`
	if f.Search != "" {
		where += ` AND (c.name LIKE ?2 ESCAPE '\' OR EXISTS (SELECT 1 FROM contact_channels ch WHERE ch.contact_id = c.id
			AND (ch.email LIKE ?2 ESCAPE '\' OR ch.phone LIKE ?2 ESCAPE '\' OR ch.username LIKE ?2 ESCAPE '\'
				OR ch.name LIKE ?2 ESCAPE '\' OR (?3 <> '' AND ch.phone_norm LIKE ?3 ESCAPE '\'))))`
	}
	if f.SegmentID != "" {
		where += ` AND EXISTS (SELECT 1 FROM segment_members sm WHERE sm.segment_id = ?4 AND sm.contact_id = c.id)`
	}
	if f.Blocked != nil {
		where += ` AND c.blocked = ?5`
	}
	if f.Unsubscribed != nil {
		where += ` AND c.unsubscribed = ?6`
	}
	// Numbered parameters keep their places whichever filters are in: unused ones are bound
	// and ignored.
	args := []any{orgID, likePattern(f.Search), likePattern(app.PhoneDigits(f.Search)), f.SegmentID, f.Blocked, f.Unsubscribed}
	var total int
	var err error
	if where == `c.org_id = ?1` {
		// Kept by triggers (migration 00019): one row instead of an index walk.
		total, err = t.count(`SELECT COALESCE((SELECT n FROM contact_counts WHERE org_id = ?), 0)`, orgID)
	} else {
		total, err = t.count(`SELECT COUNT(*) FROM contacts c WHERE `+where, args...)
	}
	if err != nil {
		return nil, 0, err
	}
	out, err := t.loadContacts(`SELECT `+contactColumns+` FROM contacts c WHERE `+where+`
		ORDER BY c.created_at, c.id LIMIT ?7 OFFSET ?8`, append(args, p.Take, p.Offset())...)
	return out, total, err
}

// loadContacts runs a contact query and attaches each contact's channels and segments.
func (t *Tx) loadContacts(query string, args ...any) ([]app.Contact, error) {
	out, err := queryAll(t, scanContact, query, args...)
	if err != nil {
		return nil, err
	}
	return out, t.attachContactChildren(out)
}

// attachContactChildren loads the channels and segments of a page of contacts in two queries.
func (t *Tx) attachContactChildren(cs []app.Contact) error {
	if len(cs) == 0 {
		return nil
	}
	ids, index := contactIndex(cs)
	chs, err := t.channelsOf(ids)
	if err != nil {
		return err
	}
	for _, ch := range chs {
		i := index[ch.ContactID]
		cs[i].Channels = append(cs[i].Channels, ch)
	}
	return t.attachSegments(cs)
}

// contactIndex is the ids of cs and the index of each in cs.
func contactIndex(cs []app.Contact) (ids []string, index map[string]int) {
	index = make(map[string]int, len(cs))
	ids = make([]string, len(cs))
	for i, c := range cs {
		index[c.ID], ids[i] = i, c.ID
	}
	return ids, index
}

// attachSegments loads the segments of contacts.
func (t *Tx) attachSegments(cs []app.Contact) error {
	ids, index := contactIndex(cs)
	in, arg := idsIn(ids)
	rows, err := t.query(`SELECT sm.contact_id, `+segmentColumns+` FROM segment_members sm
		JOIN segments s ON s.id = sm.segment_id WHERE sm.contact_id `+in+`
		ORDER BY s.name, s.id`, arg)
	if err != nil {
		return err
	}
	segs, err := collect(rows, func(r rowScanner) (k keyed[app.Segment], err error) {
		k.v, err = scanSegment(r, &k.key)
		return k, err
	})
	for _, s := range segs {
		cs[index[s.key]].Segments = append(cs[index[s.key]].Segments, s.v)
	}
	return err
}

// idsIn is the SQL test "column is one of ids" and its argument. One id is a plain equality:
// json_each and the IN table it fills cost more than the lookup itself (the channels query
// of GET contact was a fifth of its CPU).
func idsIn(ids []string) (string, any) {
	if len(ids) == 1 {
		return "= ?", ids[0]
	}
	return "IN (SELECT value FROM json_each(?))", jsonText(ids)
}

const channelColumns = `id, contact_id, type, user_id, avatar, name, username, email, phone, country, agent, ip,
	language, platform_data, created_at, updated_at`

func (t *Tx) channelsOf(contactIDs []string) ([]app.Channel, error) {
	// rowid breaks ties in insertion order, so the channels of one request keep their order.
	in, arg := idsIn(contactIDs)
	return queryAll(t, scanChannel, `SELECT `+channelColumns+` FROM contact_channels
		WHERE contact_id `+in+` ORDER BY created_at, rowid`, arg)
}

// joinedChannelColumns are channelColumns of a LEFT JOIN's ch, empty strings where it found
// no channel (a NULL does not scan into a string).
const joinedChannelColumns = `COALESCE(ch.id, ''), COALESCE(ch.contact_id, ''), COALESCE(ch.type, ''),
	COALESCE(ch.user_id, ''), COALESCE(ch.avatar, ''), COALESCE(ch.name, ''), COALESCE(ch.username, ''),
	COALESCE(ch.email, ''), COALESCE(ch.phone, ''), COALESCE(ch.country, ''), COALESCE(ch.agent, ''),
	COALESCE(ch.ip, ''), COALESCE(ch.language, ''), COALESCE(ch.platform_data, '{}'), ch.created_at, ch.updated_at`

// scanChannel reads a row of channelColumns.
func scanChannel(r rowScanner) (app.Channel, error) {
	var ch app.Channel
	var pd string
	if err := r.Scan(channelFields(&ch, &pd)...); err != nil {
		return ch, err
	}
	return ch, finishChannel(&ch, pd)
}

// channelFields are where the columns of channelColumns scan to, platform_data's text to pd.
func channelFields(ch *app.Channel, pd *string) []any {
	return []any{&ch.ID, &ch.ContactID, &ch.Type, &ch.UserID, &ch.Avatar, &ch.Name, &ch.Username, &ch.Email,
		&ch.Phone, &ch.Country, &ch.Agent, &ch.IP, &ch.Language, pd, &ch.CreatedAt, &ch.UpdatedAt}
}

// finishChannel decodes the platform data a channel was scanned with and derives its link.
func finishChannel(ch *app.Channel, pd string) error {
	ch.Link = ch.ChannelProfile.Link()
	if pd == "{}" { // most channels: no decoder needed for an empty object
		ch.PlatformData = map[string]any{}
		return nil
	}
	if err := json.Unmarshal([]byte(pd), &ch.PlatformData); err != nil {
		return fmt.Errorf("sqlite: platform_data: %w", err)
	}
	return nil
}

// UpdateContact writes the contact's own columns.
func (t *Tx) UpdateContact(c app.Contact) error {
	return t.execOne("contact", `UPDATE contacts SET name=?, blocked=?, unsubscribed=?, is_admin=?, blocked_at=?,
		unsubscribed_at=?, unsubscribe_reason=?, unsubscribe_feedback=?, updated_at=? WHERE org_id=? AND id=?`,
		c.Name, c.Blocked, c.Unsubscribed, c.IsAdmin, c.BlockedAt, c.UnsubscribedAt, c.UnsubscribeReason,
		c.UnsubscribeFeedback, c.UpdatedAt, c.OrgID, c.ID)
}

// DeleteContact removes a contact; channels, notes, memories and memberships cascade.
func (t *Tx) DeleteContact(orgID, id string) error {
	// The broadcast recipients stay (they are the record of what was sent) but no longer
	// name the contact: a later bounce must not point at a contact that is gone.
	if _, err := t.exec(`UPDATE broadcast_recipients SET contact_id = NULL WHERE contact_id = ? AND org_id = ?`, id, orgID); err != nil {
		return err
	}
	return t.execOne("contact", `DELETE FROM contacts WHERE org_id = ? AND id = ?`, orgID, id)
}

// GetChannel reads one channel of the organization.
func (t *Tx) GetChannel(orgID, id string) (app.Channel, error) {
	ch, err := scanChannel(t.row(`SELECT `+channelColumns+` FROM contact_channels WHERE org_id = ? AND id = ?`, orgID, id))
	if err != nil {
		return app.Channel{}, one(err, "channel")
	}
	return ch, nil
}
