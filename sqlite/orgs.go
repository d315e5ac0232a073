package sqlite

import (
	"encoding/json"
	"fmt"

	"wsapi/app"
)

const orgColumns = `id, parent_org_id, name, logo_url, plan, config, features, balance, created_at, updated_at`

type rowScanner interface{ Scan(dest ...any) error }

func scanOrg(r rowScanner) (app.Org, error) {
	var o app.Org
	var config, features string
	err := r.Scan(&o.ID, &o.ParentOrgID, &o.Name, &o.LogoURL, &o.Plan, &config, &features,
		&o.Balance, &o.CreatedAt, &o.UpdatedAt)
	if err != nil {
		return o, err
	}
	if err := json.Unmarshal([]byte(config), &o.Config); err != nil {
		return o, fmt.Errorf("sqlite: org config: %w", err)
	}
	if err := json.Unmarshal([]byte(features), &o.Features); err != nil {
		return o, fmt.Errorf("sqlite: org features: %w", err)
	}
	return o, nil
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic("sqlite: marshal: " + err.Error()) // only our own plain structs are stored
	}
	return string(b)
}

// CreateOrg inserts an organization.
func (t *Tx) CreateOrg(o app.Org) error {
	_, err := t.exec(`INSERT INTO orgs (`+orgColumns+`) VALUES (?,?,?,?,?,?,?,?,?,?)`,
		o.ID, o.ParentOrgID, o.Name, o.LogoURL, o.Plan, jsonText(o.Config), jsonText(o.Features),
		o.Balance, o.CreatedAt, o.UpdatedAt)
	return err
}

// GetOrg reads one organization.
func (t *Tx) GetOrg(id string) (app.Org, error) {
	o, err := scanOrg(t.row(`SELECT `+orgColumns+` FROM orgs WHERE id = ?`, id))
	return o, one(err, "organization")
}

// UpdateOrg writes every mutable column.
func (t *Tx) UpdateOrg(o app.Org) error {
	return t.execOne("organization", `UPDATE orgs SET name=?, logo_url=?, plan=?, config=?, features=?, balance=?, updated_at=? WHERE id=?`,
		o.Name, o.LogoURL, o.Plan, jsonText(o.Config), jsonText(o.Features), o.Balance, o.UpdatedAt, o.ID)
}

func (t *Tx) listOrgs(query string, args ...any) ([]app.Org, error) {
	return queryAll(t, scanOrg, query, args...)
}

// ListOrgs lists every organization, oldest first.
func (t *Tx) ListOrgs() ([]app.Org, error) {
	return t.listOrgs(`SELECT ` + orgColumns + ` FROM orgs ORDER BY created_at, id`)
}

// ListSubOrgs lists one page of an organization's direct children, oldest first.
func (t *Tx) ListSubOrgs(parentID string, p app.Page) ([]app.Org, int, error) {
	total, err := t.count(`SELECT COUNT(*) FROM orgs WHERE parent_org_id = ?`, parentID)
	if err != nil {
		return nil, 0, err
	}
	orgs, err := t.listOrgs(`SELECT `+orgColumns+` FROM orgs WHERE parent_org_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?`,
		parentID, p.Take, p.Offset())
	return orgs, total, err
}

// OrgWithin walks up from orgID looking for ancestorID.
func (t *Tx) OrgWithin(orgID, ancestorID string) (bool, error) {
	n, err := t.count(`WITH RECURSIVE up(id, parent) AS (
		SELECT id, parent_org_id FROM orgs WHERE id = ?
		UNION SELECT o.id, o.parent_org_id FROM orgs o JOIN up ON o.id = up.parent
	) SELECT COUNT(*) FROM up WHERE id = ?`, orgID, ancestorID)
	return n > 0, err
}

// CountOrgs counts every organization.
func (t *Tx) CountOrgs() (int, error) { return t.count(`SELECT COUNT(*) FROM orgs`) }

// tenants maps each of orgs to its tenant, the top-level organization above it (itself at
// the top). An id no longer in the table is left out: it stands for itself.
func (t *Tx) tenants(orgs []string) (map[string]string, error) {
	rows, err := t.query(`WITH RECURSIVE up(org, id, parent) AS (
		SELECT o.id, o.id, o.parent_org_id FROM orgs o WHERE o.id IN (SELECT value FROM json_each(?))
		UNION SELECT up.org, o.id, o.parent_org_id FROM orgs o JOIN up ON o.id = up.parent
	) SELECT org, id FROM up WHERE parent IS NULL`, jsonText(orgs))
	if err != nil {
		return nil, err
	}
	pairs, err := collect(rows, func(r rowScanner) (p [2]string, err error) { return p, r.Scan(&p[0], &p[1]) })
	out := make(map[string]string, len(pairs))
	for _, p := range pairs {
		out[p[0]] = p[1]
	}
	return out, err
}
