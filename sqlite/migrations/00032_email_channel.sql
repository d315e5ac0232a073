-- +goose Up
-- The email channel (app/channel/email, docs/channels.md "Email"). Every mail that enters or
-- leaves an email chat is listed under its Message-ID, so a reply's In-Reply-To and
-- References find their chat by the primary key (threading). direction is 'in' or 'out';
-- message_id is the chat message it became or came from.
CREATE TABLE email_messages (
    org_id      TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    mail_id     TEXT NOT NULL,                 -- the Message-ID, without angle brackets
    chat_id     TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    message_id  TEXT REFERENCES chat_messages(id) ON DELETE CASCADE,
    direction   TEXT NOT NULL,
    role        TEXT NOT NULL DEFAULT '',      -- of an outbound mail: assistant or admin
    created_at  TEXT NOT NULL,
    PRIMARY KEY (org_id, mail_id)
) WITHOUT ROWID;
CREATE INDEX email_messages_by_chat ON email_messages(chat_id, direction, created_at);

-- An email chat's thread: the subject replies carry (Re: ...) and the SHA-256 of its
-- reply+<token> address's token (the token itself is derived, never stored).
CREATE TABLE email_chats (
    chat_id     TEXT PRIMARY KEY REFERENCES chats(id) ON DELETE CASCADE,
    org_id      TEXT NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    token_hash  BLOB NOT NULL UNIQUE,
    subject     TEXT NOT NULL DEFAULT ''
) WITHOUT ROWID;

-- +goose Down
DROP TABLE email_chats;
DROP TABLE email_messages;
