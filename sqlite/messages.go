package sqlite

import (
	"database/sql"
	"encoding/json"
	"fmt"

	"wsapi/app"
)

const messageColumns = `seq, id, chat_id, role, model, status, messages, tools, features, chat_member_id, error,
	broadcast_id, is_broadcast_message, usage, text, created_at, updated_at, delivery, metadata`

func scanMessage(r rowScanner) (app.Message, error) {
	var m app.Message
	var turns, tools, features string
	var member, usage, delivery, metadata sql.NullString
	err := r.Scan(&m.Seq, &m.ID, &m.ChatID, &m.Role, &m.Model, &m.Status, &turns, &tools, &features, &member, &m.Error,
		&m.BroadcastID, &m.IsBroadcastMessage, &usage, &m.Text, &m.CreatedAt, &m.UpdatedAt, &delivery, &metadata)
	if err != nil {
		return m, err
	}
	m.ChatMemberID = member.String
	for _, f := range []struct {
		src  string
		into any
	}{{turns, &m.Messages}, {tools, &m.Tools}, {features, &m.Features}} {
		if err := json.Unmarshal([]byte(f.src), f.into); err != nil {
			return m, fmt.Errorf("sqlite: message: %w", err)
		}
	}
	if usage.Valid {
		m.Usage = &app.Usage{}
		if err := json.Unmarshal([]byte(usage.String), m.Usage); err != nil {
			return m, fmt.Errorf("sqlite: message usage: %w", err)
		}
	}
	if delivery.Valid {
		m.Delivery = &app.MessageDelivery{}
		if err := json.Unmarshal([]byte(delivery.String), m.Delivery); err != nil {
			return m, fmt.Errorf("sqlite: message delivery: %w", err)
		}
	}
	if metadata.Valid {
		if err := json.Unmarshal([]byte(metadata.String), &m.Metadata); err != nil {
			return m, fmt.Errorf("sqlite: message metadata: %w", err)
		}
	}
	if m.Tools == nil {
		m.Tools = []app.Tool{}
	}
	m.Reactions = []app.Reaction{}
	return m, nil
}

func metadataText(md map[string]any) any {
	if md == nil {
		return nil
	}
	return jsonText(md)
}

func usageText(u *app.Usage) any {
	if u == nil {
		return nil
	}
	if u.Turns == nil {
		u.Turns = []app.UsageCounter{}
	}
	return jsonText(u)
}

// CreateMessage inserts a message and makes it the chat's last.
func (t *Tx) CreateMessage(orgID string, m app.Message) error {
	if m.Tools == nil {
		m.Tools = []app.Tool{}
	}
	_, err := t.exec(`INSERT INTO chat_messages (id, org_id, chat_id, role, model, status, messages, tools, features,
		chat_member_id, error, broadcast_id, is_broadcast_message, usage, text, created_at, updated_at, metadata)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`, m.ID, orgID, m.ChatID, m.Role, m.Model, m.Status,
		jsonText(m.Messages), jsonText(m.Tools), jsonText(m.Features), nullable(m.ChatMemberID), m.Error,
		m.BroadcastID, m.IsBroadcastMessage, usageText(m.Usage), m.Text, m.CreatedAt, m.UpdatedAt, metadataText(m.Metadata))
	if err != nil {
		return err
	}
	_, err = t.exec(`UPDATE chats SET last_message_id = ? WHERE id = ?`, m.ID, m.ChatID)
	return err
}

// UpdateMessage writes a message's status, turns, error and usage.
func (t *Tx) UpdateMessage(orgID string, m app.Message) error {
	return t.execOne("message", `UPDATE chat_messages SET status=?, messages=?, error=?, usage=?, text=?, updated_at=?
		WHERE org_id=? AND id=?`, m.Status, jsonText(m.Messages), m.Error, usageText(m.Usage), m.Text, m.UpdatedAt, orgID, m.ID)
}

// FollowLastMessage sets the chat's status and updated_at to the message's when it is the
// chat's last, in one statement: no read of the chat.
func (t *Tx) FollowLastMessage(orgID, chatID, messageID, status string, at app.Time) error {
	_, err := t.exec(`UPDATE chats SET status = ?, updated_at = ? WHERE org_id = ? AND id = ? AND last_message_id = ?`,
		status, at, orgID, chatID, messageID)
	return err
}

// GetMessage reads one message of a chat with its author and reactions.
func (t *Tx) GetMessage(orgID, chatID, id string) (app.Message, error) {
	msgs, err := t.loadMessages(`SELECT `+messageColumns+` FROM chat_messages WHERE org_id = ? AND chat_id = ? AND id = ?`,
		orgID, chatID, id)
	if err != nil {
		return app.Message{}, err
	}
	if len(msgs) == 0 {
		return app.Message{}, app.NotFound("message")
	}
	return msgs[0], nil
}

