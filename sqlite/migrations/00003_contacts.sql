-- +goose Up
CREATE TABLE contacts (
    id                   TEXT PRIMARY KEY,
    org_id               TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name                 TEXT NOT NULL,
    blocked              INTEGER NOT NULL DEFAULT 0,
    unsubscribed         INTEGER NOT NULL DEFAULT 0,
    is_admin             INTEGER NOT NULL DEFAULT 0,
    blocked_at           TEXT,
    unsubscribed_at      TEXT,
    unsubscribe_reason   TEXT,
    unsubscribe_feedback TEXT,
    created_at           TEXT NOT NULL,
    updated_at           TEXT NOT NULL
);
CREATE INDEX contacts_by_org ON contacts(org_id, created_at, id);

CREATE TABLE contact_channels (
    id            TEXT PRIMARY KEY,
    org_id        TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    contact_id    TEXT NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
    type          TEXT NOT NULL,
    user_id       TEXT NOT NULL DEFAULT '',
    avatar        TEXT NOT NULL DEFAULT '',
    name          TEXT NOT NULL DEFAULT '',
    username      TEXT NOT NULL DEFAULT '',
    email         TEXT NOT NULL DEFAULT '',
    phone         TEXT NOT NULL DEFAULT '',
    country       TEXT NOT NULL DEFAULT '',
    agent         TEXT NOT NULL DEFAULT '',
    ip            TEXT NOT NULL DEFAULT '',
    language      TEXT NOT NULL DEFAULT '',
    platform_data TEXT NOT NULL DEFAULT '{}',
    email_norm    TEXT NOT NULL DEFAULT '',           -- lower(email), for matching
    phone_norm    TEXT NOT NULL DEFAULT '',           -- digits only, for matching
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);
CREATE INDEX contact_channels_by_contact ON contact_channels(contact_id, created_at, id);
CREATE INDEX contact_channels_by_user ON contact_channels(org_id, user_id) WHERE user_id <> '';
CREATE INDEX contact_channels_by_email ON contact_channels(org_id, email_norm) WHERE email_norm <> '';
CREATE INDEX contact_channels_by_phone ON contact_channels(org_id, phone_norm) WHERE phone_norm <> '';

CREATE TABLE segments (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    color      TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX segments_by_org ON segments(org_id, name, id);

CREATE TABLE segment_members (
    segment_id TEXT NOT NULL REFERENCES segments(id) ON DELETE CASCADE,
    contact_id TEXT NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
    added_at   TEXT NOT NULL,
    PRIMARY KEY (segment_id, contact_id)
) WITHOUT ROWID;
CREATE INDEX segment_members_by_contact ON segment_members(contact_id);

CREATE TABLE contact_notes (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    contact_id TEXT NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
    author_id  TEXT NOT NULL,                          -- the member; kept if the member goes
    content    TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX contact_notes_by_contact ON contact_notes(contact_id, created_at DESC, id DESC);

CREATE TABLE contact_memories (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    contact_id TEXT NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
    user_id    TEXT NOT NULL,
    type       TEXT NOT NULL,
    importance REAL NOT NULL,
    content    TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX contact_memories_ranked ON contact_memories(contact_id, importance DESC, created_at DESC, id DESC);

-- +goose Down
DROP TABLE contact_memories;
DROP TABLE contact_notes;
DROP TABLE segment_members;
DROP TABLE segments;
DROP TABLE contact_channels;
DROP TABLE contacts;
