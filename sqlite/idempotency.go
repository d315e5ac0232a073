package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"wsapi/app"
)

// ClaimIdempotencyKey starts a request made with an idempotency key. When the key is new in
// its scope, or its row is older than expiredBefore (not purged yet), or its first request
// never finished and started before staleBefore (the process died with it), the key is
// claimed for this request (claimed true). Otherwise it answers the stored row.
func (db *DB) ClaimIdempotencyKey(ctx context.Context, k app.IdempotencyKey, hash string, now, expiredBefore, staleBefore time.Time) (prev app.StoredResponse, claimed bool, err error) {
	err = db.Write(ctx, func(atx app.Tx) error {
		t := atx.(*Tx)
		var status sql.NullInt64
		var sealed string
		var created app.Time
		err := t.row(`SELECT request_hash, status, content_type, body, created_at FROM idempotency_keys
			WHERE org_id = ? AND key = ? AND route = ?`, k.OrgID, k.Key, k.Route).
			Scan(&prev.RequestHash, &status, &prev.ContentType, &sealed, &created)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return mapErr(err)
		case created.Before(expiredBefore), !status.Valid && created.Before(staleBefore):
		default:
			prev.Done, prev.Status = status.Valid, int(status.Int64)
			if prev.Done {
				body, err := t.open(sealed)
				prev.Body = []byte(body)
				return err
			}
			return nil
		}
		claimed = true
		_, err = t.exec(`INSERT OR REPLACE INTO idempotency_keys (org_id, key, route, request_hash, created_at)
			VALUES (?, ?, ?, ?, ?)`, k.OrgID, k.Key, k.Route, hash, app.At(now))
		return err
	})
	return prev, claimed, err
}

// SaveIdempotentResponse stores the answer of the request that claimed k.
func (db *DB) SaveIdempotentResponse(ctx context.Context, k app.IdempotencyKey, r app.StoredResponse) error {
	return db.Write(ctx, func(atx app.Tx) error {
		t := atx.(*Tx)
		sealed, err := t.seal(string(r.Body))
		if err != nil {
			return err
		}
		_, err = t.exec(`UPDATE idempotency_keys SET status = ?, content_type = ?, body = ?
			WHERE org_id = ? AND key = ? AND route = ?`, r.Status, r.ContentType, sealed, k.OrgID, k.Key, k.Route)
		return err
	})
}

// ReleaseIdempotencyKey forgets a claim whose request is not to be replayed (a 5xx), so that
// a retry runs again.
func (db *DB) ReleaseIdempotencyKey(ctx context.Context, k app.IdempotencyKey) error {
	return db.Write(ctx, func(atx app.Tx) error {
		_, err := atx.(*Tx).exec(`DELETE FROM idempotency_keys WHERE org_id = ? AND key = ? AND route = ?`,
			k.OrgID, k.Key, k.Route)
		return err
	})
}

// PurgeIdempotencyKeys deletes the keys made before before (the janitor, after 24 h).
func (db *DB) PurgeIdempotencyKeys(ctx context.Context, before time.Time) (n int, err error) {
	err = db.Write(ctx, func(atx app.Tx) error {
		res, err := atx.(*Tx).exec(`DELETE FROM idempotency_keys WHERE created_at < ?`, app.At(before))
		if err != nil {
			return err
		}
		rows, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("sqlite: rows affected: %w", err)
		}
		n = int(rows)
		return nil
	})
	return n, err
}
