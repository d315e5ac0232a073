package sqlite

import "wsapi/app"

const memberColumns = `id, org_id, name, email, avatar, role, created_at, updated_at`

func scanMember(r rowScanner) (app.Member, error) {
	var m app.Member
	err := r.Scan(&m.ID, &m.OrgID, &m.Name, &m.Email, &m.Avatar, &m.Role, &m.CreatedAt, &m.UpdatedAt)
	return m, err
}

// CreateMember inserts a member; a second member with the same email is a conflict.
func (t *Tx) CreateMember(m app.Member) error {
	_, err := t.exec(`INSERT INTO members (`+memberColumns+`) VALUES (?,?,?,?,?,?,?,?)`,
		m.ID, m.OrgID, m.Name, m.Email, m.Avatar, m.Role, m.CreatedAt, m.UpdatedAt)
	return err
}

// GetMember reads a member of an organization.
func (t *Tx) GetMember(orgID, id string) (app.Member, error) {
	m, err := scanMember(t.row(`SELECT `+memberColumns+` FROM members WHERE org_id = ? AND id = ?`, orgID, id))
	return m, one(err, "member")
}

// UpdateMember writes every mutable column.
func (t *Tx) UpdateMember(m app.Member) error {
	return t.execOne("member", `UPDATE members SET name=?, email=?, avatar=?, role=?, updated_at=? WHERE org_id=? AND id=?`,
		m.Name, m.Email, m.Avatar, m.Role, m.UpdatedAt, m.OrgID, m.ID)
}

// DeleteMember removes a member; its keys go with it (ON DELETE CASCADE).
func (t *Tx) DeleteMember(orgID, id string) error {
	return t.execOne("member", `DELETE FROM members WHERE org_id = ? AND id = ?`, orgID, id)
}

// ListMembers lists one page of members, oldest first.
func (t *Tx) ListMembers(orgID string, p app.Page) ([]app.Member, int, error) {
	return listPage(t, scanMember, p, `SELECT COUNT(*) FROM members WHERE org_id = ?`,
		`SELECT `+memberColumns+` FROM members WHERE org_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?`,
		orgID)
}

// CountMembersWithRole counts the members holding a role.
func (t *Tx) CountMembersWithRole(orgID, role string) (int, error) {
	return t.count(`SELECT COUNT(*) FROM members WHERE org_id = ? AND role = ?`, orgID, role)
}

// FirstAdmin is the oldest ADMIN of an organization, its owner.
func (t *Tx) FirstAdmin(orgID string) (app.Member, error) {
	m, err := scanMember(t.row(`SELECT `+memberColumns+` FROM members WHERE org_id = ? AND role = ? ORDER BY created_at, id LIMIT 1`,
		orgID, app.RoleAdmin))
	return m, one(err, "member")
}
