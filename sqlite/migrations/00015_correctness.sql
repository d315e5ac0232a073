-- +goose Up
-- OAuth states that a validation has spent. A state is signed, not stored, when it is
-- issued; this table is what makes it single-use. A row can go once its state has expired
-- (then the signature check refuses it anyway): each use deletes the expired rows.
CREATE TABLE oauth_states_used (
    state      TEXT PRIMARY KEY,   -- the signed payload: org|type|issued|nonce
    expires_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX oauth_states_used_by_expiry ON oauth_states_used(expires_at);

-- Broadcast recipients now follow their contact (a merge moves them, a deletion unlinks
-- them). Recipients of contacts merged or deleted before that point at a contact that is
-- gone: give them the contact that holds their channel now, or none.
UPDATE broadcast_recipients
SET contact_id = (SELECT ch.contact_id FROM contact_channels ch WHERE ch.id = broadcast_recipients.channel_id)
WHERE contact_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM contacts c WHERE c.id = broadcast_recipients.contact_id);

-- +goose Down
-- (The recipients' contacts stay as repaired: the old, dangling ids are not worth restoring.)
DROP TABLE oauth_states_used;
