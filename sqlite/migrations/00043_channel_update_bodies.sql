-- +goose Up
-- The bodies of queued channel updates (a provider's POST, a mail the SMTP listener accepted),
-- apart from the rows the inbound worker leases and retries: SQLite rewrites a whole row on
-- every UPDATE, so each lease rewrote the body too (a queued 25 MiB mail: 25 MiB more into the
-- WAL and two more copies in memory for each claim). A body is written once, read once, and
-- goes with its update.
CREATE TABLE channel_update_bodies (
    update_id TEXT PRIMARY KEY REFERENCES channel_updates(id) ON DELETE CASCADE,
    body      BLOB NOT NULL
);
INSERT INTO channel_update_bodies (update_id, body) SELECT id, body FROM channel_updates;
UPDATE channel_updates SET body = x'';

-- +goose Down
UPDATE channel_updates SET body = COALESCE((SELECT body FROM channel_update_bodies WHERE update_id = channel_updates.id), x'');
DROP TABLE channel_update_bodies;
