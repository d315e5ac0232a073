package sqlite

import (
	"context"
	"encoding/json"
	"fmt"

	"wsapi/app"
)

const keyColumns = `k.id, k.org_id, k.member_id, k.name, k.preview, k.created_at, k.rotated_at`

func scanKey(r rowScanner, extra ...any) (app.APIKey, error) {
	var k app.APIKey
	dest := append([]any{&k.ID, &k.OrgID, &k.MemberID, &k.Name, &k.Preview, &k.CreatedAt, &k.RotatedAt}, extra...)
	return k, r.Scan(dest...)
}

// CreateKey inserts a key with the hash of its token.
func (t *Tx) CreateKey(k app.APIKey, hash []byte) error {
	_, err := t.exec(`INSERT INTO api_keys (id, org_id, member_id, name, preview, token_hash, created_at, rotated_at)
		VALUES (?,?,?,?,?,?,?,?)`, k.ID, k.OrgID, k.MemberID, k.Name, k.Preview, hash, k.CreatedAt, k.RotatedAt)
	return err
}

// GetKey reads a key of an organization; an empty orgID (the operator's CLI) matches any.
func (t *Tx) GetKey(orgID, id string) (app.APIKey, error) {
	k, err := scanKey(t.row(`SELECT `+keyColumns+` FROM api_keys k WHERE k.id = ? AND (? = '' OR k.org_id = ?)`, id, orgID, orgID))
	return k, one(err, "key")
}

// ListKeys lists one page of keys, oldest first; an empty orgID lists every organization's.
func (t *Tx) ListKeys(orgID string, p app.Page) ([]app.APIKey, int, error) {
	scan := func(r rowScanner) (app.APIKey, error) { return scanKey(r) }
	return listPage(t, scan, p, `SELECT COUNT(*) FROM api_keys WHERE ? = '' OR org_id = ?`,
		`SELECT `+keyColumns+` FROM api_keys k WHERE ? = '' OR k.org_id = ?
		ORDER BY k.created_at, k.id LIMIT ? OFFSET ?`,
		orgID, orgID)
}

// ReplaceKeyHash stores a rotated key's new hash and preview; the old hash is gone at commit.
func (t *Tx) ReplaceKeyHash(k app.APIKey, hash []byte) error {
	return t.execOne("key", `UPDATE api_keys SET token_hash=?, preview=?, rotated_at=? WHERE id=?`,
		hash, k.Preview, k.RotatedAt, k.ID)
}

// DeleteKey removes a key.
func (t *Tx) DeleteKey(orgID, id string) error {
	return t.execOne("key", `DELETE FROM api_keys WHERE id = ? AND (? = '' OR org_id = ?)`, id, orgID, orgID)
}

// Authenticate reads key, member and custom role in one query.
func (t *Tx) Authenticate(hash []byte) (app.Principal, []byte, error) {
	var p app.Principal
	var stored []byte
	var perms *string
	row := t.row(`SELECT `+keyColumns+`, k.token_hash, `+prefixed("m", memberColumns)+`, r.permissions
		FROM api_keys k JOIN members m ON m.id = k.member_id
		LEFT JOIN roles r ON r.id = m.role AND r.org_id = m.org_id
		WHERE k.token_hash = ?`, hash)
	k, err := scanKey(row, &stored, &p.Member.ID, &p.Member.OrgID, &p.Member.Name, &p.Member.Email,
		&p.Member.Avatar, &p.Member.Role, &p.Member.CreatedAt, &p.Member.UpdatedAt, &perms)
	if err != nil {
		return p, nil, one(err, "key")
	}
	p.Key = k
	granted := app.BuiltinPermissions(p.Member.Role)
	if granted == nil && perms != nil {
		if err := json.Unmarshal([]byte(*perms), &granted); err != nil {
			return p, nil, fmt.Errorf("sqlite: role permissions: %w", err)
		}
	}
	p.Perms = app.NewPermissionSet(granted)
	return p, stored, nil
}

// AuthVersion reads the version the auth_version triggers keep (app/authcache.go).
func (t *Tx) AuthVersion() (int64, error) {
	var v int64
	err := t.row(`SELECT version FROM auth_version WHERE id = 1`).Scan(&v)
	return v, mapErr(err)
}

// AuthVersion reads the version on the latest committed state. It runs before every
// authenticated request, so while nothing at all has been committed since the last read
// (by this process or another: the WAL index's stamp is unchanged) it answers that read
// without asking SQLite; that read was a tenth of a simple GET's CPU.
func (db *DB) AuthVersion(ctx context.Context) (int64, error) {
	before, stamped := db.DataVersion()
	if stamped {
		if v, ok := db.authSeen.get(before); ok {
			return v, nil
		}
	}
	// One statement, no transaction. A one-row lookup needs no cancellation, and without it
	// the driver starts no goroutine to watch the context.
	var v int64
	if err := db.reader.QueryRowContext(context.WithoutCancel(ctx), `SELECT version FROM auth_version WHERE id = 1`).Scan(&v); err != nil {
		return 0, mapErr(err)
	}
	// Kept only if nothing was committed during the read, so v is the version under before.
	if after, ok := db.DataVersion(); stamped && ok && after == before {
		db.authSeen.put(before, v)
	}
	return v, nil
}
