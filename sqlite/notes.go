package sqlite

import "wsapi/app"

// CreateNote inserts a note.
func (t *Tx) CreateNote(n app.Note) error {
	_, err := t.exec(`INSERT INTO contact_notes (id, org_id, contact_id, author_id, content, created_at, updated_at)
		VALUES (?,?,?,?,?,?,?)`, n.ID, n.OrgID, n.ContactID, n.User.ID, n.Content, n.CreatedAt, n.UpdatedAt)
	return err
}

// ListNotes lists one page of a contact's notes, newest first, with their authors.
func (t *Tx) ListNotes(orgID, contactID string, p app.Page) ([]app.Note, int, error) {
	total, err := t.count(`SELECT COUNT(*) FROM contact_notes WHERE org_id = ? AND contact_id = ?`, orgID, contactID)
	if err != nil {
		return nil, 0, err
	}
	rows, err := t.query(`SELECT n.id, n.org_id, n.contact_id, n.content, n.created_at, n.updated_at, n.author_id,
		COALESCE(m.name, a.name, ''), COALESCE(m.avatar, a.avatar_url, '')
		FROM contact_notes n LEFT JOIN members m ON m.id = n.author_id
		LEFT JOIN assistants a ON a.id = n.author_id -- a handoff's note (app/toolcommit.go)
		WHERE n.org_id = ? AND n.contact_id = ? ORDER BY n.created_at DESC, n.id DESC LIMIT ? OFFSET ?`,
		orgID, contactID, p.Take, p.Offset())
	if err != nil {
		return nil, 0, err
	}
	out, err := collect(rows, func(r rowScanner) (n app.Note, err error) {
		return n, r.Scan(&n.ID, &n.OrgID, &n.ContactID, &n.Content, &n.CreatedAt, &n.UpdatedAt, &n.User.ID,
			&n.User.Name, &n.User.Avatar)
	})
	return out, total, err
}

// DeleteNote removes a note of a contact.
func (t *Tx) DeleteNote(orgID, contactID, id string) error {
	return t.execOne("note", `DELETE FROM contact_notes WHERE org_id = ? AND contact_id = ? AND id = ?`, orgID, contactID, id)
}

// CreateMemory inserts a memory.
func (t *Tx) CreateMemory(m app.Memory) error {
	_, err := t.exec(`INSERT INTO contact_memories (id, org_id, contact_id, user_id, type, importance, content,
		created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?)`, m.ID, m.OrgID, m.ContactID, m.UserID, m.Type,
		m.Importance, m.Content, m.CreatedAt, m.UpdatedAt)
	return err
}

// ListMemories walks the (importance, created_at, id) descending order from a cursor or an
// offset; the index contact_memories_ranked serves both.
func (t *Tx) ListMemories(orgID, contactID string, after *app.MemoryCursor, offset, limit int) ([]app.Memory, int, error) {
	total, err := t.count(`SELECT COUNT(*) FROM contact_memories WHERE org_id = ? AND contact_id = ?`, orgID, contactID)
	if err != nil {
		return nil, 0, err
	}
	cur := app.MemoryCursor{Importance: 2} // above every importance: no cursor
	if after != nil {
		cur = *after
	}
	rows, err := t.query(`SELECT id, org_id, contact_id, user_id, type, importance, content, created_at, updated_at
		FROM contact_memories WHERE org_id = ?1 AND contact_id = ?2
		AND (importance < ?3 OR (importance = ?3 AND (created_at < ?4 OR (created_at = ?4 AND id < ?5))))
		ORDER BY importance DESC, created_at DESC, id DESC LIMIT ?6 OFFSET ?7`,
		orgID, contactID, cur.Importance, cur.CreatedAt, cur.ID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	out, err := collect(rows, func(r rowScanner) (m app.Memory, err error) {
		return m, r.Scan(&m.ID, &m.OrgID, &m.ContactID, &m.UserID, &m.Type, &m.Importance, &m.Content,
			&m.CreatedAt, &m.UpdatedAt)
	})
	return out, total, err
}

// DeleteMemory removes a memory of a contact.
func (t *Tx) DeleteMemory(orgID, contactID, id string) error {
	return t.execOne("memory", `DELETE FROM contact_memories WHERE org_id = ? AND contact_id = ? AND id = ?`, orgID, contactID, id)
}
