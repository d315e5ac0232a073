-- +goose Up
CREATE TABLE domains (
    id                  TEXT PRIMARY KEY,
    org_id              TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    domain              TEXT NOT NULL,
    selector            TEXT NOT NULL,
    private_key         TEXT NOT NULL,              -- sealed with secrets.key
    dkim_tokens         TEXT NOT NULL,              -- JSON [{name, value}]
    verification_name   TEXT NOT NULL,
    verification_value  TEXT NOT NULL,
    dkim_status         TEXT NOT NULL,
    verify_error        TEXT,
    verified_at         TEXT,
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL,
    UNIQUE (org_id, domain)
);
CREATE INDEX domains_verified ON domains(domain) WHERE dkim_status = 'VERIFIED';

CREATE TABLE email_identities (
    id             TEXT PRIMARY KEY,
    org_id         TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    domain_id      TEXT NOT NULL REFERENCES domains(id) ON DELETE CASCADE,
    email          TEXT NOT NULL,
    name           TEXT,
    is_default     INTEGER NOT NULL DEFAULT 0,
    click_tracking INTEGER NOT NULL DEFAULT 0,
    open_tracking  INTEGER NOT NULL DEFAULT 0,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL,
    UNIQUE (org_id, email)
);
CREATE UNIQUE INDEX email_identities_one_default ON email_identities(org_id) WHERE is_default = 1;

CREATE TABLE broadcasts (
    id             TEXT PRIMARY KEY,
    org_id         TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name           TEXT NOT NULL,
    integration_id TEXT NOT NULL,
    identity_id    TEXT,
    subject        TEXT NOT NULL DEFAULT '',
    text           TEXT NOT NULL DEFAULT '',
    html           TEXT NOT NULL DEFAULT '',
    segment_ids    TEXT NOT NULL DEFAULT '[]',
    contact_ids    TEXT NOT NULL DEFAULT '[]',
    status         TEXT NOT NULL,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL
);
CREATE INDEX broadcasts_by_org ON broadcasts(org_id, created_at DESC, id DESC);
CREATE INDEX broadcasts_sending ON broadcasts(status) WHERE status = 'SENDING';

CREATE TABLE broadcast_recipients (
    id                  TEXT PRIMARY KEY,
    org_id              TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    broadcast_id        TEXT NOT NULL REFERENCES broadcasts(id) ON DELETE CASCADE,
    contact_id          TEXT,                       -- kept when the contact goes: the record stays
    channel_id          TEXT,
    integration_id      TEXT NOT NULL,
    user_id             TEXT,
    name                TEXT,
    username            TEXT,
    phone               TEXT,
    email               TEXT,
    status              TEXT NOT NULL,
    is_skipped_at       TEXT,
    is_failed_at        TEXT,
    is_bounced_at       TEXT,
    is_sent_at          TEXT,
    is_delivered_at     TEXT,
    is_complained_at    TEXT,
    is_unsubscribed_at  TEXT,
    is_opened_at        TEXT,
    is_played_at        TEXT,
    error_message       TEXT,
    external_message_id TEXT,
    click_count         INTEGER NOT NULL DEFAULT 0,
    last_clicked_at     TEXT,
    lease_until         TEXT,
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL
);
CREATE INDEX recipients_by_org_created ON broadcast_recipients(org_id, created_at, id);
CREATE INDEX recipients_by_org_updated ON broadcast_recipients(org_id, updated_at, id);
CREATE INDEX recipients_by_broadcast ON broadcast_recipients(broadcast_id, status);
CREATE INDEX recipients_sending ON broadcast_recipients(created_at) WHERE status = 'SENDING' AND integration_id <> 'custom';
CREATE INDEX recipients_by_contact ON broadcast_recipients(contact_id);

CREATE TABLE suppressions (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    email      TEXT NOT NULL,
    reason     TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (org_id, email)
);

-- +goose Down
DROP TABLE suppressions;
DROP TABLE broadcast_recipients;
DROP TABLE broadcasts;
DROP TABLE email_identities;
DROP TABLE domains;
