package sqlite

import (
	"wsapi/app"
)

const segmentColumns = `s.id, s.org_id, s.name, s.color, s.created_at, s.updated_at,
	(SELECT COUNT(*) FROM segment_members m WHERE m.segment_id = s.id)`

func scanSegment(r rowScanner, extra ...any) (app.Segment, error) {
	var s app.Segment
	dest := append(extra, &s.ID, &s.OrgID, &s.Name, &s.Color, &s.CreatedAt, &s.UpdatedAt, &s.ContactsCount)
	return s, r.Scan(dest...)
}

// CreateSegment inserts a segment.
func (t *Tx) CreateSegment(s app.Segment) error {
	_, err := t.exec(`INSERT INTO segments (id, org_id, name, color, created_at, updated_at) VALUES (?,?,?,?,?,?)`,
		s.ID, s.OrgID, s.Name, s.Color, s.CreatedAt, s.UpdatedAt)
	return err
}

// GetSegment reads a segment with its live member count.
func (t *Tx) GetSegment(orgID, id string) (app.Segment, error) {
	s, err := scanSegment(t.row(`SELECT `+segmentColumns+` FROM segments s WHERE s.org_id = ? AND s.id = ?`, orgID, id))
	return s, one(err, "segment")
}

// UpdateSegment writes name and color.
func (t *Tx) UpdateSegment(s app.Segment) error {
	return t.execOne("segment", `UPDATE segments SET name=?, color=?, updated_at=? WHERE org_id=? AND id=?`,
		s.Name, s.Color, s.UpdatedAt, s.OrgID, s.ID)
}

// DeleteSegment removes a segment; memberships cascade.
func (t *Tx) DeleteSegment(orgID, id string) error {
	return t.execOne("segment", `DELETE FROM segments WHERE org_id = ? AND id = ?`, orgID, id)
}

// ListSegments lists one page of segments by name.
func (t *Tx) ListSegments(orgID string, p app.Page) ([]app.Segment, int, error) {
	scan := func(r rowScanner) (app.Segment, error) { return scanSegment(r) }
	return listPage(t, scan, p, `SELECT COUNT(*) FROM segments WHERE org_id = ?`,
		`SELECT `+segmentColumns+` FROM segments s WHERE s.org_id = ? ORDER BY s.name, s.id LIMIT ? OFFSET ?`,
		orgID)
}

// AddToSegment adds contacts to a segment, ignoring those already in it.
func (t *Tx) AddToSegment(orgID, segmentID string, contactIDs []string) error {
	if len(contactIDs) == 0 {
		return nil
	}
	res, err := t.exec(`INSERT OR IGNORE INTO segment_members (segment_id, contact_id, added_at)
		SELECT s.id, j.value, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM segments s, json_each(?) j
		WHERE s.id = ? AND s.org_id = ?`, jsonText(contactIDs), segmentID, orgID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return t.bumpInbox(orgID)
	}
	return nil
}

// RemoveFromSegment takes one contact out of a segment.
func (t *Tx) RemoveFromSegment(orgID, segmentID, contactID string) error {
	if err := t.execOne("contact", `DELETE FROM segment_members WHERE segment_id = ? AND contact_id = ?
		AND contact_id IN (SELECT id FROM contacts WHERE org_id = ?)`, segmentID, contactID, orgID); err != nil {
		return err
	}
	return t.bumpInbox(orgID)
}

// MissingSegments answers the ids that are not segments of the organization.
func (t *Tx) MissingSegments(orgID string, ids []string) ([]string, error) {
	return t.missing(`segments`, orgID, ids)
}

// MissingContacts answers the ids that are not contacts of the organization.
func (t *Tx) MissingContacts(orgID string, ids []string) ([]string, error) {
	return t.missing(`contacts`, orgID, ids)
}

// missing answers which ids have no row of table in the organization.
func (t *Tx) missing(table, orgID string, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return queryAll(t, scanString, `SELECT DISTINCT j.value FROM json_each(?) j
		WHERE NOT EXISTS (SELECT 1 FROM `+table+` x WHERE x.id = j.value AND x.org_id = ?)`, jsonText(ids), orgID)
}
