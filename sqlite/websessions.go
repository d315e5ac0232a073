package sqlite

import (
	"encoding/json"
	"fmt"

	"wsapi/app"
)

// SetPassword stores or replaces a member's password hash.
func (t *Tx) SetPassword(memberID, hash string, now app.Time) error {
	_, err := t.exec(`INSERT INTO member_passwords (member_id, hash, updated_at) VALUES (?,?,?)
		ON CONFLICT (member_id) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at`, memberID, hash, now)
	return err
}

// PasswordsByEmail answers the members with that email that have a password, oldest first.
func (t *Tx) PasswordsByEmail(email string) ([]app.MemberPassword, error) {
	return queryAll(t, func(r rowScanner) (mp app.MemberPassword, err error) {
		err = r.Scan(&mp.Member.ID, &mp.Member.OrgID, &mp.Member.Name, &mp.Member.Email, &mp.Member.Avatar,
			&mp.Member.Role, &mp.Member.CreatedAt, &mp.Member.UpdatedAt, &mp.Hash)
		return mp, err
	}, `SELECT `+prefixed("m", memberColumns)+`, p.hash FROM members m JOIN member_passwords p ON p.member_id = m.id
		WHERE m.email = ? ORDER BY m.created_at, m.id LIMIT 20`, email)
}

// MembersByEmail answers every member with that email, oldest first.
func (t *Tx) MembersByEmail(email string) ([]app.Member, error) {
	return queryAll(t, scanMember, `SELECT `+memberColumns+` FROM members WHERE email = ? ORDER BY created_at, id LIMIT 100`, email)
}

// CreateWebSession inserts a session with the hash of its token.
func (t *Tx) CreateWebSession(s app.WebSession, tokenHash []byte) error {
	_, err := t.exec(`INSERT INTO web_sessions (id, token_hash, org_id, member_id, created_at, expires_at, user_agent, ip)
		VALUES (?,?,?,?,?,?,?,?)`, s.ID, tokenHash, s.OrgID, s.MemberID, s.CreatedAt, s.ExpiresAt, s.UserAgent, s.IP)
	return err
}

// WebSessionPrincipal reads session, member and custom role in one query.
func (t *Tx) WebSessionPrincipal(tokenHash []byte) (app.WebSession, app.Principal, error) {
	var s app.WebSession
	var p app.Principal
	var perms *string
	m := &p.Member
	err := t.row(`SELECT s.id, s.org_id, s.member_id, s.created_at, s.expires_at, s.user_agent, s.ip, `+prefixed("m", memberColumns)+`, r.permissions
		FROM web_sessions s JOIN members m ON m.id = s.member_id
		LEFT JOIN roles r ON r.id = m.role AND r.org_id = m.org_id
		WHERE s.token_hash = ?`, tokenHash).Scan(&s.ID, &s.OrgID, &s.MemberID, &s.CreatedAt, &s.ExpiresAt, &s.UserAgent, &s.IP,
		&m.ID, &m.OrgID, &m.Name, &m.Email, &m.Avatar, &m.Role, &m.CreatedAt, &m.UpdatedAt, &perms)
	if err != nil {
		return s, p, one(err, "session")
	}
	granted := app.BuiltinPermissions(m.Role)
	if granted == nil && perms != nil {
		if err := json.Unmarshal([]byte(*perms), &granted); err != nil {
			return s, p, fmt.Errorf("sqlite: role permissions: %w", err)
		}
	}
	p.Perms = app.NewPermissionSet(granted)
	p.Key = app.APIKey{OrgID: m.OrgID, MemberID: m.ID} // a session acts as its member, as a key does
	return s, p, nil
}

// DeleteWebSession ends one session of a member.
func (t *Tx) DeleteWebSession(memberID, id string) error {
	return t.execOne("session", `DELETE FROM web_sessions WHERE member_id = ? AND id = ?`, memberID, id)
}

// DeleteWebSessions ends every session of a member.
func (t *Tx) DeleteWebSessions(memberID string) (int, error) {
	res, err := t.exec(`DELETE FROM web_sessions WHERE member_id = ?`, memberID)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// DeleteExpiredWebSessions removes sessions and links whose expiry has passed.
func (t *Tx) DeleteExpiredWebSessions(now app.Time) (int, error) {
	total := 0
	for _, q := range []string{`DELETE FROM web_sessions WHERE expires_at <= ?`, `DELETE FROM password_links WHERE expires_at <= ?`} {
		res, err := t.exec(q, now)
		if err != nil {
			return total, err
		}
		n, _ := res.RowsAffected()
		total += int(n)
	}
	return total, nil
}

// CreatePasswordLink inserts a one-time link with the hash of its token.
func (t *Tx) CreatePasswordLink(l app.PasswordLink, tokenHash []byte) error {
	_, err := t.exec(`INSERT INTO password_links (token_hash, org_id, member_id, purpose, created_at, expires_at)
		VALUES (?,?,?,?,?,?)`, tokenHash, l.OrgID, l.MemberID, l.Purpose, l.CreatedAt, l.ExpiresAt)
	return err
}

// GetPasswordLink reads a link by its token's hash.
func (t *Tx) GetPasswordLink(tokenHash []byte) (app.PasswordLink, error) {
	var l app.PasswordLink
	err := t.row(`SELECT org_id, member_id, purpose, created_at, expires_at FROM password_links WHERE token_hash = ?`, tokenHash).
		Scan(&l.OrgID, &l.MemberID, &l.Purpose, &l.CreatedAt, &l.ExpiresAt)
	return l, one(err, "link")
}

// TakePasswordLink reads and deletes a link, so it works once.
func (t *Tx) TakePasswordLink(tokenHash []byte) (app.PasswordLink, error) {
	var l app.PasswordLink
	err := t.row(`DELETE FROM password_links WHERE token_hash = ? RETURNING org_id, member_id, purpose, created_at, expires_at`, tokenHash).
		Scan(&l.OrgID, &l.MemberID, &l.Purpose, &l.CreatedAt, &l.ExpiresAt)
	return l, one(err, "link")
}

// DeletePasswordLinks removes a member's pending links.
func (t *Tx) DeletePasswordLinks(memberID string) error {
	_, err := t.exec(`DELETE FROM password_links WHERE member_id = ?`, memberID)
	return err
}
