-- +goose Up
-- Inbox performance (see bench/inbox). Two changes that keep behaviour:
--
-- 1. The message search index is keyed by chat: a message's rowid in chat_message_fts is
--    (chat seq << 32) | message seq, so `rowid >> 32` names the chat straight from the
--    full-text index. Before, every hit cost a lookup of its chat_id in the FTS content table
--    (about 10,000 random reads for a word in 1% of a million messages). Limits: 2^31 chats
--    and 2^32 messages per database.
-- 2. Covering indexes hold every column the inbox filters on, so that counting and paging
--    read index entries in order instead of one table row per candidate chat. They replace
--    chats_inbox and chats_by_state, of which they are extensions.

DROP TRIGGER chat_messages_fts_insert;
DROP TRIGGER chat_messages_fts_update;
DROP TRIGGER chat_messages_fts_delete;
DROP TABLE chat_message_fts;
CREATE VIRTUAL TABLE chat_message_fts USING fts5(text, chat_id UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');
INSERT INTO chat_message_fts(rowid, text, chat_id)
    SELECT (c.seq << 32) | m.seq, m.text, m.chat_id FROM chat_messages m JOIN chats c ON c.id = m.chat_id;

-- +goose StatementBegin
CREATE TRIGGER chat_messages_fts_insert AFTER INSERT ON chat_messages BEGIN
    INSERT INTO chat_message_fts(rowid, text, chat_id)
        SELECT (c.seq << 32) | new.seq, new.text, new.chat_id FROM chats c WHERE c.id = new.chat_id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chat_messages_fts_update AFTER UPDATE OF text ON chat_messages BEGIN
    DELETE FROM chat_message_fts WHERE rowid = (SELECT (c.seq << 32) | old.seq FROM chats c WHERE c.id = old.chat_id);
    INSERT INTO chat_message_fts(rowid, text, chat_id)
        SELECT (c.seq << 32) | new.seq, new.text, new.chat_id FROM chats c WHERE c.id = new.chat_id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chat_messages_fts_delete AFTER DELETE ON chat_messages BEGIN
    DELETE FROM chat_message_fts WHERE rowid = (SELECT (c.seq << 32) | old.seq FROM chats c WHERE c.id = old.chat_id);
END;
-- +goose StatementEnd
-- When a chat goes, its messages may be deleted (by the cascade) after the chat row, when
-- the message trigger can no longer find the chat's seq: clear the chat's whole rowid range
-- here, so that a later chat given the same seq cannot inherit its entries.
-- +goose StatementBegin
CREATE TRIGGER chats_message_fts_delete AFTER DELETE ON chats BEGIN
    DELETE FROM chat_message_fts WHERE rowid BETWEEN (old.seq << 32) AND ((old.seq << 32) | 4294967295);
END;
-- +goose StatementEnd

DROP INDEX chats_inbox;
DROP INDEX chats_by_state;
-- Every chat of an organization in inbox order, with every filter column.
CREATE INDEX chats_inbox_all ON chats(org_id, updated_at DESC, id DESC, seq, state, assigned_user_id, status,
    integration_id, ai_enabled, admin_unseen_count, csat_score, contact_id, assistant_id, assistant_integration_id,
    conversation_id);
-- The inbox's usual views (a state, an assignee or none) as one range each, in inbox order.
CREATE INDEX chats_inbox_by_state ON chats(org_id, state, assigned_user_id, updated_at DESC, id DESC, seq, status,
    integration_id, ai_enabled, admin_unseen_count, csat_score, contact_id, assistant_id, assistant_integration_id,
    conversation_id);

-- +goose Down
DROP INDEX chats_inbox_by_state;
DROP INDEX chats_inbox_all;
CREATE INDEX chats_by_state ON chats(org_id, state, updated_at DESC);
CREATE INDEX chats_inbox ON chats(org_id, updated_at DESC, id DESC);
DROP TRIGGER chats_message_fts_delete;
DROP TRIGGER chat_messages_fts_delete;
DROP TRIGGER chat_messages_fts_update;
DROP TRIGGER chat_messages_fts_insert;
DROP TABLE chat_message_fts;
CREATE VIRTUAL TABLE chat_message_fts USING fts5(text, chat_id UNINDEXED, tokenize = 'unicode61 remove_diacritics 2');
INSERT INTO chat_message_fts(rowid, text, chat_id) SELECT seq, text, chat_id FROM chat_messages;
-- +goose StatementBegin
CREATE TRIGGER chat_messages_fts_insert AFTER INSERT ON chat_messages BEGIN
    INSERT INTO chat_message_fts(rowid, text, chat_id) VALUES (new.seq, new.text, new.chat_id);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chat_messages_fts_update AFTER UPDATE OF text ON chat_messages BEGIN
    DELETE FROM chat_message_fts WHERE rowid = old.seq;
    INSERT INTO chat_message_fts(rowid, text, chat_id) VALUES (new.seq, new.text, new.chat_id);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER chat_messages_fts_delete AFTER DELETE ON chat_messages BEGIN
    DELETE FROM chat_message_fts WHERE rowid = old.seq;
END;
-- +goose StatementEnd
