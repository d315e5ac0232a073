-- +goose Up
-- A widget visitor's session is an authentication too: its open stream must end when the
-- session goes (its integration, contact, channel or organization deleted: the cascade deletes
-- the session row) or when its widget refuses inbound (the assistant deleted). These triggers
-- bump the authentication version (00019) on those changes, whoever makes them, so the API's
-- stream guard (app/api/streamguard.go), which already re-checks open streams when that version
-- moves, re-checks visitor streams too. A disabled integration keeps its sessions and streams:
-- its messages still land in the inbox.
-- +goose StatementBegin
CREATE TRIGGER auth_version_widget_sessions_delete AFTER DELETE ON widget_sessions BEGIN
    UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER auth_version_assistants_deleted AFTER UPDATE OF deleted ON assistants
WHEN NEW.deleted IS NOT OLD.deleted BEGIN
    UPDATE auth_version SET version = version + 1 WHERE id = 1;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER auth_version_assistants_deleted;
DROP TRIGGER auth_version_widget_sessions_delete;
