-- +goose Up
-- Inbox answers are cached in memory (sqlite/inboxcache.go) under a version that every write
-- able to change one bumps, from these triggers, so that no write path (the server's, a CLI
-- command's, a cascade's) can forget to. A reader compares the sum of its organization's
-- version, the global one ('*') and the epoch with the cached entry's, inside its own
-- snapshot: they only grow, so a different sum is a different state and an equal sum the same.
-- Members and assistants bump '*': a member can appear in the chats of other organizations
-- of the tree. Rows are never deleted (an org id is never reused), so a sum never repeats.
-- Contacts and channels count only when in a chat (a contact import touches thousands that
-- are not), and only the columns shown. Segment membership is the exception to triggers:
-- a per-row trigger doubled the cost of adding 50,000 imported contacts to a segment, so
-- the three statements that change it (sqlite/segments.go, sqlite/contacts.go) bump the
-- organization once each.
-- Deleting a segment bumps its organization from a trigger (its members go by the cascade).
CREATE TABLE inbox_versions (
    scope   TEXT PRIMARY KEY,   -- an organization id, '*', or '#epoch'
    version INTEGER NOT NULL
) WITHOUT ROWID;
-- A random base under every sum, never bumped: if this table is ever dropped and created
-- again (migrate down and up beside a running server), sums do not start again from values
-- a cache already holds answers for.
INSERT INTO inbox_versions (scope, version) VALUES ('#epoch', random() & 4611686018427387903);

-- +goose StatementBegin
CREATE TRIGGER inbox_version_chats_insert AFTER INSERT ON chats BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES (NEW.org_id, 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inbox_version_messages_insert AFTER INSERT ON chat_messages BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES (NEW.org_id, 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inbox_version_chat_members_insert AFTER INSERT ON chat_members BEGIN
    INSERT INTO inbox_versions (scope, version) SELECT org_id, 1 FROM chats WHERE id = NEW.chat_id
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inbox_version_reactions_insert AFTER INSERT ON message_reactions BEGIN
    INSERT INTO inbox_versions (scope, version) SELECT org_id, 1 FROM chat_messages WHERE id = NEW.message_id
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inbox_version_chats_update AFTER UPDATE ON chats BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES (NEW.org_id, 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inbox_version_messages_update AFTER UPDATE ON chat_messages BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES (NEW.org_id, 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inbox_version_chat_members_update AFTER UPDATE ON chat_members BEGIN
    INSERT INTO inbox_versions (scope, version) SELECT org_id, 1 FROM chats WHERE id = NEW.chat_id
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inbox_version_reactions_update AFTER UPDATE ON message_reactions BEGIN
    INSERT INTO inbox_versions (scope, version) SELECT org_id, 1 FROM chat_messages WHERE id = NEW.message_id
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inbox_version_chats_delete AFTER DELETE ON chats BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES (OLD.org_id, 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inbox_version_messages_delete AFTER DELETE ON chat_messages BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES (OLD.org_id, 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inbox_version_chat_members_delete AFTER DELETE ON chat_members BEGIN
    INSERT INTO inbox_versions (scope, version) SELECT org_id, 1 FROM chats WHERE id = OLD.chat_id
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inbox_version_reactions_delete AFTER DELETE ON message_reactions BEGIN
    INSERT INTO inbox_versions (scope, version) SELECT org_id, 1 FROM chat_messages WHERE id = OLD.message_id
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inbox_version_contacts_update AFTER UPDATE OF name, blocked, is_admin ON contacts
    WHEN EXISTS (SELECT 1 FROM chats WHERE contact_id = NEW.id)
    OR EXISTS (SELECT 1 FROM contact_channels ch JOIN chat_members cm ON cm.contact_channel_id = ch.id WHERE ch.contact_id = NEW.id) BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES (NEW.org_id, 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inbox_version_channels_update AFTER UPDATE OF type, user_id, avatar, name, username, email, phone, country, agent, ip, language, contact_id ON contact_channels
    WHEN EXISTS (SELECT 1 FROM chat_members WHERE contact_channel_id = NEW.id)
    OR EXISTS (SELECT 1 FROM chats WHERE contact_channel_id = NEW.id) BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES (NEW.org_id, 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inbox_version_contacts_delete AFTER DELETE ON contacts BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES (OLD.org_id, 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inbox_version_channels_delete AFTER DELETE ON contact_channels BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES (OLD.org_id, 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inbox_version_segments_delete AFTER DELETE ON segments BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES (OLD.org_id, 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inbox_version_members_update AFTER UPDATE OF name, email, avatar ON members BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES ('*', 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inbox_version_members_delete AFTER DELETE ON members BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES ('*', 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inbox_version_assistants_update AFTER UPDATE ON assistants BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES ('*', 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER inbox_version_assistants_delete AFTER DELETE ON assistants BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES ('*', 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER inbox_version_assistants_delete;
DROP TRIGGER inbox_version_assistants_update;
DROP TRIGGER inbox_version_members_delete;
DROP TRIGGER inbox_version_members_update;
DROP TRIGGER inbox_version_segments_delete;
DROP TRIGGER inbox_version_channels_delete;
DROP TRIGGER inbox_version_contacts_delete;
DROP TRIGGER inbox_version_channels_update;
DROP TRIGGER inbox_version_contacts_update;
DROP TRIGGER inbox_version_reactions_delete;
DROP TRIGGER inbox_version_chat_members_delete;
DROP TRIGGER inbox_version_messages_delete;
DROP TRIGGER inbox_version_chats_delete;
DROP TRIGGER inbox_version_reactions_update;
DROP TRIGGER inbox_version_chat_members_update;
DROP TRIGGER inbox_version_messages_update;
DROP TRIGGER inbox_version_chats_update;
DROP TRIGGER inbox_version_reactions_insert;
DROP TRIGGER inbox_version_chat_members_insert;
DROP TRIGGER inbox_version_messages_insert;
DROP TRIGGER inbox_version_chats_insert;
DROP TABLE inbox_versions;
