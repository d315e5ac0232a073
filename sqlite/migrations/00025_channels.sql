-- +goose Up
-- Assistant integrations: one assistant deployed on one channel (DESIGN.md, "Channels").
-- secrets is the sealed JSON map (app/secret), secret_keys its names, the only part answered.
CREATE TABLE assistant_integrations (
    id             TEXT PRIMARY KEY,
    org_id         TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    assistant_id   TEXT NOT NULL REFERENCES assistants(id) ON DELETE CASCADE,
    integration_id TEXT NOT NULL,
    name           TEXT NOT NULL,
    enabled        INTEGER NOT NULL DEFAULT 1,
    config         TEXT NOT NULL DEFAULT '{}',
    secrets        TEXT NOT NULL,
    secret_keys    TEXT NOT NULL DEFAULT '[]',
    status         TEXT NOT NULL DEFAULT 'ACTIVE',
    error          TEXT,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL
);
CREATE INDEX assistant_integrations_by_assistant ON assistant_integrations(org_id, assistant_id, created_at, id);

-- A message's delivery to the contact, as answered: {status, error, external_id, updated_at}.
ALTER TABLE chat_messages ADD COLUMN delivery TEXT;

-- The delivery worker's queue: one row per message still to send (PENDING); the row goes
-- when the message is sent or has failed for good.
CREATE TABLE message_deliveries (
    message_id      TEXT PRIMARY KEY REFERENCES chat_messages(id) ON DELETE CASCADE,
    org_id          TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    chat_id         TEXT NOT NULL,
    integration_id  TEXT NOT NULL,
    asi_id          TEXT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    lease_until     TEXT,
    created_at      TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX message_deliveries_due ON message_deliveries(next_attempt_at);
CREATE INDEX message_deliveries_claim ON message_deliveries(org_id, next_attempt_at, message_id);

-- Widget visitor sessions: the token is kept as its SHA-256 only. A verified visitor's
-- sessions share the contact of its user_id.
CREATE TABLE widget_sessions (
    id           TEXT PRIMARY KEY,
    token_hash   TEXT NOT NULL UNIQUE,
    org_id       TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    asi_id       TEXT NOT NULL REFERENCES assistant_integrations(id) ON DELETE CASCADE,
    contact_id   TEXT NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
    channel_id   TEXT NOT NULL REFERENCES contact_channels(id) ON DELETE CASCADE,
    user_id      TEXT NOT NULL DEFAULT '',
    created_at   TEXT NOT NULL
);
CREATE INDEX widget_sessions_by_contact ON widget_sessions(contact_id);

-- A chat member may carry the widget session it writes from (the spec's session {id}).
ALTER TABLE chat_members ADD COLUMN session_id TEXT;

-- +goose Down
ALTER TABLE chat_members DROP COLUMN session_id;
DROP TABLE widget_sessions;
DROP TABLE message_deliveries;
ALTER TABLE chat_messages DROP COLUMN delivery;
DROP TABLE assistant_integrations;
