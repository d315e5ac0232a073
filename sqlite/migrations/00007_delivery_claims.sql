-- +goose Up
-- Claims walk each endpoint's due deliveries in order and stop after a few, instead of
-- ranking the whole backlog.
CREATE INDEX webhook_deliveries_claim ON webhook_deliveries(webhook_id, next_attempt_at, id) WHERE status = 'PENDING';

-- +goose Down
DROP INDEX webhook_deliveries_claim;
