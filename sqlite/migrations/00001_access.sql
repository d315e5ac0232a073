-- +goose Up
-- Organizations form a tree; deleting one deletes its descendants and everything they own.
CREATE TABLE orgs (
    id            TEXT PRIMARY KEY,
    parent_org_id TEXT REFERENCES orgs(id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    logo_url      TEXT NOT NULL DEFAULT '',
    plan          TEXT NOT NULL DEFAULT 'free',
    config        TEXT NOT NULL DEFAULT '{}',
    features      TEXT NOT NULL DEFAULT '{}',
    balance       REAL NOT NULL DEFAULT 100,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);
CREATE INDEX orgs_by_parent ON orgs(parent_org_id, created_at, id);

CREATE TABLE roles (
    id          TEXT PRIMARY KEY,
    org_id      TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    permissions TEXT NOT NULL DEFAULT '[]',
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    UNIQUE (org_id, name)
);

CREATE TABLE members (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    email      TEXT NOT NULL,
    avatar     TEXT NOT NULL DEFAULT '',
    role       TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (org_id, email)
);
CREATE INDEX members_by_role ON members(org_id, role);

CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    member_id  TEXT NOT NULL REFERENCES members(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    preview    TEXT NOT NULL,
    token_hash BLOB NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    rotated_at TEXT
);
CREATE INDEX api_keys_by_org ON api_keys(org_id, created_at, id);
CREATE INDEX api_keys_by_member ON api_keys(member_id);

-- +goose Down
DROP TABLE api_keys;
DROP TABLE members;
DROP TABLE roles;
DROP TABLE orgs;
