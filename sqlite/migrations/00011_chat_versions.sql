-- +goose Up
-- A version per chat, for the cache of rendered chats (sqlite/chatcache.go): triggers give a
-- chat a new version on every write that changes how it reads (its row, its members, its
-- messages and their reactions, and the contact, channel, member and assistant rows shown in
-- it). Versions come from one counter ('#chat' in inbox_versions), which starts at a random
-- base like the epoch of 00010, so a version is never given twice, even across a migrate
-- down and up. Deletes of contacts, channels, members and assistants reach chats through
-- their foreign keys (chat members deleted, chat columns set to null), whose triggers stamp.
-- Every lookup below runs on an index (a chat's assistant is of its own organization).
CREATE TABLE chat_versions (
    chat_seq INTEGER PRIMARY KEY,   -- chats.seq
    version  INTEGER NOT NULL
);
INSERT INTO inbox_versions (scope, version) VALUES ('#chat', random() & 4611686018427387903)
    ON CONFLICT (scope) DO UPDATE SET version = excluded.version;
INSERT INTO chat_versions (chat_seq, version) SELECT seq, (SELECT version FROM inbox_versions WHERE scope = '#chat') FROM chats;

-- +goose StatementBegin
CREATE TRIGGER chat_version_chats_insert AFTER INSERT ON chats BEGIN
    UPDATE inbox_versions SET version = version + 1 WHERE scope = '#chat';
    INSERT INTO chat_versions (chat_seq, version)
        SELECT seq, (SELECT version FROM inbox_versions WHERE scope = '#chat') FROM (SELECT NEW.seq AS seq) WHERE true
        ON CONFLICT (chat_seq) DO UPDATE SET version = excluded.version;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER chat_version_chats_update AFTER UPDATE ON chats BEGIN
    UPDATE inbox_versions SET version = version + 1 WHERE scope = '#chat';
    INSERT INTO chat_versions (chat_seq, version)
        SELECT seq, (SELECT version FROM inbox_versions WHERE scope = '#chat') FROM (SELECT NEW.seq AS seq) WHERE true
        ON CONFLICT (chat_seq) DO UPDATE SET version = excluded.version;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER chat_version_chats_delete AFTER DELETE ON chats BEGIN
    DELETE FROM chat_versions WHERE chat_seq = OLD.seq;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER chat_version_chat_members_insert AFTER INSERT ON chat_members BEGIN
    UPDATE inbox_versions SET version = version + 1 WHERE scope = '#chat';
    INSERT INTO chat_versions (chat_seq, version)
        SELECT seq, (SELECT version FROM inbox_versions WHERE scope = '#chat') FROM (SELECT seq FROM chats WHERE id = NEW.chat_id) WHERE true
        ON CONFLICT (chat_seq) DO UPDATE SET version = excluded.version;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER chat_version_messages_insert AFTER INSERT ON chat_messages BEGIN
    UPDATE inbox_versions SET version = version + 1 WHERE scope = '#chat';
    INSERT INTO chat_versions (chat_seq, version)
        SELECT seq, (SELECT version FROM inbox_versions WHERE scope = '#chat') FROM (SELECT seq FROM chats WHERE id = NEW.chat_id) WHERE true
        ON CONFLICT (chat_seq) DO UPDATE SET version = excluded.version;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER chat_version_reactions_insert AFTER INSERT ON message_reactions BEGIN
    UPDATE inbox_versions SET version = version + 1 WHERE scope = '#chat';
    INSERT INTO chat_versions (chat_seq, version)
        SELECT seq, (SELECT version FROM inbox_versions WHERE scope = '#chat') FROM (SELECT c.seq FROM chats c JOIN chat_messages m ON m.chat_id = c.id WHERE m.id = NEW.message_id) WHERE true
        ON CONFLICT (chat_seq) DO UPDATE SET version = excluded.version;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER chat_version_chat_members_update AFTER UPDATE ON chat_members BEGIN
    UPDATE inbox_versions SET version = version + 1 WHERE scope = '#chat';
    INSERT INTO chat_versions (chat_seq, version)
        SELECT seq, (SELECT version FROM inbox_versions WHERE scope = '#chat') FROM (SELECT seq FROM chats WHERE id = NEW.chat_id) WHERE true
        ON CONFLICT (chat_seq) DO UPDATE SET version = excluded.version;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER chat_version_messages_update AFTER UPDATE ON chat_messages BEGIN
    UPDATE inbox_versions SET version = version + 1 WHERE scope = '#chat';
    INSERT INTO chat_versions (chat_seq, version)
        SELECT seq, (SELECT version FROM inbox_versions WHERE scope = '#chat') FROM (SELECT seq FROM chats WHERE id = NEW.chat_id) WHERE true
        ON CONFLICT (chat_seq) DO UPDATE SET version = excluded.version;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER chat_version_reactions_update AFTER UPDATE ON message_reactions BEGIN
    UPDATE inbox_versions SET version = version + 1 WHERE scope = '#chat';
    INSERT INTO chat_versions (chat_seq, version)
        SELECT seq, (SELECT version FROM inbox_versions WHERE scope = '#chat') FROM (SELECT c.seq FROM chats c JOIN chat_messages m ON m.chat_id = c.id WHERE m.id = NEW.message_id) WHERE true
        ON CONFLICT (chat_seq) DO UPDATE SET version = excluded.version;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER chat_version_chat_members_delete AFTER DELETE ON chat_members BEGIN
    UPDATE inbox_versions SET version = version + 1 WHERE scope = '#chat';
    INSERT INTO chat_versions (chat_seq, version)
        SELECT seq, (SELECT version FROM inbox_versions WHERE scope = '#chat') FROM (SELECT seq FROM chats WHERE id = OLD.chat_id) WHERE true
        ON CONFLICT (chat_seq) DO UPDATE SET version = excluded.version;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER chat_version_messages_delete AFTER DELETE ON chat_messages BEGIN
    UPDATE inbox_versions SET version = version + 1 WHERE scope = '#chat';
    INSERT INTO chat_versions (chat_seq, version)
        SELECT seq, (SELECT version FROM inbox_versions WHERE scope = '#chat') FROM (SELECT seq FROM chats WHERE id = OLD.chat_id) WHERE true
        ON CONFLICT (chat_seq) DO UPDATE SET version = excluded.version;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER chat_version_reactions_delete AFTER DELETE ON message_reactions BEGIN
    UPDATE inbox_versions SET version = version + 1 WHERE scope = '#chat';
    INSERT INTO chat_versions (chat_seq, version)
        SELECT seq, (SELECT version FROM inbox_versions WHERE scope = '#chat') FROM (SELECT c.seq FROM chats c JOIN chat_messages m ON m.chat_id = c.id WHERE m.id = OLD.message_id) WHERE true
        ON CONFLICT (chat_seq) DO UPDATE SET version = excluded.version;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER chat_version_contacts_update AFTER UPDATE OF name, blocked, is_admin ON contacts
    WHEN EXISTS (SELECT 1 FROM chats WHERE contact_id = NEW.id)
    OR EXISTS (SELECT 1 FROM contact_channels ch JOIN chat_members cm ON cm.contact_channel_id = ch.id WHERE ch.contact_id = NEW.id) BEGIN
    UPDATE inbox_versions SET version = version + 1 WHERE scope = '#chat';
    INSERT INTO chat_versions (chat_seq, version)
        SELECT seq, (SELECT version FROM inbox_versions WHERE scope = '#chat') FROM (SELECT c.seq FROM chats c WHERE c.contact_id = NEW.id UNION SELECT c.seq FROM contact_channels ch JOIN chat_members cm ON cm.contact_channel_id = ch.id JOIN chats c ON c.id = cm.chat_id WHERE ch.contact_id = NEW.id) WHERE true
        ON CONFLICT (chat_seq) DO UPDATE SET version = excluded.version;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER chat_version_channels_update AFTER UPDATE OF type, user_id, avatar, name, username, email, phone, country, agent, ip, language, contact_id ON contact_channels
    WHEN EXISTS (SELECT 1 FROM chat_members WHERE contact_channel_id = NEW.id)
    OR EXISTS (SELECT 1 FROM chats WHERE contact_channel_id = NEW.id) BEGIN
    UPDATE inbox_versions SET version = version + 1 WHERE scope = '#chat';
    INSERT INTO chat_versions (chat_seq, version)
        SELECT seq, (SELECT version FROM inbox_versions WHERE scope = '#chat') FROM (SELECT c.seq FROM chats c WHERE c.contact_channel_id = NEW.id UNION SELECT c.seq FROM chat_members cm JOIN chats c ON c.id = cm.chat_id WHERE cm.contact_channel_id = NEW.id) WHERE true
        ON CONFLICT (chat_seq) DO UPDATE SET version = excluded.version;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER chat_version_members_update AFTER UPDATE OF name, email, avatar ON members BEGIN
    UPDATE inbox_versions SET version = version + 1 WHERE scope = '#chat';
    INSERT INTO chat_versions (chat_seq, version)
        SELECT seq, (SELECT version FROM inbox_versions WHERE scope = '#chat') FROM (SELECT c.seq FROM chats c WHERE c.assigned_user_id = NEW.id UNION SELECT c.seq FROM chat_members cm JOIN chats c ON c.id = cm.chat_id WHERE cm.member_id = NEW.id) WHERE true
        ON CONFLICT (chat_seq) DO UPDATE SET version = excluded.version;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER chat_version_assistants_update AFTER UPDATE ON assistants BEGIN
    UPDATE inbox_versions SET version = version + 1 WHERE scope = '#chat';
    INSERT INTO chat_versions (chat_seq, version)
        SELECT seq, (SELECT version FROM inbox_versions WHERE scope = '#chat') FROM (SELECT seq FROM chats WHERE org_id = NEW.org_id AND assistant_id = NEW.id) WHERE true
        ON CONFLICT (chat_seq) DO UPDATE SET version = excluded.version;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER chat_version_assistants_update;
DROP TRIGGER chat_version_members_update;
DROP TRIGGER chat_version_channels_update;
DROP TRIGGER chat_version_contacts_update;
DROP TRIGGER chat_version_reactions_delete;
DROP TRIGGER chat_version_messages_delete;
DROP TRIGGER chat_version_chat_members_delete;
DROP TRIGGER chat_version_reactions_update;
DROP TRIGGER chat_version_messages_update;
DROP TRIGGER chat_version_chat_members_update;
DROP TRIGGER chat_version_reactions_insert;
DROP TRIGGER chat_version_messages_insert;
DROP TRIGGER chat_version_chat_members_insert;
DROP TRIGGER chat_version_chats_delete;
DROP TRIGGER chat_version_chats_update;
DROP TRIGGER chat_version_chats_insert;
DROP TABLE chat_versions;
DELETE FROM inbox_versions WHERE scope = '#chat';
