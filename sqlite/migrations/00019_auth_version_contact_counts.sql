-- +goose Up
-- Authentications are cached in memory (app/authcache.go) under this version, which every
-- change to a key, a member or a role bumps from these triggers, so that no write path (the
-- server's, a CLI command's such as `keys rotate`, an organization's cascade) can forget to.
-- A cached principal is used only while the version is the one it was read at, so a rotated
-- or deleted key, or a changed role, is refused or re-read on the very next request.
-- The base is random, never reset: if this table is dropped and created again beside a
-- running server, the version does not come back to a value a cache already holds.
CREATE TABLE auth_version (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
);
INSERT INTO auth_version (id, version) VALUES (1, random() & 4611686018427387903);

-- +goose StatementBegin
CREATE TRIGGER auth_version_keys_insert AFTER INSERT ON api_keys BEGIN
    UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER auth_version_keys_update AFTER UPDATE ON api_keys BEGIN
    UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER auth_version_keys_delete AFTER DELETE ON api_keys BEGIN
    UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER auth_version_members_insert AFTER INSERT ON members BEGIN
    UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER auth_version_members_update AFTER UPDATE ON members BEGIN
    UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER auth_version_members_delete AFTER DELETE ON members BEGIN
    UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER auth_version_roles_insert AFTER INSERT ON roles BEGIN
    UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER auth_version_roles_update AFTER UPDATE ON roles BEGIN
    UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER auth_version_roles_delete AFTER DELETE ON roles BEGIN
    UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
-- +goose StatementEnd

-- The number of contacts of each organization, kept by triggers so that the unfiltered contact
-- list answers its pagination-count from one row instead of counting its index (a COUNT(*)
-- over 10,000 contacts was more than half of GET /contacts). Rows of deleted organizations
-- stay at 0 (ids are never reused).
CREATE TABLE contact_counts (
    org_id TEXT PRIMARY KEY,
    n      INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO contact_counts (org_id, n) SELECT org_id, COUNT(*) FROM contacts GROUP BY org_id;

-- +goose StatementBegin
CREATE TRIGGER contact_counts_insert AFTER INSERT ON contacts BEGIN
    INSERT INTO contact_counts (org_id, n) VALUES (NEW.org_id, 1)
        ON CONFLICT (org_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER contact_counts_delete AFTER DELETE ON contacts BEGIN
    UPDATE contact_counts SET n = n - 1 WHERE org_id = OLD.org_id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER contact_counts_move AFTER UPDATE OF org_id ON contacts WHEN NEW.org_id <> OLD.org_id BEGIN
    UPDATE contact_counts SET n = n - 1 WHERE org_id = OLD.org_id;
    INSERT INTO contact_counts (org_id, n) VALUES (NEW.org_id, 1)
        ON CONFLICT (org_id) DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER contact_counts_move;
DROP TRIGGER contact_counts_delete;
DROP TRIGGER contact_counts_insert;
DROP TABLE contact_counts;
DROP TRIGGER auth_version_roles_delete;
DROP TRIGGER auth_version_roles_update;
DROP TRIGGER auth_version_roles_insert;
DROP TRIGGER auth_version_members_delete;
DROP TRIGGER auth_version_members_update;
DROP TRIGGER auth_version_members_insert;
DROP TRIGGER auth_version_keys_delete;
DROP TRIGGER auth_version_keys_update;
DROP TRIGGER auth_version_keys_insert;
DROP TABLE auth_version;
