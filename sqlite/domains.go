package sqlite

import (
	"encoding/json"
	"fmt"

	"wsapi/app"
)

const domainColumns = `id, org_id, domain, selector, private_key, dkim_tokens, verification_name, verification_value,
	dkim_status, verify_error, verified_at, created_at, updated_at`

func (t *Tx) scanDomain(r rowScanner) (app.Domain, error) {
	var d app.Domain
	var sealed, tokens string
	err := r.Scan(&d.ID, &d.OrgID, &d.Domain, &d.Selector, &sealed, &tokens, &d.VerificationRecord.Name,
		&d.VerificationRecord.Value, &d.DKIMStatus, &d.VerifyError, &d.VerifiedAt, &d.CreatedAt, &d.UpdatedAt)
	if err != nil {
		return d, err
	}
	if err := json.Unmarshal([]byte(tokens), &d.DKIMTokens); err != nil {
		return d, fmt.Errorf("sqlite: dkim tokens: %w", err)
	}
	d.PrivateKeyPEM, err = t.open(sealed)
	return d, err
}

// CreateDomain inserts a domain with its DKIM key sealed.
func (t *Tx) CreateDomain(d app.Domain) error {
	sealed, err := t.seal(d.PrivateKeyPEM)
	if err != nil {
		return err
	}
	_, err = t.exec(`INSERT INTO domains (`+domainColumns+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`, d.ID, d.OrgID, d.Domain,
		d.Selector, sealed, jsonText(d.DKIMTokens), d.VerificationRecord.Name, d.VerificationRecord.Value, d.DKIMStatus,
		d.VerifyError, d.VerifiedAt, d.CreatedAt, d.UpdatedAt)
	return err
}

// GetDomain reads a domain of an organization.
func (t *Tx) GetDomain(orgID, id string) (app.Domain, error) {
	d, err := t.scanDomain(t.row(`SELECT `+domainColumns+` FROM domains WHERE org_id = ? AND id = ?`, orgID, id))
	return d, one(err, "domain")
}

// DomainByName reads the organization's domain of that name.
func (t *Tx) DomainByName(orgID, name string) (app.Domain, error) {
	d, err := t.scanDomain(t.row(`SELECT `+domainColumns+` FROM domains WHERE org_id = ? AND domain = ?`, orgID, name))
	return d, one(err, "domain")
}

// VerifiedDomain reads the verified domain of that name in any organization, the oldest.
func (t *Tx) VerifiedDomain(name string) (app.Domain, error) {
	d, err := t.scanDomain(t.row(`SELECT `+domainColumns+` FROM domains WHERE domain = ? AND dkim_status = 'VERIFIED'
		ORDER BY verified_at, id LIMIT 1`, name))
	return d, one(err, "domain")
}

// UpdateDomain writes the verification outcome.
func (t *Tx) UpdateDomain(d app.Domain) error {
	return t.execOne("domain", `UPDATE domains SET dkim_status=?, verify_error=?, verified_at=?, updated_at=? WHERE org_id=? AND id=?`,
		d.DKIMStatus, d.VerifyError, d.VerifiedAt, d.UpdatedAt, d.OrgID, d.ID)
}

// DeleteDomain removes a domain; its identities cascade.
func (t *Tx) DeleteDomain(orgID, id string) error {
	return t.execOne("domain", `DELETE FROM domains WHERE org_id = ? AND id = ?`, orgID, id)
}

// ListDomains lists one page of domains by name.
func (t *Tx) ListDomains(orgID string, p app.Page) ([]app.Domain, int, error) {
	total, err := t.count(`SELECT COUNT(*) FROM domains WHERE org_id = ?`, orgID)
	if err != nil {
		return nil, 0, err
	}
	rows, err := t.query(`SELECT `+domainColumns+` FROM domains WHERE org_id = ? ORDER BY domain, id LIMIT ? OFFSET ?`,
		orgID, p.Take, p.Offset())
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []app.Domain{}
	for rows.Next() {
		d, err := t.scanDomain(rows)
		if err != nil {
			return nil, 0, mapErr(err)
		}
		out = append(out, d)
	}
	return out, total, mapErr(rows.Err())
}

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
	rows, err := t.query(`SELECT `+identityColumns+` FROM email_identities WHERE org_id = ?
		ORDER BY is_default DESC, email, id LIMIT ? OFFSET ?`, orgID, p.Take, p.Offset())
	if err != nil {
		return nil, 0, err
	}
	out, err := collect(rows, scanIdentity)
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
