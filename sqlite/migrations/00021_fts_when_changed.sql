-- +goose Up
-- The full-text triggers on chats and chat messages rewrite their index rows only when an
-- indexed column changed. An UPDATE ... OF trigger fires whenever the column is in the SET
-- list, and UpdateChat sets every column: each chat write (a message's counters, a run's
-- status) deleted and re-inserted the chat's meta row, three times per assistant run
-- (bench/runs). A run's final write whose text a flush already stored did the same for
-- the message.
DROP TRIGGER chats_fts_update;
-- +goose StatementBegin
CREATE TRIGGER chats_fts_update AFTER UPDATE OF title, contact_id, contact_channel_id ON chats
WHEN old.title IS NOT new.title OR old.contact_id IS NOT new.contact_id OR old.contact_channel_id IS NOT new.contact_channel_id
BEGIN
    DELETE FROM chat_meta_fts WHERE rowid = old.seq;
    INSERT INTO chat_meta_fts(rowid, text, chat_id) SELECT seq, text, chat_id FROM chat_meta_text WHERE chat_id = new.id;
END;
-- +goose StatementEnd
DROP TRIGGER chat_messages_fts_update;
-- +goose StatementBegin
CREATE TRIGGER chat_messages_fts_update AFTER UPDATE OF text ON chat_messages
WHEN old.text IS NOT new.text
BEGIN
    DELETE FROM chat_message_fts WHERE rowid = (SELECT (c.seq << 32) | old.seq FROM chats c WHERE c.id = old.chat_id);
    INSERT INTO chat_message_fts(rowid, text, chat_id)
        SELECT (c.seq << 32) | new.seq, new.text, new.chat_id FROM chats c WHERE c.id = new.chat_id;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER chat_messages_fts_update;
-- +goose StatementBegin
CREATE TRIGGER chat_messages_fts_update AFTER UPDATE OF text ON chat_messages BEGIN
    DELETE FROM chat_message_fts WHERE rowid = (SELECT (c.seq << 32) | old.seq FROM chats c WHERE c.id = old.chat_id);
    INSERT INTO chat_message_fts(rowid, text, chat_id)
        SELECT (c.seq << 32) | new.seq, new.text, new.chat_id FROM chats c WHERE c.id = new.chat_id;
END;
-- +goose StatementEnd
DROP TRIGGER chats_fts_update;
-- +goose StatementBegin
CREATE TRIGGER chats_fts_update AFTER UPDATE OF title, contact_id, contact_channel_id ON chats BEGIN
    DELETE FROM chat_meta_fts WHERE rowid = old.seq;
    INSERT INTO chat_meta_fts(rowid, text, chat_id) SELECT seq, text, chat_id FROM chat_meta_text WHERE chat_id = new.id;
END;
-- +goose StatementEnd
