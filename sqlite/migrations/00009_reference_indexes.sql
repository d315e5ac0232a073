-- +goose Up
-- Deleting or changing a channel or a member follows these references; without the indexes
-- each change scanned the chats and chat members.
CREATE INDEX chats_by_channel ON chats(contact_channel_id);
CREATE INDEX chats_by_assigned_user ON chats(assigned_user_id);
CREATE INDEX chat_members_by_channel ON chat_members(contact_channel_id);
CREATE INDEX chat_members_by_member ON chat_members(member_id);

-- +goose Down
DROP INDEX chat_members_by_member;
DROP INDEX chat_members_by_channel;
DROP INDEX chats_by_assigned_user;
DROP INDEX chats_by_channel;
