-- +goose Up
-- Where the IMAP poller of an email integration stands in its mailbox (app/channel/email/mailbox):
-- the mailbox's UIDVALIDITY and the last UID imported, so a restart imports nothing twice and
-- loses nothing. mailbox_key is host, port, username and mailbox: pointing the integration at
-- another mailbox starts a new cursor. last_date is the server's INTERNALDATE of the last mail
-- imported, where a re-scan starts after a UIDVALIDITY change. The row goes with the integration.
CREATE TABLE mailbox_cursors (
    asi_id       TEXT PRIMARY KEY REFERENCES assistant_integrations(id) ON DELETE CASCADE,
    org_id       TEXT NOT NULL,
    mailbox_key  TEXT NOT NULL,
    uid_validity INTEGER NOT NULL,
    last_uid     INTEGER NOT NULL,
    last_date    TEXT,
    updated_at   TEXT NOT NULL
) WITHOUT ROWID;

-- The poller lists the email integrations of every organization each tick.
CREATE INDEX assistant_integrations_by_type ON assistant_integrations(integration_id, org_id);

-- +goose Down
DROP INDEX assistant_integrations_by_type;
DROP TABLE mailbox_cursors;
