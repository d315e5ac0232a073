-- +goose Up
CREATE TABLE assistants (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    avatar_url TEXT NOT NULL DEFAULT '',
    enabled    INTEGER NOT NULL DEFAULT 1,
    deleted    INTEGER NOT NULL DEFAULT 0,
    config     TEXT NOT NULL,                      -- JSON assistant_config
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX assistants_by_org ON assistants(org_id, deleted, name, id);

CREATE TABLE chats (
    seq                      INTEGER PRIMARY KEY,  -- stable rowid: the search index keys on it
    id                       TEXT NOT NULL UNIQUE,
    org_id                   TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    title                    TEXT,
    model                    TEXT NOT NULL,
    temporary                INTEGER NOT NULL DEFAULT 0,
    visibility               TEXT NOT NULL,
    pinned                   INTEGER NOT NULL DEFAULT 0,
    status                   TEXT NOT NULL,
    shared_url               TEXT,
    tools                    TEXT NOT NULL DEFAULT '[]',
    features                 TEXT NOT NULL DEFAULT '{}',
    link                     TEXT NOT NULL DEFAULT '',
    contact_id               TEXT REFERENCES contacts(id) ON DELETE CASCADE,
    contact_channel_id       TEXT REFERENCES contact_channels(id) ON DELETE SET NULL,
    state_id                 TEXT NOT NULL,
    state                    TEXT NOT NULL,
    integration_id           TEXT NOT NULL,
    channel_type             TEXT NOT NULL DEFAULT '',
    assistant_id             TEXT REFERENCES assistants(id) ON DELETE SET NULL,
    assistant_integration_id TEXT,
    conversation_id          TEXT,
    ai_enabled               INTEGER NOT NULL DEFAULT 0,
    admin_unseen_count       INTEGER NOT NULL DEFAULT 0,
    user_unseen_count        INTEGER NOT NULL DEFAULT 0,
    assigned_user_id         TEXT REFERENCES members(id) ON DELETE SET NULL,
    assigned_at              TEXT,
    assignee_seen_at         TEXT,
    follow_up_at             TEXT,
    csat_score               INTEGER,
    last_contact_message_at  TEXT,
    last_message_id          TEXT,
    created_at               TEXT NOT NULL,
    updated_at               TEXT NOT NULL
);
CREATE INDEX chats_inbox ON chats(org_id, updated_at DESC, id DESC);
CREATE INDEX chats_by_contact ON chats(contact_id, updated_at DESC);
CREATE INDEX chats_by_assignee ON chats(org_id, assigned_user_id, updated_at DESC);
CREATE INDEX chats_by_state ON chats(org_id, state, updated_at DESC);
CREATE INDEX chats_by_assistant ON chats(org_id, assistant_id, updated_at DESC);
CREATE INDEX chats_temporary ON chats(updated_at) WHERE temporary = 1;

CREATE TABLE chat_members (
    id                 TEXT PRIMARY KEY,
    chat_id            TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    role               TEXT NOT NULL,
    member_id          TEXT REFERENCES members(id) ON DELETE CASCADE,
    contact_channel_id TEXT REFERENCES contact_channels(id) ON DELETE CASCADE,
    created_at         TEXT NOT NULL,
    UNIQUE (chat_id, member_id),
    UNIQUE (chat_id, contact_channel_id)
);

CREATE TABLE chat_messages (
    seq                  INTEGER PRIMARY KEY,       -- insertion order, the cursor
    id                   TEXT NOT NULL UNIQUE,
    org_id               TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    chat_id              TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    role                 TEXT NOT NULL,
    model                TEXT NOT NULL,
    status               TEXT NOT NULL,
    messages             TEXT NOT NULL,             -- JSON [{role, parts}]
    tools                TEXT NOT NULL DEFAULT '[]',
    features             TEXT NOT NULL DEFAULT '{}',
    chat_member_id       TEXT REFERENCES chat_members(id) ON DELETE SET NULL,
    error                TEXT,
    broadcast_id         TEXT,
    is_broadcast_message INTEGER NOT NULL DEFAULT 0,
    usage                TEXT,
    text                 TEXT NOT NULL DEFAULT '',
    created_at           TEXT NOT NULL,
    updated_at           TEXT NOT NULL
);
CREATE INDEX chat_messages_by_chat ON chat_messages(chat_id, seq);
CREATE INDEX chat_messages_running ON chat_messages(chat_id, seq) WHERE status = 'RUNNING';

CREATE TABLE message_reactions (
    message_id TEXT NOT NULL REFERENCES chat_messages(id) ON DELETE CASCADE,
    member_id  TEXT NOT NULL,
    emoji      TEXT NOT NULL,
    PRIMARY KEY (message_id, member_id)
) WITHOUT ROWID;

CREATE TABLE chat_files (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    chat_id    TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    message_id TEXT,
    filename   TEXT NOT NULL,
    path       TEXT NOT NULL,
    mimetype   TEXT NOT NULL,
    size       INTEGER NOT NULL,
    url        TEXT NOT NULL,
    data       BLOB NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX chat_files_by_chat ON chat_files(chat_id, created_at DESC);

-- Search: message text, and per chat its title with the contact's name and channel fields.
CREATE VIRTUAL TABLE chat_message_fts USING fts5(text, chat_id UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE chat_meta_fts USING fts5(text, chat_id UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');

CREATE VIEW chat_meta_text AS
SELECT c.seq AS seq, c.id AS chat_id,
       coalesce(c.title, '') || ' ' || coalesce(ct.name, '') || ' ' || coalesce(ch.name, '') || ' ' ||
       coalesce(ch.email, '') || ' ' || coalesce(ch.phone, '') || ' ' || coalesce(ch.phone_norm, '') || ' ' ||
       coalesce(ch.username, '') AS text
FROM chats c
LEFT JOIN contacts ct ON ct.id = c.contact_id
LEFT JOIN contact_channels ch ON ch.id = c.contact_channel_id;

-- +goose StatementBegin
CREATE TRIGGER chat_messages_fts_insert AFTER INSERT ON chat_messages BEGIN
    INSERT INTO chat_message_fts(rowid, text, chat_id) VALUES (new.seq, new.text, new.chat_id);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chat_messages_fts_update AFTER UPDATE OF text ON chat_messages BEGIN
    DELETE FROM chat_message_fts WHERE rowid = old.seq;
    INSERT INTO chat_message_fts(rowid, text, chat_id) VALUES (new.seq, new.text, new.chat_id);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chat_messages_fts_delete AFTER DELETE ON chat_messages BEGIN
    DELETE FROM chat_message_fts WHERE rowid = old.seq;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chats_fts_insert AFTER INSERT ON chats BEGIN
    INSERT INTO chat_meta_fts(rowid, text, chat_id) SELECT seq, text, chat_id FROM chat_meta_text WHERE chat_id = new.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chats_fts_update AFTER UPDATE OF title, contact_id, contact_channel_id ON chats BEGIN
    DELETE FROM chat_meta_fts WHERE rowid = old.seq;
    INSERT INTO chat_meta_fts(rowid, text, chat_id) SELECT seq, text, chat_id FROM chat_meta_text WHERE chat_id = new.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chats_fts_delete AFTER DELETE ON chats BEGIN
    DELETE FROM chat_meta_fts WHERE rowid = old.seq;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER contacts_chat_fts AFTER UPDATE OF name ON contacts BEGIN
    DELETE FROM chat_meta_fts WHERE rowid IN (SELECT seq FROM chats WHERE contact_id = new.id);
    INSERT INTO chat_meta_fts(rowid, text, chat_id)
        SELECT seq, text, chat_id FROM chat_meta_text WHERE chat_id IN (SELECT id FROM chats WHERE contact_id = new.id);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER channels_chat_fts AFTER UPDATE OF name, email, phone, username ON contact_channels BEGIN
    DELETE FROM chat_meta_fts WHERE rowid IN (SELECT seq FROM chats WHERE contact_channel_id = new.id);
    INSERT INTO chat_meta_fts(rowid, text, chat_id)
        SELECT seq, text, chat_id FROM chat_meta_text WHERE chat_id IN (SELECT id FROM chats WHERE contact_channel_id = new.id);
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER channels_chat_fts;
DROP TRIGGER contacts_chat_fts;
DROP TRIGGER chats_fts_delete;
DROP TRIGGER chats_fts_update;
DROP TRIGGER chats_fts_insert;
DROP TRIGGER chat_messages_fts_delete;
DROP TRIGGER chat_messages_fts_update;
DROP TRIGGER chat_messages_fts_insert;
DROP VIEW chat_meta_text;
DROP TABLE chat_meta_fts;
DROP TABLE chat_message_fts;
DROP TABLE chat_files;
DROP TABLE message_reactions;
DROP TABLE chat_messages;
DROP TABLE chat_members;
DROP TABLE chats;
DROP TABLE assistants;
