-- +goose Up
-- A log of which chat each bump of an organization's inbox version (migration 00010) was
-- for, so that a cached search view (sqlite/inboxview.go) read at an older version is
-- brought up to date by testing again only the chats changed since, instead of reading
-- every chat of its filters again after each message.
-- The triggers below are those of 00010 that bump the version for one chat's row, message,
-- member or reaction: each now also writes one row (organization, the version it made, the
-- chat's seq) in the same statement's transaction. Every other bump (contacts, channels,
-- segments, members, assistants, segment membership from Go) writes none, so a reader
-- finds fewer rows than versions between its view and now (a gap) and reads the view whole,
-- as before: a view is patched only from a complete log. So is a bump whose chat is already
-- gone (the messages of a deleted chat): no row, a gap. The log keeps the last 4,096
-- versions of each organization; older views are read whole.
CREATE TABLE inbox_changes (
    org_id   TEXT NOT NULL,
    version  INTEGER NOT NULL,  -- the organization's inbox_versions.version this bump made
    chat_seq INTEGER NOT NULL,  -- chats.seq
    PRIMARY KEY (org_id, version)
) WITHOUT ROWID;

DROP TRIGGER inbox_version_chats_insert;
-- +goose StatementBegin
CREATE TRIGGER inbox_version_chats_insert AFTER INSERT ON chats BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES (NEW.org_id, 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
    INSERT INTO inbox_changes (org_id, version, chat_seq)
        SELECT v.scope, v.version, NEW.seq FROM inbox_versions v WHERE v.scope = NEW.org_id;
    DELETE FROM inbox_changes WHERE org_id = NEW.org_id
        AND version <= (SELECT version - 4096 FROM inbox_versions WHERE scope = NEW.org_id);
END;
-- +goose StatementEnd

DROP TRIGGER inbox_version_messages_insert;
-- +goose StatementBegin
CREATE TRIGGER inbox_version_messages_insert AFTER INSERT ON chat_messages BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES (NEW.org_id, 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
    INSERT INTO inbox_changes (org_id, version, chat_seq)
        SELECT v.scope, v.version, c.seq FROM inbox_versions v, chats c WHERE v.scope = NEW.org_id AND c.id = NEW.chat_id;
    DELETE FROM inbox_changes WHERE org_id = NEW.org_id
        AND version <= (SELECT version - 4096 FROM inbox_versions WHERE scope = NEW.org_id);
END;
-- +goose StatementEnd

DROP TRIGGER inbox_version_chat_members_insert;
-- +goose StatementBegin
CREATE TRIGGER inbox_version_chat_members_insert AFTER INSERT ON chat_members BEGIN
    INSERT INTO inbox_versions (scope, version) SELECT org_id, 1 FROM chats WHERE id = NEW.chat_id
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
    INSERT INTO inbox_changes (org_id, version, chat_seq)
        SELECT v.scope, v.version, c.seq FROM chats c JOIN inbox_versions v ON v.scope = c.org_id WHERE c.id = NEW.chat_id;
    DELETE FROM inbox_changes WHERE org_id = (SELECT org_id FROM chats WHERE id = NEW.chat_id)
        AND version <= (SELECT version - 4096 FROM inbox_versions WHERE scope = (SELECT org_id FROM chats WHERE id = NEW.chat_id));
END;
-- +goose StatementEnd

DROP TRIGGER inbox_version_reactions_insert;
-- +goose StatementBegin
CREATE TRIGGER inbox_version_reactions_insert AFTER INSERT ON message_reactions BEGIN
    INSERT INTO inbox_versions (scope, version) SELECT org_id, 1 FROM chat_messages WHERE id = NEW.message_id
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
    INSERT INTO inbox_changes (org_id, version, chat_seq)
        SELECT v.scope, v.version, c.seq FROM chat_messages m JOIN chats c ON c.id = m.chat_id JOIN inbox_versions v ON v.scope = m.org_id WHERE m.id = NEW.message_id;
    DELETE FROM inbox_changes WHERE org_id = (SELECT org_id FROM chat_messages WHERE id = NEW.message_id)
        AND version <= (SELECT version - 4096 FROM inbox_versions WHERE scope = (SELECT org_id FROM chat_messages WHERE id = NEW.message_id));
END;
-- +goose StatementEnd

DROP TRIGGER inbox_version_chats_update;
-- +goose StatementBegin
CREATE TRIGGER inbox_version_chats_update AFTER UPDATE ON chats BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES (NEW.org_id, 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
    INSERT INTO inbox_changes (org_id, version, chat_seq)
        SELECT v.scope, v.version, NEW.seq FROM inbox_versions v WHERE v.scope = NEW.org_id;
    DELETE FROM inbox_changes WHERE org_id = NEW.org_id
        AND version <= (SELECT version - 4096 FROM inbox_versions WHERE scope = NEW.org_id);
END;
-- +goose StatementEnd

DROP TRIGGER inbox_version_messages_update;
-- +goose StatementBegin
CREATE TRIGGER inbox_version_messages_update AFTER UPDATE ON chat_messages BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES (NEW.org_id, 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
    INSERT INTO inbox_changes (org_id, version, chat_seq)
        SELECT v.scope, v.version, c.seq FROM inbox_versions v, chats c WHERE v.scope = NEW.org_id AND c.id = NEW.chat_id;
    DELETE FROM inbox_changes WHERE org_id = NEW.org_id
        AND version <= (SELECT version - 4096 FROM inbox_versions WHERE scope = NEW.org_id);
END;
-- +goose StatementEnd

DROP TRIGGER inbox_version_chat_members_update;
-- +goose StatementBegin
CREATE TRIGGER inbox_version_chat_members_update AFTER UPDATE ON chat_members BEGIN
    INSERT INTO inbox_versions (scope, version) SELECT org_id, 1 FROM chats WHERE id = NEW.chat_id
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
    INSERT INTO inbox_changes (org_id, version, chat_seq)
        SELECT v.scope, v.version, c.seq FROM chats c JOIN inbox_versions v ON v.scope = c.org_id WHERE c.id = NEW.chat_id;
    DELETE FROM inbox_changes WHERE org_id = (SELECT org_id FROM chats WHERE id = NEW.chat_id)
        AND version <= (SELECT version - 4096 FROM inbox_versions WHERE scope = (SELECT org_id FROM chats WHERE id = NEW.chat_id));
END;
-- +goose StatementEnd

DROP TRIGGER inbox_version_reactions_update;
-- +goose StatementBegin
CREATE TRIGGER inbox_version_reactions_update AFTER UPDATE ON message_reactions BEGIN
    INSERT INTO inbox_versions (scope, version) SELECT org_id, 1 FROM chat_messages WHERE id = NEW.message_id
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
    INSERT INTO inbox_changes (org_id, version, chat_seq)
        SELECT v.scope, v.version, c.seq FROM chat_messages m JOIN chats c ON c.id = m.chat_id JOIN inbox_versions v ON v.scope = m.org_id WHERE m.id = NEW.message_id;
    DELETE FROM inbox_changes WHERE org_id = (SELECT org_id FROM chat_messages WHERE id = NEW.message_id)
        AND version <= (SELECT version - 4096 FROM inbox_versions WHERE scope = (SELECT org_id FROM chat_messages WHERE id = NEW.message_id));
END;
-- +goose StatementEnd

DROP TRIGGER inbox_version_chats_delete;
-- +goose StatementBegin
CREATE TRIGGER inbox_version_chats_delete AFTER DELETE ON chats BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES (OLD.org_id, 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
    INSERT INTO inbox_changes (org_id, version, chat_seq)
        SELECT v.scope, v.version, OLD.seq FROM inbox_versions v WHERE v.scope = OLD.org_id;
    DELETE FROM inbox_changes WHERE org_id = OLD.org_id
        AND version <= (SELECT version - 4096 FROM inbox_versions WHERE scope = OLD.org_id);
END;
-- +goose StatementEnd

DROP TRIGGER inbox_version_messages_delete;
-- +goose StatementBegin
CREATE TRIGGER inbox_version_messages_delete AFTER DELETE ON chat_messages BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES (OLD.org_id, 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
    INSERT INTO inbox_changes (org_id, version, chat_seq)
        SELECT v.scope, v.version, c.seq FROM inbox_versions v, chats c WHERE v.scope = OLD.org_id AND c.id = OLD.chat_id;
    DELETE FROM inbox_changes WHERE org_id = OLD.org_id
        AND version <= (SELECT version - 4096 FROM inbox_versions WHERE scope = OLD.org_id);
END;
-- +goose StatementEnd

DROP TRIGGER inbox_version_chat_members_delete;
-- +goose StatementBegin
CREATE TRIGGER inbox_version_chat_members_delete AFTER DELETE ON chat_members BEGIN
    INSERT INTO inbox_versions (scope, version) SELECT org_id, 1 FROM chats WHERE id = OLD.chat_id
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
    INSERT INTO inbox_changes (org_id, version, chat_seq)
        SELECT v.scope, v.version, c.seq FROM chats c JOIN inbox_versions v ON v.scope = c.org_id WHERE c.id = OLD.chat_id;
    DELETE FROM inbox_changes WHERE org_id = (SELECT org_id FROM chats WHERE id = OLD.chat_id)
        AND version <= (SELECT version - 4096 FROM inbox_versions WHERE scope = (SELECT org_id FROM chats WHERE id = OLD.chat_id));
END;
-- +goose StatementEnd

DROP TRIGGER inbox_version_reactions_delete;
-- +goose StatementBegin
CREATE TRIGGER inbox_version_reactions_delete AFTER DELETE ON message_reactions BEGIN
    INSERT INTO inbox_versions (scope, version) SELECT org_id, 1 FROM chat_messages WHERE id = OLD.message_id
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
    INSERT INTO inbox_changes (org_id, version, chat_seq)
        SELECT v.scope, v.version, c.seq FROM chat_messages m JOIN chats c ON c.id = m.chat_id JOIN inbox_versions v ON v.scope = m.org_id WHERE m.id = OLD.message_id;
    DELETE FROM inbox_changes WHERE org_id = (SELECT org_id FROM chat_messages WHERE id = OLD.message_id)
        AND version <= (SELECT version - 4096 FROM inbox_versions WHERE scope = (SELECT org_id FROM chat_messages WHERE id = OLD.message_id));
END;
-- +goose StatementEnd

-- +goose Down

DROP TRIGGER inbox_version_chats_insert;
-- +goose StatementBegin
CREATE TRIGGER inbox_version_chats_insert AFTER INSERT ON chats BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES (NEW.org_id, 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

DROP TRIGGER inbox_version_messages_insert;
-- +goose StatementBegin
CREATE TRIGGER inbox_version_messages_insert AFTER INSERT ON chat_messages BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES (NEW.org_id, 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

DROP TRIGGER inbox_version_chat_members_insert;
-- +goose StatementBegin
CREATE TRIGGER inbox_version_chat_members_insert AFTER INSERT ON chat_members BEGIN
    INSERT INTO inbox_versions (scope, version) SELECT org_id, 1 FROM chats WHERE id = NEW.chat_id
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

DROP TRIGGER inbox_version_reactions_insert;
-- +goose StatementBegin
CREATE TRIGGER inbox_version_reactions_insert AFTER INSERT ON message_reactions BEGIN
    INSERT INTO inbox_versions (scope, version) SELECT org_id, 1 FROM chat_messages WHERE id = NEW.message_id
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

DROP TRIGGER inbox_version_chats_update;
-- +goose StatementBegin
CREATE TRIGGER inbox_version_chats_update AFTER UPDATE ON chats BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES (NEW.org_id, 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

DROP TRIGGER inbox_version_messages_update;
-- +goose StatementBegin
CREATE TRIGGER inbox_version_messages_update AFTER UPDATE ON chat_messages BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES (NEW.org_id, 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

DROP TRIGGER inbox_version_chat_members_update;
-- +goose StatementBegin
CREATE TRIGGER inbox_version_chat_members_update AFTER UPDATE ON chat_members BEGIN
    INSERT INTO inbox_versions (scope, version) SELECT org_id, 1 FROM chats WHERE id = NEW.chat_id
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

DROP TRIGGER inbox_version_reactions_update;
-- +goose StatementBegin
CREATE TRIGGER inbox_version_reactions_update AFTER UPDATE ON message_reactions BEGIN
    INSERT INTO inbox_versions (scope, version) SELECT org_id, 1 FROM chat_messages WHERE id = NEW.message_id
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

DROP TRIGGER inbox_version_chats_delete;
-- +goose StatementBegin
CREATE TRIGGER inbox_version_chats_delete AFTER DELETE ON chats BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES (OLD.org_id, 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

DROP TRIGGER inbox_version_messages_delete;
-- +goose StatementBegin
CREATE TRIGGER inbox_version_messages_delete AFTER DELETE ON chat_messages BEGIN
    INSERT INTO inbox_versions (scope, version) VALUES (OLD.org_id, 1)
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

DROP TRIGGER inbox_version_chat_members_delete;
-- +goose StatementBegin
CREATE TRIGGER inbox_version_chat_members_delete AFTER DELETE ON chat_members BEGIN
    INSERT INTO inbox_versions (scope, version) SELECT org_id, 1 FROM chats WHERE id = OLD.chat_id
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

DROP TRIGGER inbox_version_reactions_delete;
-- +goose StatementBegin
CREATE TRIGGER inbox_version_reactions_delete AFTER DELETE ON message_reactions BEGIN
    INSERT INTO inbox_versions (scope, version) SELECT org_id, 1 FROM chat_messages WHERE id = OLD.message_id
        ON CONFLICT (scope) DO UPDATE SET version = version + 1;
END;
-- +goose StatementEnd

DROP TABLE inbox_changes;
