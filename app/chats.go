package app

import (
	"context"
	"slices"
	"strings"
	"time"
)

// TemporaryChatLifetime is how long a temporary chat outlives its last activity.
const TemporaryChatLifetime = 24 * time.Hour

// Chat run statuses, visibility values and conversation states.
var (
	RunStatuses  = []string{"RUNNING", "COMPLETED", "FAILED", "CANCELED"}
	Visibilities = []string{"PRIVATE", "PUBLIC_READ", "PUBLIC_WRITE"}
	ChatStates   = []string{"OPEN", "SNOOZED", "CLOSED"}
)

// Tool is a tool offered to the model in a chat.
type Tool struct {
	Name             string         `json:"name"`
	DisplayName      string         `json:"display_name"`
	ActionName       string         `json:"action_name"`
	Description      string         `json:"description"`
	Icon             string         `json:"icon"`
	IconURL          string         `json:"icon_url"`
	ConnectionID     string         `json:"connection_id"`
	Callback         string         `json:"callback"`
	Parameters       map[string]any `json:"parameters"`
	EnabledByDefault bool           `json:"enabled_by_default"`
}

// Features switch model features on for a chat or a message.
type Features struct {
	WebSearch map[string]any `json:"web_search,omitzero"` // {} (search with no options) is kept
	Reasoning *Reasoning     `json:"reasoning,omitempty"`
}

// Reasoning sets the reasoning effort.
type Reasoning struct {
	Effort string `json:"effort"`
}

// ChannelContact is the contact as nested in a chat member's channel.
type ChannelContact struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Blocked bool   `json:"blocked"`
	IsAdmin bool   `json:"is_admin"`
}

// NestedChannel is a contact channel as nested in a chat member.
type NestedChannel struct {
	ID string `json:"id"`
	ChannelProfile
	Link    string         `json:"link"`
	Contact ChannelContact `json:"contact"`
}

// Session is a chat member's session.
type Session struct {
	ID string `json:"id"`
}

// ChatMember is a participant: a member (user) or a contact (contact_channel).
type ChatMember struct {
	ID             string         `json:"id"`
	Role           string         `json:"role"`
	User           *User          `json:"user"`
	Session        *Session       `json:"session"`
	ContactChannel *NestedChannel `json:"contact_channel"`
}

// Chat member roles.
const (
	ChatRoleAdmin   = "ADMIN"
	ChatRoleContact = "CONTACT"
)

// AssignedUser is the member a conversation is assigned to.
type AssignedUser struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Email  string `json:"email"`
	Avatar string `json:"avatar"`
	SeenAt Time   `json:"seen_at"`
}

// ChatAssistant is the assistant as nested in a chat's state.
type ChatAssistant struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Enabled   bool   `json:"enabled"`
	AvatarURL string `json:"avatar_url"`
	Deleted   bool   `json:"deleted"`
	Config    struct {
		Conversation struct {
			WelcomeBanner     string   `json:"welcome_banner"`
			SuggestedMessages []string `json:"suggested_messages"`
			AutoIntroMessage  string   `json:"auto_intro_message"`
			EnableAutoCSAT    bool     `json:"enable_auto_csat"`
		} `json:"conversation"`
	} `json:"config"`
}

// AssistantIntegration is the assistant's deployment on an integration.
type AssistantIntegration struct {
	ID      string `json:"id"`
	Enabled bool   `json:"enabled"`
}

// ChatState is the conversation part of a chat: state, assignment, counters.
type ChatState struct {
	ID                     string                `json:"id"`
	State                  string                `json:"state"`
	IntegrationID          string                `json:"integration_id"`
	ChannelType            string                `json:"channel_type"`
	AssistantID            *string               `json:"assistant_id"`
	AssistantIntegrationID *string               `json:"assistant_integration_id"`
	ConversationID         *string               `json:"conversation_id"`
	AIEnabled              bool                  `json:"ai_enabled"`
	AdminUnseenCount       int                   `json:"admin_unseen_count"`
	UserUnseenCount        int                   `json:"user_unseen_count"`
	Assistant              *ChatAssistant        `json:"assistant"`
	AssistantIntegration   *AssistantIntegration `json:"assistant_integration"`
	AssignedUser           *AssignedUser         `json:"assigned_user,omitempty"`
	AssignedAt             Time                  `json:"assigned_at"`
	AssistantConfig        *AssistantConfig      `json:"assistant_config"`
	FollowUpAt             Time                  `json:"follow_up_at"`
	CSATScore              *int                  `json:"csat_score"`
	LastContactMessageAt   Time                  `json:"last_contact_message_at"`
}

