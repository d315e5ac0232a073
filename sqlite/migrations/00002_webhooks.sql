-- +goose Up
CREATE TABLE webhook_endpoints (
    id                   TEXT PRIMARY KEY,
    org_id               TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    name                 TEXT NOT NULL,
    url                  TEXT NOT NULL,
    events               TEXT NOT NULL,             -- JSON array of event types
    enabled              INTEGER NOT NULL DEFAULT 1,
    secret               TEXT NOT NULL,             -- sealed with secrets.key
    disabled_reason      TEXT,
    consecutive_failures INTEGER NOT NULL DEFAULT 0,
    created_at           TEXT NOT NULL,
    updated_at           TEXT NOT NULL
);
CREATE INDEX webhook_endpoints_by_org ON webhook_endpoints(org_id, created_at, id);

-- The outbox: an event row is written in the transaction of the change that caused it.
CREATE TABLE events (
    id         TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    type       TEXT NOT NULL,
    body       TEXT NOT NULL,                       -- the envelope exactly as sent
    created_at TEXT NOT NULL
);
CREATE INDEX events_by_created ON events(created_at);

CREATE TABLE webhook_deliveries (
    id              TEXT PRIMARY KEY,
    org_id          TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    webhook_id      TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
    event_id        TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
    event_type      TEXT NOT NULL,
    status          TEXT NOT NULL,                  -- PENDING, SUCCEEDED, FAILED
    attempts_count  INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT,
    lease_until     TEXT,                           -- set while a worker holds it
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE status = 'PENDING';
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries(webhook_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries(event_id);
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries(updated_at) WHERE status <> 'PENDING';

CREATE TABLE webhook_attempts (
    delivery_id   TEXT NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
    number        INTEGER NOT NULL,
    status        TEXT NOT NULL,                    -- succeeded, failed
    response_code INTEGER,
    response_body TEXT NOT NULL DEFAULT '',
    duration_ms   REAL NOT NULL,
    error         TEXT,
    created_at    TEXT NOT NULL,
    PRIMARY KEY (delivery_id, number)
);

-- +goose Down
DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
DROP TABLE events;
DROP TABLE webhook_endpoints;
