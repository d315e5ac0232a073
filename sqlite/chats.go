package sqlite

import (
	"database/sql"
	"encoding/json"
	"fmt"

	"wsapi/app"
)

// chatColumns reads a chat with its assistant and assignee through LEFT JOINs.
const chatColumns = `c.id, c.org_id, c.title, c.model, c.temporary, c.visibility, c.pinned, c.status, c.shared_url,
	c.tools, c.features, c.link, c.contact_id, c.contact_channel_id, c.state_id, c.state, c.integration_id,
	c.channel_type, c.assistant_id, c.assistant_integration_id, c.conversation_id, c.ai_enabled,
	c.admin_unseen_count, c.user_unseen_count, c.assigned_user_id, c.assigned_at, c.assignee_seen_at,
	c.follow_up_at, c.csat_score, c.last_contact_message_at, c.last_message_id, c.created_at, c.updated_at,
	a.id, a.name, a.enabled, a.avatar_url, a.deleted, a.config, m.name, m.email, m.avatar, ai.enabled`

const chatFrom = ` FROM chats c LEFT JOIN assistants a ON a.id = c.assistant_id
	LEFT JOIN members m ON m.id = c.assigned_user_id
	LEFT JOIN assistant_integrations ai ON ai.id = c.assistant_integration_id`

type chatRow struct {
	chat                                  app.Chat
	tools, features                       string
	contactID, channelID, assignee, last  sql.NullString
	asstID, asstName, asstAvatar, asstCfg sql.NullString
	asstEnabled, asstDeleted              sql.NullBool
	assigneeName, assigneeEmail, avatar   sql.NullString
	seenAt                                app.Time
	integrationEnabled                    sql.NullBool
}

func scanChat(r rowScanner) (app.Chat, string, error) {
	var x chatRow
	c := &x.chat
	st := &app.ChatState{}
	c.State = st
	err := r.Scan(&c.ID, &c.OrgID, &c.Title, &c.Model, &c.Temporary, &c.Visibility, &c.Pinned, &c.Status, &c.SharedURL,
		&x.tools, &x.features, &c.Link, &x.contactID, &x.channelID, &st.ID, &st.State, &st.IntegrationID,
		&st.ChannelType, &st.AssistantID, &st.AssistantIntegrationID, &st.ConversationID, &st.AIEnabled,
		&st.AdminUnseenCount, &st.UserUnseenCount, &x.assignee, &st.AssignedAt, &x.seenAt,
		&st.FollowUpAt, &st.CSATScore, &st.LastContactMessageAt, &x.last, &c.CreatedAt, &c.UpdatedAt,
		&x.asstID, &x.asstName, &x.asstEnabled, &x.asstAvatar, &x.asstDeleted, &x.asstCfg,
		&x.assigneeName, &x.assigneeEmail, &x.avatar, &x.integrationEnabled)
	if err != nil {
		return app.Chat{}, "", err
	}
	return x.finish()
}

func (x *chatRow) finish() (app.Chat, string, error) {
	c := x.chat
	if err := json.Unmarshal([]byte(x.tools), &c.Tools); err != nil {
		return c, "", fmt.Errorf("sqlite: chat tools: %w", err)
	}
	if err := json.Unmarshal([]byte(x.features), &c.Features); err != nil {
		return c, "", fmt.Errorf("sqlite: chat features: %w", err)
	}
	c.ContactID, c.ContactChannelID, c.AssignedUserID = x.contactID.String, x.channelID.String, x.assignee.String
	if x.assignee.Valid {
		c.State.AssignedUser = &app.AssignedUser{ID: x.assignee.String, Name: x.assigneeName.String,
			Email: x.assigneeEmail.String, Avatar: x.avatar.String, SeenAt: x.seenAt}
	}
	if x.asstID.Valid {
		var cfg app.AssistantConfig
		if err := json.Unmarshal([]byte(x.asstCfg.String), &cfg); err != nil {
			return c, "", fmt.Errorf("sqlite: assistant config: %w", err)
		}
		a := &app.ChatAssistant{ID: x.asstID.String, Name: x.asstName.String, Enabled: x.asstEnabled.Bool,
			AvatarURL: x.asstAvatar.String, Deleted: x.asstDeleted.Bool}
		conv := cfg.Conversation
		a.Config.Conversation.WelcomeBanner, a.Config.Conversation.AutoIntroMessage = conv.WelcomeBanner, conv.AutoIntroMessage
		a.Config.Conversation.SuggestedMessages, a.Config.Conversation.EnableAutoCSAT = conv.SuggestedMessages, conv.EnableAutoCSAT
		if a.Config.Conversation.SuggestedMessages == nil {
			a.Config.Conversation.SuggestedMessages = []string{}
		}
		c.State.Assistant, c.State.AssistantConfig = a, &cfg
	}
	if c.State.AssistantIntegrationID != nil {
		// An id that names no stored integration (a chat made by the API with the customer's
		// own id) is as enabled as before integrations existed.
		enabled := !x.integrationEnabled.Valid || x.integrationEnabled.Bool
		c.State.AssistantIntegration = &app.AssistantIntegration{ID: *c.State.AssistantIntegrationID, Enabled: enabled}
	}
	c.Members = []app.ChatMember{}
	return c, x.last.String, nil
}

