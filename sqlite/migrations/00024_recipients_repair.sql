-- +goose Up
-- The repair of broadcast recipients left pointing at a contact that a merge or a deletion
-- removed (before recipients followed their contact), again. It was added to 00015 after
-- 00015 had shipped as 00015_oauth_states_used.sql, so a database that ran the first 00015
-- never got it: goose runs a version once, whatever its file holds later. Migrations are
-- frozen since (sqlite/migrations_pin_internal_test.go); this one repeats the repair for those
-- databases. It is idempotent: it touches only recipients whose contact is gone, so on a
-- database that 00015 repaired already it changes nothing.
UPDATE broadcast_recipients
SET contact_id = (SELECT ch.contact_id FROM contact_channels ch WHERE ch.id = broadcast_recipients.channel_id)
WHERE contact_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM contacts c WHERE c.id = broadcast_recipients.contact_id);

-- +goose Down
-- Nothing to undo: the old, dangling contact ids are not worth restoring.
SELECT 1;