// InFlightMessage is the newest RUNNING message of a chat.
func (t *Tx) InFlightMessage(orgID, chatID string) (app.Message, error) {
	msgs, err := t.loadMessages(`SELECT `+messageColumns+` FROM chat_messages WHERE org_id = ? AND chat_id = ?
		AND status = 'RUNNING' ORDER BY seq DESC LIMIT 1`, orgID, chatID)
	if err != nil {
		return app.Message{}, err
	}
	if len(msgs) == 0 {
		return app.Message{}, app.NotFound("message")
	}
	return msgs[0], nil
}

// ListMessages answers messages oldest first, after a cursor or an offset.
func (t *Tx) ListMessages(orgID, chatID string, after *app.MessageCursor, offset, limit int) ([]app.Message, int, error) {
	total, err := t.count(`SELECT COUNT(*) FROM chat_messages WHERE org_id = ? AND chat_id = ?`, orgID, chatID)
	if err != nil {
		return nil, 0, err
	}
	var seq int64
	if after != nil {
		seq = after.Seq
	}
	msgs, err := t.loadMessages(`SELECT `+messageColumns+` FROM chat_messages WHERE org_id = ? AND chat_id = ? AND seq > ?
		ORDER BY seq LIMIT ? OFFSET ?`, orgID, chatID, seq, limit, offset)
	return msgs, total, err
}

// scanMessages runs a message query and scans its rows, closed before it returns.
func (t *Tx) scanMessages(query string, args ...any) ([]app.Message, error) {
	return queryAll(t, scanMessage, query, args...)
}

// loadMessages runs a message query and fills authors and reactions.
func (t *Tx) loadMessages(query string, args ...any) ([]app.Message, error) {
	msgs, err := t.scanMessages(query, args...)
	if err != nil || len(msgs) == 0 {
		return msgs, err
	}
	chats := []app.Chat{{ID: msgs[0].ChatID}}
	for _, m := range msgs[1:] {
		if m.ChatID != chats[len(chats)-1].ID {
			chats = append(chats, app.Chat{ID: m.ChatID})
		}
	}
	members, err := t.chatMembers(chats)
	if err != nil {
		return nil, err
	}
	return msgs, t.fillMessages(msgs, members)
}

// fillMessages sets each message's author from the chat members and loads reactions.
func (t *Tx) fillMessages(msgs []app.Message, members chatMemberSet) error {
	index := map[string]int{}
	ids := make([]string, len(msgs))
	for i := range msgs {
		if cm, ok := members.byID[msgs[i].ChatMemberID]; ok {
			msgs[i].Member = &cm
		}
		index[msgs[i].ID], ids[i] = i, msgs[i].ID
	}
	rows, err := t.query(`SELECT message_id, emoji, member_id FROM message_reactions
		WHERE message_id IN (SELECT value FROM json_each(?)) ORDER BY message_id, member_id`, jsonText(ids))
	if err != nil {
		return err
	}
	reactions, err := collect(rows, func(r rowScanner) (k keyed[app.Reaction], err error) {
		return k, r.Scan(&k.key, &k.v.Emoji, &k.v.UserID)
	})
	for _, r := range reactions {
		msgs[index[r.key]].Reactions = append(msgs[index[r.key]].Reactions, r.v)
	}
	return err
}

// attachLastMessages sets each chat's last message.
func (t *Tx) attachLastMessages(chats []app.Chat, lastIDs []string, members chatMemberSet) error {
	var ids []string
	for _, id := range lastIDs {
		if id != "" {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	msgs, err := t.scanMessages(`SELECT `+messageColumns+` FROM chat_messages WHERE id IN (SELECT value FROM json_each(?))`, jsonText(ids))
	if err != nil {
		return err
	}
	if err := t.fillMessages(msgs, members); err != nil {
		return err
	}
	byID := map[string]*app.Message{}
	for i := range msgs {
		byID[msgs[i].ID] = &msgs[i]
	}
	for i := range chats {
		chats[i].LastMessage = byID[lastIDs[i]]
	}
	return nil
}

// SetReaction sets a member's emoji on a message.
func (t *Tx) SetReaction(orgID, messageID, memberID, emoji string) error {
	_, err := t.exec(`INSERT INTO message_reactions (message_id, member_id, emoji) VALUES (?,?,?)
		ON CONFLICT (message_id, member_id) DO UPDATE SET emoji = excluded.emoji`, messageID, memberID, emoji)
	return err
}

// DeleteReaction removes a member's emoji from a message.
func (t *Tx) DeleteReaction(orgID, messageID, memberID string) error {
	return t.execOne("reaction", `DELETE FROM message_reactions WHERE message_id = ? AND member_id = ?`, messageID, memberID)
}
