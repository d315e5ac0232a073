package sqlite

import (
	"encoding/json"
	"fmt"

	"wsapi/app"
)

const connectionColumns = `id, org_id, type, name, config, secrets, secret_keys, created_at, updated_at`

func (t *Tx) scanConnection(r rowScanner) (app.Connection, error) {
	var c app.Connection
	var config, sealed, keys string
	if err := r.Scan(&c.ID, &c.OrgID, &c.Type, &c.Name, &config, &sealed, &keys, &c.CreatedAt, &c.UpdatedAt); err != nil {
		return c, err
	}
	if err := json.Unmarshal([]byte(config), &c.Config); err != nil {
		return c, fmt.Errorf("sqlite: connection config: %w", err)
	}
	if err := json.Unmarshal([]byte(keys), &c.SecretKeys); err != nil {
		return c, fmt.Errorf("sqlite: connection secret keys: %w", err)
	}
	plain, err := t.open(sealed)
	if err != nil {
		return c, err
	}
	return c, json.Unmarshal([]byte(plain), &c.Secrets)
}

// CreateConnection inserts a connection with its secrets sealed.
func (t *Tx) CreateConnection(c app.Connection) error {
	sealed, err := t.seal(jsonText(c.Secrets))
	if err != nil {
		return err
	}
	_, err = t.exec(`INSERT INTO connections (`+connectionColumns+`) VALUES (?,?,?,?,?,?,?,?,?)`, c.ID, c.OrgID, c.Type,
		c.Name, jsonText(c.Config), sealed, jsonText(c.SecretKeys), c.CreatedAt, c.UpdatedAt)
	return err
}

// GetConnection reads a connection with its secrets opened (never answered by the API).
func (t *Tx) GetConnection(orgID, id string) (app.Connection, error) {
	c, err := t.scanConnection(t.row(`SELECT `+connectionColumns+` FROM connections WHERE org_id = ? AND id = ?`, orgID, id))
	return c, one(err, "connection")
}

// DeleteConnection removes a connection.
func (t *Tx) DeleteConnection(orgID, id string) error {
	return t.execOne("connection", `DELETE FROM connections WHERE org_id = ? AND id = ?`, orgID, id)
}

// ListConnections lists one page of connections by name, optionally of one type.
func (t *Tx) ListConnections(orgID, typ string, p app.Page) ([]app.Connection, int, error) {
	where := `org_id = ?1 AND (?2 = '' OR type = ?2)`
	return listPage(t, t.scanConnection, p, `SELECT COUNT(*) FROM connections WHERE `+where,
		`SELECT `+connectionColumns+` FROM connections WHERE `+where+` ORDER BY name, id LIMIT ?3 OFFSET ?4`,
		orgID, typ)
}

// SpendOAuthState marks a state used, once: the primary key decides between concurrent
// validations of one state.
func (t *Tx) SpendOAuthState(state string, expiresAt, now app.Time) (bool, error) {
	if _, err := t.exec(`DELETE FROM oauth_states_used WHERE expires_at < ?`, now); err != nil {
		return false, err
	}
	res, err := t.exec(`INSERT INTO oauth_states_used (state, expires_at) VALUES (?, ?) ON CONFLICT (state) DO NOTHING`,
		state, expiresAt)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
