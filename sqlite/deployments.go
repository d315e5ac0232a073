package sqlite

import (
	"encoding/json"
	"fmt"

	"wsapi/app"
)

const deploymentColumns = `id, org_id, assistant_id, integration_id, name, enabled, config, secrets, secret_keys,
	status, error, created_at, updated_at`

func (t *Tx) scanDeployment(r rowScanner) (app.Deployment, error) {
	var d app.Deployment
	var config, sealed, keys string
	if err := r.Scan(&d.ID, &d.OrgID, &d.AssistantID, &d.IntegrationID, &d.Name, &d.Enabled, &config, &sealed, &keys,
		&d.Status, &d.Error, &d.CreatedAt, &d.UpdatedAt); err != nil {
		return d, err
	}
	if err := json.Unmarshal([]byte(config), &d.Config); err != nil {
		return d, fmt.Errorf("sqlite: assistant integration config: %w", err)
	}
	if err := json.Unmarshal([]byte(keys), &d.SecretKeys); err != nil {
		return d, fmt.Errorf("sqlite: assistant integration secret keys: %w", err)
	}
	plain, err := t.open(sealed)
	if err != nil {
		return d, err
	}
	return d, json.Unmarshal([]byte(plain), &d.Secrets)
}

// CreateDeployment inserts an assistant integration with its secrets sealed.
func (t *Tx) CreateDeployment(d app.Deployment) error {
	sealed, err := t.seal(jsonText(d.Secrets))
	if err != nil {
		return err
	}
	_, err = t.exec(`INSERT INTO assistant_integrations (`+deploymentColumns+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		d.ID, d.OrgID, d.AssistantID, d.IntegrationID, d.Name, d.Enabled, jsonText(d.Config), sealed,
		jsonText(d.SecretKeys), d.Status, d.Error, d.CreatedAt, d.UpdatedAt)
	return err
}

// GetDeployment reads one of the organization's integrations, of one assistant unless
// assistantID is "".
func (t *Tx) GetDeployment(orgID, assistantID, id string) (app.Deployment, error) {
	d, err := t.scanDeployment(t.row(`SELECT `+deploymentColumns+` FROM assistant_integrations
		WHERE org_id = ? AND (? = '' OR assistant_id = ?) AND id = ?`, orgID, assistantID, assistantID, id))
	return d, one(err, "assistant integration")
}

// FindDeployment reads an integration by id alone (the public routes name no organization).
func (t *Tx) FindDeployment(id string) (app.Deployment, error) {
	d, err := t.scanDeployment(t.row(`SELECT `+deploymentColumns+` FROM assistant_integrations WHERE id = ?`, id))
	return d, one(err, "assistant integration")
}

// UpdateDeployment writes name, enabled, config, secrets and status. A change of enabled
// touches the integration's chats, so their cached copies (whose state shows enabled) are
// read again.
func (t *Tx) UpdateDeployment(d app.Deployment) error {
	sealed, err := t.seal(jsonText(d.Secrets))
	if err != nil {
		return err
	}
	var was bool
	if err := t.row(`SELECT enabled FROM assistant_integrations WHERE id = ?`, d.ID).Scan(&was); err != nil {
		return one(err, "assistant integration")
	}
	if err := t.execOne("assistant integration", `UPDATE assistant_integrations SET name = ?, enabled = ?, config = ?,
		secrets = ?, secret_keys = ?, status = ?, error = ?, updated_at = ? WHERE org_id = ? AND id = ?`,
		d.Name, d.Enabled, jsonText(d.Config), sealed, jsonText(d.SecretKeys), d.Status, d.Error, d.UpdatedAt,
		d.OrgID, d.ID); err != nil {
		return err
	}
	if was == d.Enabled {
		return nil
	}
	_, err = t.exec(`UPDATE chats SET assistant_integration_id = assistant_integration_id
		WHERE org_id = ? AND assistant_integration_id = ?`, d.OrgID, d.ID)
	return err
}

// DeleteDeployment removes an integration; its widget sessions go with it.
func (t *Tx) DeleteDeployment(orgID, assistantID, id string) error {
	return t.execOne("assistant integration", `DELETE FROM assistant_integrations
		WHERE org_id = ? AND assistant_id = ? AND id = ?`, orgID, assistantID, id)
}

// ListDeployments lists one page of an assistant's integrations, oldest first.
func (t *Tx) ListDeployments(orgID, assistantID string, p app.Page) ([]app.Deployment, int, error) {
	where := `org_id = ?1 AND assistant_id = ?2`
	return listPage(t, t.scanDeployment, p, `SELECT COUNT(*) FROM assistant_integrations WHERE `+where,
		`SELECT `+deploymentColumns+` FROM assistant_integrations WHERE `+where+` ORDER BY created_at, id LIMIT ?3 OFFSET ?4`,
		orgID, assistantID)
}
