-- +goose Up
-- What messaging-app providers (Telegram, WhatsApp) POST to /hooks/{type}/{asi}: the hook
-- checks the request, stores its raw body here and answers at once; the inbound worker
-- (app/channel/inbound) claims the rows fairly across organizations, parses them and adds the
-- contacts' messages. A row goes once processed (or after its last attempt).
CREATE TABLE channel_updates (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    asi_id          TEXT NOT NULL REFERENCES assistant_integrations(id) ON DELETE CASCADE,
    integration_id  TEXT NOT NULL,
    body            BLOB NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    lease_until     TEXT,
    created_at      TEXT NOT NULL
);
CREATE INDEX channel_updates_due ON channel_updates(next_attempt_at);
CREATE INDEX channel_updates_claim ON channel_updates(org_id, next_attempt_at, id);

-- The provider's ids of what was already taken in (a Telegram update_id, a WhatsApp message
-- id): a provider that sends an update again adds nothing. Purged after a retention.
CREATE TABLE channel_seen (
    asi_id      TEXT NOT NULL REFERENCES assistant_integrations(id) ON DELETE CASCADE,
    external_id TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    PRIMARY KEY (asi_id, external_id)
) WITHOUT ROWID;
CREATE INDEX channel_seen_by_age ON channel_seen(created_at);

-- A provider's status report (delivered, read) names the sent message by the id the provider
-- gave it, kept in the message's delivery.
CREATE INDEX chat_messages_by_external_id ON chat_messages(org_id, json_extract(delivery, '$.external_id'))
    WHERE delivery IS NOT NULL;

-- +goose Down
DROP INDEX chat_messages_by_external_id;
DROP TABLE channel_seen;
DROP TABLE channel_updates;
