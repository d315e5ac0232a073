-- +goose Up
-- Claims take work round-robin across organizations: they walk each sending broadcast's
-- recipients and each organization's pending knowledge in order and stop after a few,
-- instead of taking the oldest of all (which let one organization's backlog go first).
CREATE INDEX recipients_claim ON broadcast_recipients(broadcast_id, created_at)
    WHERE status = 'SENDING' AND integration_id <> 'custom';
CREATE INDEX knowledge_claim ON knowledge_contents(org_id, created_at, id)
    WHERE parent_content_id IS NULL AND status IN ('PENDING', 'PROCESSING');

-- +goose Down
DROP INDEX knowledge_claim;
DROP INDEX recipients_claim;
