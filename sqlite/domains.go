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
	return listPage(t, t.scanDomain, p, `SELECT COUNT(*) FROM domains WHERE org_id = ?`,
		`SELECT `+domainColumns+` FROM domains WHERE org_id = ? ORDER BY domain, id LIMIT ? OFFSET ?`,
		orgID)
}
