package sqlite

import (
	"wsapi/app"
)

// MoveContactChildren re-parents everything of one contact to another and counts it.
func (t *Tx) MoveContactChildren(orgID, from, to string) (app.MergeCounts, error) {
	var n app.MergeCounts
	moves := []struct {
		count *int
		query string
	}{
		{&n.Channels, `UPDATE contact_channels SET contact_id = ?3 WHERE org_id = ?1 AND contact_id = ?2`},
		{&n.Notes, `UPDATE contact_notes SET contact_id = ?3 WHERE org_id = ?1 AND contact_id = ?2`},
		{&n.Memories, `UPDATE contact_memories SET contact_id = ?3 WHERE org_id = ?1 AND contact_id = ?2`},
		{&n.Segments, `INSERT OR IGNORE INTO segment_members (segment_id, contact_id, added_at)
			SELECT segment_id, ?3, added_at FROM segment_members WHERE contact_id = ?2
			AND segment_id NOT IN (SELECT segment_id FROM segment_members WHERE contact_id = ?3)
			AND ?1 = ?1`},
		{&n.Chats, `UPDATE chats SET contact_id = ?3 WHERE org_id = ?1 AND contact_id = ?2`},
	}
	// Broadcast recipients follow their contact too (not counted: the spec's moves name the
	// contact's own children), so a bounce on the old address reaches the contact that owns it.
	if _, err := t.exec(`UPDATE broadcast_recipients SET contact_id = ?3 WHERE contact_id = ?2 AND org_id = ?1`, orgID, from, to); err != nil {
		return n, err
	}
	for _, m := range moves {
		res, err := t.exec(m.query, orgID, from, to)
		if err != nil {
			return n, err
		}
		c, _ := res.RowsAffected()
		*m.count = int(c)
	}
	if n.Segments > 0 {
		return n, t.bumpInbox(orgID) // segment filters of the inbox may now find the other contact's chats
	}
	return n, nil
}
