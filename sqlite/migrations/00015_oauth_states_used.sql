-- +goose Up
-- OAuth states that a validation has spent. A state is signed, not stored, when it is
-- issued; this table is what makes it single-use. A row can go once its state has expired
-- (then the signature check refuses it anyway): each use deletes the expired rows.
CREATE TABLE oauth_states_used (
    state      TEXT PRIMARY KEY,   -- the signed payload: org|type|issued|nonce
    expires_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX oauth_states_used_by_expiry ON oauth_states_used(expires_at);

-- +goose Down
DROP TABLE oauth_states_used;
