-- +goose Up
-- The web app's sign-in (app/signin). Each table hangs off its member with ON DELETE
-- CASCADE, so deleting a member drops its password, its sessions and its pending links in
-- the same statement.

-- A member's password, argon2id in the PHC string form ($argon2id$v=19$m=...,t=...,p=...$salt$hash).
CREATE TABLE member_passwords (
    member_id  TEXT PRIMARY KEY REFERENCES members(id) ON DELETE CASCADE,
    hash       TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

-- A signed-in browser. Only the SHA-256 of the cookie's token is kept; deleting the row
-- signs the browser out at its next request.
CREATE TABLE web_sessions (
    id         TEXT PRIMARY KEY,
    token_hash BLOB NOT NULL UNIQUE,
    org_id     TEXT NOT NULL,
    member_id  TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    user_agent TEXT NOT NULL DEFAULT '',
    ip         TEXT NOT NULL DEFAULT ''
);
CREATE INDEX web_sessions_by_member ON web_sessions(member_id);

-- One-time links that set a password: the owner's set-up link, an invite, a reset. Only
-- the SHA-256 of the link's token is kept; using the link deletes the row.
CREATE TABLE password_links (
    token_hash BLOB PRIMARY KEY,
    org_id     TEXT NOT NULL,
    member_id  TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
    purpose    TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
CREATE INDEX password_links_by_member ON password_links(member_id);

-- +goose Down
DROP TABLE password_links;
DROP TABLE web_sessions;
DROP TABLE member_passwords;
