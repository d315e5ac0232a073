-- +goose Up
-- The live streams' outbox (app/streamevents.go): every change a stream shows is written here
-- in the transaction that makes it, so a watcher never sees what rolled back, and seq (one
-- writer, so commit order) is the SSE id a client resumes from with Last-Event-ID. Rows are
-- purged after events.stream_retention. chat_id is null for organization-level events;
-- message_id is set on message events, so a delta's id can name its message.created.
CREATE TABLE stream_events (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    org_id     TEXT NOT NULL,
    chat_id    TEXT,
    message_id TEXT,
    type       TEXT NOT NULL,
    area       TEXT NOT NULL,
    data       TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX stream_events_org ON stream_events (org_id, seq);
CREATE INDEX stream_events_chat ON stream_events (chat_id, seq) WHERE chat_id IS NOT NULL;
CREATE INDEX stream_events_message ON stream_events (message_id) WHERE message_id IS NOT NULL;
CREATE INDEX stream_events_created ON stream_events (created_at);

-- +goose Down
DROP TABLE stream_events;
