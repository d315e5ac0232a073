-- +goose Up
-- Assistant automation (app/automation.go). follow_ups counts the follow-ups written since
-- the contact last spoke (a contact message sets it back to 0); csat_pending is set when the
-- closed chat's contact was asked for a rating and not yet answered. follow_up on a run
-- adds the follow-up instruction to its prompt.
ALTER TABLE chats ADD COLUMN follow_ups INTEGER NOT NULL DEFAULT 0;
ALTER TABLE chats ADD COLUMN csat_pending INTEGER NOT NULL DEFAULT 0;
ALTER TABLE assistant_runs ADD COLUMN follow_up INTEGER NOT NULL DEFAULT 0;
-- The janitor's follow-up pass reads chats by follow_up_at.
CREATE INDEX chats_follow_up_due ON chats(follow_up_at) WHERE follow_up_at IS NOT NULL;

-- +goose Down
DROP INDEX chats_follow_up_due;
ALTER TABLE assistant_runs DROP COLUMN follow_up;
ALTER TABLE chats DROP COLUMN csat_pending;
ALTER TABLE chats DROP COLUMN follow_ups;
