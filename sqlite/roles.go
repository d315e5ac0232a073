package sqlite

import (
	"encoding/json"
	"fmt"

	"wsapi/app"
)

const roleColumns = `id, org_id, name, permissions, created_at, updated_at`

func scanRole(r rowScanner) (app.Role, error) {
	var role app.Role
	var perms string
	if err := r.Scan(&role.ID, &role.OrgID, &role.Name, &perms, &role.CreatedAt, &role.UpdatedAt); err != nil {
		return role, err
	}
	if err := json.Unmarshal([]byte(perms), &role.Permissions); err != nil {
		return role, fmt.Errorf("sqlite: role permissions: %w", err)
	}
	return role, nil
}

// CreateRole inserts a custom role; names are unique per organization.
func (t *Tx) CreateRole(r app.Role) error {
	_, err := t.exec(`INSERT INTO roles (`+roleColumns+`) VALUES (?,?,?,?,?,?)`,
		r.ID, r.OrgID, r.Name, jsonText(r.Permissions), r.CreatedAt, r.UpdatedAt)
	return err
}

// GetRole reads one custom role.
func (t *Tx) GetRole(orgID, id string) (app.Role, error) {
	r, err := scanRole(t.row(`SELECT `+roleColumns+` FROM roles WHERE org_id = ? AND id = ?`, orgID, id))
	return r, one(err, "role")
}

// UpdateRole writes name and permissions.
func (t *Tx) UpdateRole(r app.Role) error {
	return t.execOne("role", `UPDATE roles SET name=?, permissions=?, updated_at=? WHERE org_id=? AND id=?`,
		r.Name, jsonText(r.Permissions), r.UpdatedAt, r.OrgID, r.ID)
}

// DeleteRole removes a role.
func (t *Tx) DeleteRole(orgID, id string) error {
	return t.execOne("role", `DELETE FROM roles WHERE org_id = ? AND id = ?`, orgID, id)
}

// ListRoles lists one page of an organization's custom roles by name.
func (t *Tx) ListRoles(orgID string, p app.Page) ([]app.Role, int, error) {
	return listPage(t, scanRole, p, `SELECT COUNT(*) FROM roles WHERE org_id = ?`,
		`SELECT `+roleColumns+` FROM roles WHERE org_id = ? ORDER BY name, id LIMIT ? OFFSET ?`,
		orgID)
}
