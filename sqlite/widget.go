package sqlite

import "wsapi/app"

// CreateWidgetSession stores a visitor's session under the SHA-256 of its token.
func (t *Tx) CreateWidgetSession(ws app.WidgetSession, tokenHash []byte) error {
	_, err := t.exec(`INSERT INTO widget_sessions (id, token_hash, org_id, asi_id, contact_id, channel_id, user_id, created_at)
		VALUES (?,?,?,?,?,?,?,?)`, ws.ID, tokenHash, ws.OrgID, ws.DeploymentID, ws.ContactID, ws.ChannelID, ws.UserID, ws.CreatedAt)
	return err
}

// WidgetSessionByToken reads the session of a token hash on one widget (the unique index on
// token_hash finds it; the widget must match too).
func (t *Tx) WidgetSessionByToken(deploymentID string, tokenHash []byte) (app.WidgetSession, error) {
	var ws app.WidgetSession
	err := t.row(`SELECT id, org_id, asi_id, contact_id, channel_id, user_id, created_at FROM widget_sessions
		WHERE token_hash = ? AND asi_id = ?`, tokenHash, deploymentID).Scan(&ws.ID, &ws.OrgID, &ws.DeploymentID,
		&ws.ContactID, &ws.ChannelID, &ws.UserID, &ws.CreatedAt)
	return ws, one(err, "widget session")
}

// ChannelOfUser answers the oldest channel of a type with a user_id in the organization
// (contact_channels_by_user).
func (t *Tx) ChannelOfUser(orgID, typ, userID string) (app.Channel, error) {
	ch, err := scanChannel(t.row(`SELECT `+channelColumns+` FROM contact_channels
		WHERE org_id = ? AND user_id = ? AND type = ? ORDER BY created_at, id LIMIT 1`, orgID, userID, typ))
	return ch, one(err, "channel")
}

// DeploymentChats answers the chats of a contact channel through one integration, newest
// first.
func (t *Tx) DeploymentChats(orgID, channelID, deploymentID string, limit int) ([]string, error) {
	return queryAll(t, scanString, `SELECT id FROM chats WHERE org_id = ? AND contact_channel_id = ?
		AND assistant_integration_id = ? ORDER BY created_at DESC, seq DESC LIMIT ?`, orgID, channelID, deploymentID, limit)
}

// SetChatSession records on the chat's contact member the widget session that started it.
func (t *Tx) SetChatSession(chatID, channelID, sessionID string) error {
	return t.execOne("chat member", `UPDATE chat_members SET session_id = ? WHERE chat_id = ? AND contact_channel_id = ?`,
		sessionID, chatID, channelID)
}