// Chat is a conversation with a contact through a channel, or an internal chat.
type Chat struct {
	ID          string       `json:"id"`
	Title       *string      `json:"title"`
	Model       string       `json:"model"`
	Members     []ChatMember `json:"members"`
	Temporary   bool         `json:"temporary"`
	Visibility  string       `json:"visibility"`
	Pinned      bool         `json:"pinned"`
	Status      string       `json:"status"`
	SharedURL   *string      `json:"shared_url"`
	CreatedAt   Time         `json:"created_at"`
	UpdatedAt   Time         `json:"updated_at"`
	Tools       []Tool       `json:"tools"`
	Features    Features     `json:"features"`
	OrgID       string       `json:"org_id"`
	State       *ChatState   `json:"state,omitempty"`
	Link        string       `json:"link"`
	LastMessage *Message     `json:"last_message,omitempty"`

	// Stored references the JSON shows through nested objects.
	ContactID        string `json:"-"`
	ContactChannelID string `json:"-"`
	AssignedUserID   string `json:"-"`
}

// Internal tells a workspace chat or the playground: no contact. A chat of the `internal`
// integration with a contact (the web widget's) is a customer conversation, not internal:
// its assignments emit chat.assigned like any other (DESIGN.md, "Web widget").
func (c Chat) Internal() bool { return c.State == nil || c.ContactID == "" }

// ChatTx is the chats part of a transaction.
type ChatTx interface {
	CreateChat(c Chat, creator ChatMember) error
	// GetChat reads a chat with members, assistant, assignee and last message.
	GetChat(orgID, id string) (Chat, error)
	// GetChatRow reads a chat without its members and last message (Members empty,
	// LastMessage nil), for writers that only decide on and update its own columns.
	GetChatRow(orgID, id string) (Chat, error)
	UpdateChat(c Chat) error
	AutomationTx
	DeleteChat(orgID, id string) error
	// EnsureChatMember answers the chat member entry of a member, adding it with role if absent.
	EnsureChatMember(chatID, memberID, role string, now Time) (string, error)
	// ContactChatMember answers the chat member entry of the chat's contact, or "".
	ContactChatMember(chatID string) (string, error)
	// ChatOnChannel answers the newest chat on a contact channel.
	ChatOnChannel(orgID, channelID string) (string, error)
	// DeleteTemporaryChats deletes temporary chats last active before cutoff.
	DeleteTemporaryChats(cutoff Time) (int, error)
	// ChatsAssignedTo answers the ids of the organization's chats assigned to a member.
	ChatsAssignedTo(orgID, memberID string) ([]string, error)
}

// ChatInput creates a chat.
type ChatInput struct {
	ContactID              string   `json:"contact_id"`
	ContactChannelID       string   `json:"contact_channel_id"`
	AssistantID            string   `json:"assistant_id"`
	AssistantIntegrationID string   `json:"assistant_integration_id"`
	ConversationID         string   `json:"conversation_id"`
	Title                  *string  `json:"title"`
	Model                  string   `json:"model"`
	Temporary              bool     `json:"temporary"`
	Visibility             string   `json:"visibility"`
	Tools                  []Tool   `json:"tools"`
	Features               Features `json:"features"`
}

func (s *Service) validateChatInput(ctx context.Context, in *ChatInput) error {
	p := Problems{}
	s.checkToolCallbacks(ctx, p, in.Tools)
	if in.Model == "" {
		in.Model = AutoModel
	}
	if !ValidModel(in.Model) {
		p.Add("model", "must be a model id <provider>:<model>, or auto:auto")
	}
	if in.Visibility == "" {
		in.Visibility = "PRIVATE"
	}
	if !slices.Contains(Visibilities, in.Visibility) {
		p.Add("visibility", "must be one of "+strings.Join(Visibilities, ", "))
	}
	if in.Title != nil && CharCount(*in.Title) > 255 {
		p.Add("title", "must be at most 255 characters")
	}
	for f, v := range map[string]string{"assistant_integration_id": in.AssistantIntegrationID, "conversation_id": in.ConversationID} {
		if CharCount(v) > 255 {
			p.Add(f, "must be at most 255 characters")
		}
	}
	return p.Err()
}

