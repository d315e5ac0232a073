package sqlite

import (
	"strings"

	"wsapi/app"
)

// AddSuppression lists an address once and answers its entry, the first one when it was
// already listed.
func (t *Tx) AddSuppression(s app.Suppression) (app.Suppression, error) {
	s.Email = strings.ToLower(s.Email)
	if _, err := t.exec(`INSERT INTO suppressions (id, org_id, email, reason, created_at) VALUES (?,?,?,?,?)
		ON CONFLICT (org_id, email) DO NOTHING`, s.ID, s.OrgID, s.Email, s.Reason, s.CreatedAt); err != nil {
		return s, err
	}
	err := t.row(`SELECT id, reason, created_at FROM suppressions WHERE org_id = ? AND email = ?`, s.OrgID, s.Email).
		Scan(&s.ID, &s.Reason, &s.CreatedAt)
	return s, mapErr(err)
}

// IsSuppressed tells whether an address is on the organization's list.
func (t *Tx) IsSuppressed(orgID, email string) (bool, error) {
	n, err := t.count(`SELECT COUNT(*) FROM suppressions WHERE org_id = ? AND email = ?`, orgID, strings.ToLower(email))
	return n > 0, err
}

// ListSuppressions lists one page, newest first.
func (t *Tx) ListSuppressions(orgID, search string, p app.Page) ([]app.Suppression, int, error) {
	where := `org_id = ?1 AND (?2 = '' OR email LIKE ?2 ESCAPE '\')`
	total, err := t.count(`SELECT COUNT(*) FROM suppressions WHERE `+where, orgID, likePattern(search))
	if err != nil {
		return nil, 0, err
	}
	rows, err := t.query(`SELECT id, org_id, email, reason, created_at FROM suppressions WHERE `+where+`
		ORDER BY created_at DESC, id DESC LIMIT ?3 OFFSET ?4`, orgID, likePattern(search), p.Take, p.Offset())
	if err != nil {
		return nil, 0, err
	}
	out, err := collect(rows, func(r rowScanner) (s app.Suppression, err error) {
		return s, r.Scan(&s.ID, &s.OrgID, &s.Email, &s.Reason, &s.CreatedAt)
	})
	return out, total, err
}

// DeleteSuppression removes an address from the list.
func (t *Tx) DeleteSuppression(orgID, id string) error {
	return t.execOne("suppression", `DELETE FROM suppressions WHERE org_id = ? AND id = ?`, orgID, id)
}
