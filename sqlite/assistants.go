package sqlite

import (
	"encoding/json"
	"fmt"

	"wsapi/app"
)

const assistantColumns = `id, org_id, name, avatar_url, enabled, deleted, config, created_at, updated_at`

func scanAssistant(r rowScanner) (app.Assistant, error) {
	var a app.Assistant
	var config string
	if err := r.Scan(&a.ID, &a.OrgID, &a.Name, &a.AvatarURL, &a.Enabled, &a.Deleted, &config, &a.CreatedAt, &a.UpdatedAt); err != nil {
		return a, err
	}
	if err := json.Unmarshal([]byte(config), &a.Config); err != nil {
		return a, fmt.Errorf("sqlite: assistant config: %w", err)
	}
	return a, nil
}

// CreateAssistant inserts an assistant.
func (t *Tx) CreateAssistant(a app.Assistant) error {
	_, err := t.exec(`INSERT INTO assistants (`+assistantColumns+`) VALUES (?,?,?,?,?,?,?,?,?)`,
		a.ID, a.OrgID, a.Name, a.AvatarURL, a.Enabled, a.Deleted, jsonText(a.Config), a.CreatedAt, a.UpdatedAt)
	return err
}

// GetAssistant reads an assistant, deleted or not.
func (t *Tx) GetAssistant(orgID, id string) (app.Assistant, error) {
	a, err := scanAssistant(t.row(`SELECT `+assistantColumns+` FROM assistants WHERE org_id = ? AND id = ?`, orgID, id))
	return a, one(err, "assistant")
}

// UpdateAssistant writes every mutable column.
func (t *Tx) UpdateAssistant(a app.Assistant) error {
	return t.execOne("assistant", `UPDATE assistants SET name=?, avatar_url=?, enabled=?, deleted=?, config=?, updated_at=?
		WHERE org_id=? AND id=?`, a.Name, a.AvatarURL, a.Enabled, a.Deleted, jsonText(a.Config), a.UpdatedAt, a.OrgID, a.ID)
}

// ListAssistants lists one page of assistants not deleted, by name, matching search.
func (t *Tx) ListAssistants(orgID, search string, p app.Page) ([]app.Assistant, int, error) {
	where := `org_id = ?1 AND deleted = 0 AND (?2 = '' OR name LIKE ?2 ESCAPE '\')`
	return listPage(t, scanAssistant, p, `SELECT COUNT(*) FROM assistants WHERE `+where,
		`SELECT `+assistantColumns+` FROM assistants WHERE `+where+` ORDER BY name, id LIMIT ?3 OFFSET ?4`,
		orgID, likePattern(search))
}