// CreateChat starts a chat. With contact_id or contact_channel_id it is a conversation on
// that channel's integration, state OPEN, AI on when an assistant is set; without, it is an
// internal chat of the caller.
func (s *Service) CreateChat(ctx context.Context, c Caller, in ChatInput) (chat Chat, err error) {
	if err := s.validateChatInput(ctx, &in); err != nil {
		return Chat{}, err
	}
	now := s.now()
	chat = Chat{ID: NewID("chat"), OrgID: c.OrgID, Title: in.Title, Model: in.Model, Temporary: in.Temporary,
		Visibility: in.Visibility, Status: "COMPLETED", CreatedAt: now, UpdatedAt: now, Tools: in.Tools, Features: in.Features}
	if chat.Tools == nil {
		chat.Tools = []Tool{}
	}
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if err := s.attachConversation(tx, &chat, in); err != nil {
			return err
		}
		creator := ChatMember{ID: NewID("cm"), Role: ChatRoleAdmin, User: &User{ID: c.Member.ID}}
		if err := tx.CreateChat(chat, creator); err != nil {
			return err
		}
		if chat, err = tx.GetChat(c.OrgID, chat.ID); err != nil {
			return err
		}
		return s.EmitStream(tx, c.OrgID, chat.ID, StreamChatCreated, chat)
	})
	return chat, err
}

// attachConversation resolves the contact channel and assistant of a new chat.
func (s *Service) attachConversation(tx Tx, chat *Chat, in ChatInput) error {
	st := &ChatState{ID: NewID("cst"), State: "OPEN", IntegrationID: IntegrationInternal}
	if in.AssistantID != "" {
		a, err := tx.GetAssistant(chat.OrgID, in.AssistantID)
		if err != nil || a.Deleted {
			return NotFound("assistant")
		}
		st.AssistantID, st.AIEnabled = &a.ID, a.Enabled
	}
	if in.AssistantIntegrationID != "" {
		st.AssistantIntegrationID = &in.AssistantIntegrationID
	}
	if in.ConversationID != "" {
		st.ConversationID = &in.ConversationID
	}
	if in.ContactID == "" && in.ContactChannelID == "" {
		chat.State = st
		return nil
	}
	ch, err := chatChannel(tx, chat.OrgID, in)
	if err != nil {
		return err
	}
	chat.ContactID, chat.ContactChannelID = ch.ContactID, ch.ID
	st.IntegrationID, st.ChannelType = ch.Type, ch.Type
	chat.State, chat.Link = st, ch.ChannelProfile.Link()
	return nil
}

// chatChannel picks the channel: the one named, or the contact's oldest.
func chatChannel(tx Tx, orgID string, in ChatInput) (Channel, error) {
	if in.ContactChannelID != "" {
		ch, err := tx.GetChannel(orgID, in.ContactChannelID)
		if err != nil {
			return Channel{}, err
		}
		if in.ContactID != "" && ch.ContactID != in.ContactID {
			return Channel{}, Invalid("contact_channel_id", "is not a channel of contact_id")
		}
		return ch, nil
	}
	c, err := tx.GetContact(orgID, in.ContactID)
	if err != nil {
		return Channel{}, err
	}
	if len(c.Channels) == 0 {
		return Channel{}, Invalid("contact_id", "the contact has no channel; add one or use contact_channel_id")
	}
	return c.Channels[0], nil
}

// GetChat reads a chat.
func (s *Service) GetChat(ctx context.Context, orgID, id string) (Chat, error) {
	return readOne(ctx, s.d.Store, func(tx Tx) (Chat, error) { return tx.GetChat(orgID, id) })
}

// DeleteChat removes a chat with its messages and files.
func (s *Service) DeleteChat(ctx context.Context, orgID, id string) error {
	return s.d.Store.Write(ctx, func(tx Tx) error {
		if err := tx.DeleteChat(orgID, id); err != nil {
			return err
		}
		return s.EmitStream(tx, orgID, id, StreamChatDeleted, map[string]string{"id": id})
	})
}

// PurgeTemporaryChats is the janitor's pass: temporary chats 24 hours after their last
// activity.
func (s *Service) PurgeTemporaryChats(ctx context.Context) (n int, err error) {
	cutoff := At(s.d.Clock.Now().Add(-TemporaryChatLifetime))
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		n, err = tx.DeleteTemporaryChats(cutoff)
		return err
	})
	return n, err
}
