-- +goose Up
-- What a channel recorded of a contact's message (an email's Message-ID and its DKIM, SPF
-- and DMARC results), as answered in the message's `metadata`; NULL for the rest.
ALTER TABLE chat_messages ADD COLUMN metadata TEXT;

-- +goose Down
ALTER TABLE chat_messages DROP COLUMN metadata;
