package sqlite

import (
	"strings"

	"wsapi/app"
)

// The email channel's store (app/channel/email.Tx): mails by Message-ID, a chat's thread, the
// addresses inbound SMTP accepts.

// EmailThreadChat answers the chat of the newest of mailIDs known in the organization, or
// not_found.
func (t *Tx) EmailThreadChat(orgID string, mailIDs []string) (string, error) {
	var chatID string
	err := t.row(`SELECT chat_id FROM email_messages WHERE org_id = ? AND mail_id IN (SELECT value FROM json_each(?))
		ORDER BY created_at DESC LIMIT 1`, orgID, jsonText(mailIDs)).Scan(&chatID)
	return chatID, one(err, "email thread")
}

// RecordEmail lists a mail of a chat under its Message-ID; a Message-ID listed already keeps
// its first entry (a mail fetched twice, a resend).
func (t *Tx) RecordEmail(orgID, mailID, chatID, messageID, direction, role string, at app.Time) error {
	_, err := t.exec(`INSERT INTO email_messages (org_id, mail_id, chat_id, message_id, direction, role, created_at)
		VALUES (?,?,?,?,?,?,?) ON CONFLICT DO NOTHING`, orgID, mailID, chatID, nullable(messageID), direction, role, at)
	return err
}

// EmailMailIDs answers a chat's Message-IDs, oldest first (at most limit): a reply's
// References.
func (t *Tx) EmailMailIDs(chatID string, limit int) ([]string, error) {
	return queryAll(t, scanString, `SELECT mail_id FROM (SELECT mail_id, created_at FROM email_messages
		WHERE chat_id = ? ORDER BY created_at DESC LIMIT ?) ORDER BY created_at`, chatID, limit)
}

// EmailMailOf answers the Message-ID of a chat message, or not_found.
func (t *Tx) EmailMailOf(orgID, messageID string) (string, error) {
	var id string
	err := t.row(`SELECT mail_id FROM email_messages WHERE org_id = ? AND message_id = ?`, orgID, messageID).Scan(&id)
	return id, one(err, "email")
}

// SetEmailChat records a chat's thread once: its reply token's hash and subject.
func (t *Tx) SetEmailChat(orgID, chatID string, tokenHash []byte, subject string) error {
	_, err := t.exec(`INSERT INTO email_chats (chat_id, org_id, token_hash, subject) VALUES (?,?,?,?)
		ON CONFLICT DO NOTHING`, chatID, orgID, tokenHash, subject)
	return err
}

// EmailChatSubject answers the subject a chat's thread started with ("" when none).
func (t *Tx) EmailChatSubject(chatID string) (string, error) {
	var s string
	err := t.row(`SELECT subject FROM email_chats WHERE chat_id = ?`, chatID).Scan(&s)
	if err = one(err, "email chat"); app.IsNotFound(err) {
		return "", nil
	}
	return s, err
}

// EmailChatOfToken answers the organization and chat of a reply+<token> address's token hash.
func (t *Tx) EmailChatOfToken(tokenHash []byte) (orgID, chatID string, err error) {
	err = t.row(`SELECT org_id, chat_id FROM email_chats WHERE token_hash = ?`, tokenHash).Scan(&orgID, &chatID)
	return orgID, chatID, one(err, "email chat")
}

// EmailChannel answers the organization's contact channel of an address (case-insensitive),
// an `email` channel first, then the oldest.
func (t *Tx) EmailChannel(orgID, address string) (app.Channel, error) {
	ch, err := scanChannel(t.row(`SELECT `+channelColumns+` FROM contact_channels WHERE org_id = ? AND email_norm = ?
		ORDER BY type = 'email' DESC, created_at, id LIMIT 1`, orgID, strings.ToLower(strings.TrimSpace(address))))
	return ch, one(err, "channel")
}

// EmailRepliesSince counts the assistant's mails to a contact since a moment.
func (t *Tx) EmailRepliesSince(orgID, contactID string, since app.Time) (int, error) {
	return t.count(`SELECT COUNT(*) FROM email_messages e JOIN chats c ON c.id = e.chat_id
		WHERE c.org_id = ? AND c.contact_id = ? AND e.direction = 'out' AND e.role = 'assistant' AND e.created_at >= ?`,
		orgID, contactID, since)
}

// EmailDeploymentsOf answers the email integrations (of live assistants) whose identity is
// address, in any organization: inbound SMTP's recipients. A disabled one still takes mail
// into the inbox (DESIGN.md: disabled integrations keep their inbound, the assistant is
// silent); a deleted one is gone from this list.
func (t *Tx) EmailDeploymentsOf(address string) ([]string, error) {
	return queryAll(t, scanString, `SELECT ai.id FROM assistant_integrations ai
		JOIN email_identities ei ON ei.id = json_extract(ai.config, '$.identity_id') AND ei.org_id = ai.org_id
		JOIN assistants a ON a.id = ai.assistant_id AND a.deleted = 0
		WHERE ai.integration_id = 'email' AND lower(ei.email) = ? ORDER BY ai.created_at, ai.id`,
		strings.ToLower(address))
}
