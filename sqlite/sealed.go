package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// CheckSealer opens one stored sealed value (a webhook's signing secret, a connection's
// credentials, a domain's DKIM key or an assistant integration's secrets), so that a secrets
// key that does not belong to this database is found when the process starts rather than as
// a 500 on every read of a secret.
// A database that holds no secret passes.
func (db *DB) CheckSealer(ctx context.Context) error {
	var what, id, sealed string
	err := db.reader.QueryRowContext(ctx, `
		SELECT 'webhook', id, secret FROM webhook_endpoints
		UNION ALL SELECT 'connection', id, secrets FROM connections
		UNION ALL SELECT 'domain', id, private_key FROM domains
		UNION ALL SELECT 'assistant integration', id, secrets FROM assistant_integrations
		LIMIT 1`).Scan(&what, &id, &sealed)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sqlite: read a sealed secret: %w", err)
	}
	if db.sealer == nil {
		return errors.New("sqlite: no sealer set for secrets")
	}
	if _, err := db.sealer.Open(sealed); err != nil {
		return fmt.Errorf("%s %s: %w", what, id, err)
	}
	return nil
}
