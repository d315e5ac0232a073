-- +goose Up
-- The purge finds its boundary by seq (sqlite/streamevents.go): events are written in seq
-- order by one writer, so the first event young enough to keep ends the run of old ones, and
-- the walk to it costs what the purge deletes anyway. The index on created_at was kept up by
-- every write that streams something, for a purge that runs every few minutes.
DROP INDEX stream_events_created;

-- +goose Down
CREATE INDEX stream_events_created ON stream_events (created_at);
