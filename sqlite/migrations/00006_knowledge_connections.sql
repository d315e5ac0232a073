-- +goose Up
CREATE TABLE knowledge_contents (
    id                TEXT PRIMARY KEY,
    org_id            TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    assistant_id      TEXT NOT NULL REFERENCES assistants(id) ON DELETE CASCADE,
    parent_content_id TEXT REFERENCES knowledge_contents(id) ON DELETE CASCADE,
    type              TEXT NOT NULL,
    title             TEXT NOT NULL,
    content           TEXT NOT NULL,                -- JSON {type, text | url, max_pages | filename, mimetype}
    size              INTEGER NOT NULL DEFAULT 0,
    status            TEXT NOT NULL,
    error             TEXT,
    chunks_count      INTEGER NOT NULL DEFAULT 0,
    chunks_processed  INTEGER NOT NULL DEFAULT 0,
    lease_until       TEXT,
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL
);
CREATE INDEX knowledge_by_assistant ON knowledge_contents(assistant_id, created_at DESC, id DESC) WHERE parent_content_id IS NULL;
CREATE INDEX knowledge_children ON knowledge_contents(parent_content_id, created_at);
CREATE INDEX knowledge_due ON knowledge_contents(status, created_at) WHERE status IN ('PENDING', 'PROCESSING');

CREATE TABLE knowledge_files (
    content_id TEXT PRIMARY KEY REFERENCES knowledge_contents(id) ON DELETE CASCADE,
    data       BLOB NOT NULL
);

CREATE TABLE knowledge_chunks (
    seq          INTEGER PRIMARY KEY,
    content_id   TEXT NOT NULL REFERENCES knowledge_contents(id) ON DELETE CASCADE,
    org_id       TEXT NOT NULL,
    assistant_id TEXT NOT NULL,
    position     INTEGER NOT NULL,
    text         TEXT NOT NULL
);
CREATE INDEX knowledge_chunks_by_content ON knowledge_chunks(content_id, position);

CREATE VIRTUAL TABLE knowledge_fts USING fts5(text, tokenize = 'unicode61 remove_diacritics 2');

-- +goose StatementBegin
CREATE TRIGGER knowledge_chunks_fts_insert AFTER INSERT ON knowledge_chunks BEGIN
    INSERT INTO knowledge_fts(rowid, text) VALUES (new.seq, new.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER knowledge_chunks_fts_delete AFTER DELETE ON knowledge_chunks BEGIN
    DELETE FROM knowledge_fts WHERE rowid = old.seq;
END;
-- +goose StatementEnd

CREATE TABLE connections (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    type       TEXT NOT NULL,
    name       TEXT NOT NULL,
    config     TEXT NOT NULL DEFAULT '{}',
    secrets    TEXT NOT NULL,                      -- sealed JSON object
    secret_keys TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX connections_by_org ON connections(org_id, name, id);

-- +goose Down
DROP TABLE connections;
DROP TRIGGER knowledge_chunks_fts_delete;
DROP TRIGGER knowledge_chunks_fts_insert;
DROP TABLE knowledge_fts;
DROP TABLE knowledge_chunks;
DROP TABLE knowledge_files;
DROP TABLE knowledge_contents;
