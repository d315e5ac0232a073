package sqlite

import (
	"wsapi/app"
)

const identityColumns = `id, org_id, domain_id, email, name, is_default, click_tracking, open_tracking, created_at, updated_at`

func scanIdentity(r rowScanner) (app.EmailIdentity, error) {
	var e app.EmailIdentity
	err := r.Scan(&e.ID, &e.OrgID, &e.DomainID, &e.Email, &e.Name, &e.IsDefault, &e.ClickTracking, &e.OpenTracking,
		&e.CreatedAt, &e.UpdatedAt)
	return e, err
}

// CreateIdentity inserts an identity; a second default is a conflict (unique index).
func (t *Tx) CreateIdentity(e app.EmailIdentity) error {
	_, err := t.exec(`INSERT INTO email_identities (`+identityColumns+`) VALUES (?,?,?,?,?,?,?,?,?,?)`, e.ID, e.OrgID,
		e.DomainID, e.Email, e.Name, e.IsDefault, e.ClickTracking, e.OpenTracking, e.CreatedAt, e.UpdatedAt)
	return err
}

// GetIdentity reads an identity with its domain.
func (t *Tx) GetIdentity(orgID, id string) (app.EmailIdentity, error) {
	e, err := scanIdentity(t.row(`SELECT `+identityColumns+` FROM email_identities WHERE org_id = ? AND id = ?`, orgID, id))
	if err != nil {
		return e, one(err, "email identity")
	}
	d, err := t.GetDomain(orgID, e.DomainID)
	return e.WithDomain(d), err
}

// UpdateIdentity writes the mutable columns.
func (t *Tx) UpdateIdentity(e app.EmailIdentity) error {
	return t.execOne("email identity", `UPDATE email_identities SET name=?, is_default=?, click_tracking=?, open_tracking=?,
		updated_at=? WHERE org_id=? AND id=?`, e.Name, e.IsDefault, e.ClickTracking, e.OpenTracking, e.UpdatedAt, e.OrgID, e.ID)
}

// ClearDefaultIdentity unsets the organization's default identity.
func (t *Tx) ClearDefaultIdentity(orgID string) error {
	_, err := t.exec(`UPDATE email_identities SET is_default = 0 WHERE org_id = ? AND is_default = 1`, orgID)
	return err
}

// DeleteIdentity removes an identity.
func (t *Tx) DeleteIdentity(orgID, id string) error {
	return t.execOne("email identity", `DELETE FROM email_identities WHERE org_id = ? AND id = ?`, orgID, id)
}

// ListIdentities lists one page of identities, the default first, then by email.
func (t *Tx) ListIdentities(orgID string, p app.Page) ([]app.EmailIdentity, int, error) {
	total, err := t.count(`SELECT COUNT(*) FROM email_identities WHERE org_id = ?`, orgID)
	if err != nil {
		return nil, 0, err
	}
	out, err := queryAll(t, scanIdentity, `SELECT `+identityColumns+` FROM email_identities WHERE org_id = ?
		ORDER BY is_default DESC, email, id LIMIT ? OFFSET ?`, orgID, p.Take, p.Offset())
	if err != nil {
		return nil, 0, err
	}
	for i, e := range out {
		d, err := t.GetDomain(orgID, e.DomainID)
		if err != nil {
			return nil, 0, err
		}
		out[i] = e.WithDomain(d)
	}
	if out == nil {
		out = []app.EmailIdentity{}
	}
	return out, total, nil
}