// CreateChat inserts a chat, its creator and, for a conversation, its contact member.
func (t *Tx) CreateChat(c app.Chat, creator app.ChatMember) error {
	st := c.State
	_, err := t.exec(`INSERT INTO chats (id, org_id, title, model, temporary, visibility, pinned, status, shared_url,
		tools, features, link, contact_id, contact_channel_id, state_id, state, integration_id, channel_type,
		assistant_id, assistant_integration_id, conversation_id, ai_enabled, created_at, updated_at)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		c.ID, c.OrgID, c.Title, c.Model, c.Temporary, c.Visibility, c.Pinned, c.Status, c.SharedURL,
		jsonText(c.Tools), jsonText(c.Features), c.Link, nullable(c.ContactID), nullable(c.ContactChannelID),
		st.ID, st.State, st.IntegrationID, st.ChannelType, st.AssistantID, st.AssistantIntegrationID,
		st.ConversationID, st.AIEnabled, c.CreatedAt, c.UpdatedAt)
	if err != nil {
		return err
	}
	if creator.User != nil { // chats the service opens itself (internal broadcasts) have no creator
		if _, err := t.exec(`INSERT INTO chat_members (id, chat_id, role, member_id, created_at) VALUES (?,?,?,?,?)`,
			creator.ID, c.ID, creator.Role, creator.User.ID, c.CreatedAt); err != nil {
			return err
		}
	}
	if c.ContactChannelID == "" {
		return nil
	}
	_, err = t.exec(`INSERT INTO chat_members (id, chat_id, role, contact_channel_id, created_at) VALUES (?,?,?,?,?)`,
		app.NewID("cm"), c.ID, app.ChatRoleContact, c.ContactChannelID, c.CreatedAt)
	return err
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// GetChat reads one chat with everything nested.
func (t *Tx) GetChat(orgID, id string) (app.Chat, error) {
	chats, err := t.loadChats(`SELECT `+chatColumns+chatFrom+` WHERE c.org_id = ? AND c.id = ?`, orgID, id)
	if err != nil {
		return app.Chat{}, err
	}
	if len(chats) == 0 {
		return app.Chat{}, app.NotFound("chat")
	}
	return chats[0], nil
}

// GetChatRow reads one chat's own row, with its assistant and assignee, but not its members
// or last message (Members is empty, LastMessage nil): what a writer needs to decide on and
// update the chat's state, two queries fewer than GetChat.
func (t *Tx) GetChatRow(orgID, id string) (app.Chat, error) {
	c, _, err := scanChat(t.row(`SELECT `+chatColumns+chatFrom+` WHERE c.org_id = ? AND c.id = ?`, orgID, id))
	return c, one(err, "chat")
}

// loadChats runs a chat query and fills members and last messages in two more queries.
func (t *Tx) loadChats(query string, args ...any) ([]app.Chat, error) {
	rows, err := t.query(query, args...)
	if err != nil {
		return nil, err
	}
	type chatRow struct {
		chat app.Chat
		last string // the id of its last message
	}
	found, err := collect(rows, func(r rowScanner) (c chatRow, err error) {
		c.chat, c.last, err = scanChat(r)
		return c, err
	})
	if err != nil {
		return nil, err
	}
	chats, lastIDs := make([]app.Chat, len(found)), make([]string, len(found))
	for i, c := range found {
		chats[i], lastIDs[i] = c.chat, c.last
	}
	if len(chats) == 0 {
		return chats, nil
	}
	members, err := t.chatMembers(chats)
	if err != nil {
		return nil, err
	}
	for i := range chats {
		chats[i].Members = members.byChat[chats[i].ID]
		if chats[i].Members == nil {
			chats[i].Members = []app.ChatMember{}
		}
	}
	return chats, t.attachLastMessages(chats, lastIDs, members)
}

// UpdateChat writes a chat's own columns, its state included.
func (t *Tx) UpdateChat(c app.Chat) error {
	st := c.State
	var seen app.Time
	if st.AssignedUser != nil {
		seen = st.AssignedUser.SeenAt
	}
	return t.execOne("chat", `UPDATE chats SET title=?, temporary=?, visibility=?, pinned=?, status=?, shared_url=?,
		state=?, ai_enabled=?, admin_unseen_count=?, user_unseen_count=?, assigned_user_id=?, assigned_at=?,
		assignee_seen_at=?, follow_up_at=?, csat_score=?, last_contact_message_at=?, updated_at=? WHERE org_id=? AND id=?`,
		c.Title, c.Temporary, c.Visibility, c.Pinned, c.Status, c.SharedURL, st.State, st.AIEnabled,
		st.AdminUnseenCount, st.UserUnseenCount, nullable(c.AssignedUserID), st.AssignedAt, seen, st.FollowUpAt,
		st.CSATScore, st.LastContactMessageAt, c.UpdatedAt, c.OrgID, c.ID)
}

// DeleteChat removes a chat; members, messages and files cascade.
func (t *Tx) DeleteChat(orgID, id string) error {
	return t.execOne("chat", `DELETE FROM chats WHERE org_id = ? AND id = ?`, orgID, id)
}

// EnsureChatMember answers a member's entry in a chat, adding it when absent.
func (t *Tx) EnsureChatMember(chatID, memberID, role string, now app.Time) (string, error) {
	if _, err := t.exec(`INSERT OR IGNORE INTO chat_members (id, chat_id, role, member_id, created_at) VALUES (?,?,?,?,?)`,
		app.NewID("cm"), chatID, role, memberID, now); err != nil {
		return "", err
	}
	var id string
	err := t.row(`SELECT id FROM chat_members WHERE chat_id = ? AND member_id = ?`, chatID, memberID).Scan(&id)
	return id, one(err, "chat member")
}

// ContactChatMember answers the entry of the chat's contact, or "" for an internal chat.
func (t *Tx) ContactChatMember(chatID string) (string, error) {
	var id string
	err := t.row(`SELECT id FROM chat_members WHERE chat_id = ? AND contact_channel_id IS NOT NULL
		ORDER BY created_at LIMIT 1`, chatID).Scan(&id)
	if err == sql.ErrNoRows {
		return "", nil
	}
	return id, mapErr(err)
}

// DeleteTemporaryChats deletes temporary chats whose last activity is before cutoff.
func (t *Tx) DeleteTemporaryChats(cutoff app.Time) (int, error) {
	res, err := t.exec(`DELETE FROM chats WHERE temporary = 1 AND updated_at < ?`, cutoff)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// ChatOnChannel answers the newest chat on a contact channel.
func (t *Tx) ChatOnChannel(orgID, channelID string) (string, error) {
	var id string
	err := t.row(`SELECT id FROM chats WHERE org_id = ? AND contact_channel_id = ? ORDER BY created_at DESC LIMIT 1`,
		orgID, channelID).Scan(&id)
	return id, one(err, "chat")
}

// ChatsAssignedTo answers the ids of the organization's chats assigned to a member
// (index chats_by_assignee).
func (t *Tx) ChatsAssignedTo(orgID, memberID string) ([]string, error) {
	return queryAll(t, scanString, `SELECT id FROM chats WHERE org_id = ? AND assigned_user_id = ? ORDER BY id`, orgID, memberID)
}
