-- +goose Up
-- The answers of POSTs made with an Idempotency-Key (app/api/idempotency.go), kept 24 h.
-- status is NULL while the first request runs; body is sealed with secrets.key because some
-- answers carry a secret once (a new API key's token, a webhook's signing secret).
CREATE TABLE idempotency_keys (
    org_id       TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    key          TEXT NOT NULL,
    route        TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status       INTEGER,
    content_type TEXT NOT NULL DEFAULT '',
    body         TEXT NOT NULL DEFAULT '',
    created_at   TEXT NOT NULL,
    PRIMARY KEY (org_id, key, route)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_by_created ON idempotency_keys(created_at);

-- +goose Down
DROP TABLE idempotency_keys;
