package app

import (
	"context"
	"slices"
	"strings"
)

// Audio is a stored audio file of a message part.
type Audio struct {
	ID           string `json:"id"`
	FilePath     string `json:"file_path"`
	FileFilename string `json:"file_filename"`
	FileSize     int64  `json:"file_size"`
	FileMimetype string `json:"file_mimetype"`
	FileURL      string `json:"file_url"`
	CreatedAt    Time   `json:"created_at"`
}

// Part is one piece of a turn: text, or audio with its timing.
type Part struct {
	Type           string   `json:"type"`
	Text           string   `json:"text,omitempty"`
	Audio          *Audio   `json:"audio,omitempty"`
	StartTimestamp *float64 `json:"start_timestamp,omitempty"`
	EndTimestamp   *float64 `json:"end_timestamp,omitempty"`
	// ToolCall is set on parts of type tool_call, Citation on parts of type citation: what an
	// assistant's run called and quoted (app/tools.go).
	ToolCall *ToolCallPart `json:"tool_call,omitempty"`
	Citation *Citation     `json:"citation,omitempty"`
	// File is set on parts of type file: a file the contact sent (the widget), stored with
	// the chat; Text holds its name.
	File *Audio `json:"file,omitempty"`
	// Template is set on parts of type template: an approved WhatsApp template a member sends
	// (messagecheck.go), the one message allowed outside WhatsApp's 24-hour window.
	Template *TemplatePart `json:"template,omitempty"`
}

// Turn is one role's contribution inside a message.
type Turn struct {
	Role  string `json:"role"`
	Parts []Part `json:"parts"`
}

// Usage counts tokens, with one entry per model turn.
type Usage struct {
	UsageCounter
	Turns []UsageCounter `json:"turns"`
	// Estimated is true when the counts were guessed from the text (about 4 characters a
	// token) because the provider reported none, as when a run is canceled mid-stream.
	Estimated bool `json:"estimated,omitempty"`
}

// UsageCounter is the six token counters, of a message or of one turn.
type UsageCounter struct {
	InputTokens           float64 `json:"input_tokens"`
	OutputTokens          float64 `json:"output_tokens"`
	TotalTokens           float64 `json:"total_tokens"`
	ReasoningTokens       float64 `json:"reasoning_tokens"`
	InputTokensCacheRead  float64 `json:"input_tokens_cache_read"`
	InputTokensCacheWrite float64 `json:"input_tokens_cache_write"`
}

// Reaction is one member's emoji on a message.
type Reaction struct {
	Emoji  string `json:"emoji"`
	UserID string `json:"user_id"`
}

// Message is one turn of a chat (the spec's Chat message).
type Message struct {
	ID                 string      `json:"id"`
	Role               string      `json:"role"`
	Model              string      `json:"model"`
	Status             string      `json:"status"`
	CreatedAt          Time        `json:"created_at"`
	UpdatedAt          Time        `json:"updated_at"`
	Messages           []Turn      `json:"messages"`
	Tools              []Tool      `json:"tools"`
	Features           Features    `json:"features"`
	Member             *ChatMember `json:"member"`
	Error              *string     `json:"error"`
	BroadcastID        *string     `json:"broadcast_id"`
	IsBroadcastMessage bool        `json:"is_broadcast_message"`
	Usage              *Usage      `json:"usage"`
	Reactions          []Reaction  `json:"reactions"`
	ChatID             string      `json:"chat_id"`
	// Delivery is set on the replies the server delivers to the contact (messagedelivery.go).
	Delivery *MessageDelivery `json:"delivery"`
	// Metadata is what the channel recorded of a contact's message (an email's Message-ID,
	// DKIM, SPF and DMARC results); absent otherwise.
	Metadata map[string]any `json:"metadata,omitempty"`
	// NoRun: the message asks no answer (a channel's auto-reply, a mail failing DMARC).
	NoRun bool `json:"-"`

	ChatMemberID string `json:"-"`
	Text         string `json:"-"` // the text parts, for search
	Seq          int64  `json:"-"`
}

// Message roles: the contact (user), the AI (assistant), a member (admin).
var MessageRoles = []string{"user", "assistant", "admin"}

// MessageCursor is the position after which the next page of messages starts: the
// insertion sequence, which orders messages that share a millisecond.
type MessageCursor struct {
	Seq int64 `json:"s"`
}

// MessageTx is the messages part of a transaction.
type MessageTx interface {
	CreateMessage(orgID string, m Message) error
	GetMessage(orgID, chatID, id string) (Message, error)
	UpdateMessage(orgID string, m Message) error
	// FollowLastMessage sets the chat's status and updated_at to a message's when it is the
	// chat's last message (the chat's status follows its newest message).
	FollowLastMessage(orgID, chatID, messageID, status string, at Time) error
	// ListMessages answers up to limit messages oldest first, after the cursor if any.
	ListMessages(orgID, chatID string, after *MessageCursor, offset, limit int) ([]Message, int, error)
	// InFlightMessage is the chat's newest RUNNING message, or not_found.
	InFlightMessage(orgID, chatID string) (Message, error)
	SetReaction(orgID, messageID, memberID, emoji string) error
	DeleteReaction(orgID, messageID, memberID string) error
}

// MessageInput adds a message to a chat.
type MessageInput struct {
	Role               string   `json:"role"`
	Model              string   `json:"model"`
	Status             string   `json:"status"`
	Messages           []Turn   `json:"messages"`
	Tools              []Tool   `json:"tools"`
	Features           Features `json:"features"`
	Error              *string  `json:"error"`
	Usage              *Usage   `json:"usage"`
	BroadcastID        *string  `json:"broadcast_id"`
	IsBroadcastMessage bool     `json:"is_broadcast_message"`
	// Set by channels only (AddInbound), never from a request.
	Metadata map[string]any `json:"-"`
	NoRun    bool           `json:"-"`
}

func (s *Service) validateMessage(ctx context.Context, in *MessageInput) error {
	p := Problems{}
	s.checkToolCallbacks(ctx, p, in.Tools)
	if !slices.Contains(MessageRoles, in.Role) {
		p.Add("role", "must be one of "+strings.Join(MessageRoles, ", "))
	}
	if in.Status == "" {
		in.Status = "COMPLETED"
	}
	if !slices.Contains(RunStatuses, in.Status) {
		p.Add("status", "must be one of "+strings.Join(RunStatuses, ", "))
	}
	if in.Model != "" && !ValidModel(in.Model) {
		p.Add("model", "must be a model id <provider>:<model>")
	}
	validateTurns(p, in.Messages)
	validateUsage(p, "usage", in.Usage)
	return p.Err()
}

func messageText(turns []Turn) string {
	var b strings.Builder
	for _, t := range turns {
		for _, p := range t.Parts {
			if p.Text != "" {
				b.WriteString(p.Text)
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// AddMessage appends a message. A contact's message (role user) raises the members' unseen
// count and last_contact_message_at; a member's or the assistant's raises the contact's.
func (s *Service) AddMessage(ctx context.Context, c Caller, chatID string, in MessageInput) (m Message, err error) {
	if err := s.validateMessage(ctx, &in); err != nil {
		return Message{}, err
	}
	var stopped []string
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if err := checkMessageRefs(tx, c.OrgID, chatID, in.Role, in.BroadcastID, in.Messages); err != nil {
			return err
		}
		m, stopped, err = s.addMessage(tx, c.OrgID, c.Member.ID, chatID, in)
		return err
	})
	if err == nil {
		s.abortRuns(stopped)
	}
	return m, err
}

// addMessage appends a message and, when it asks the assistant to answer, schedules a run;
// it answers the messages of the runs it superseded, to abort after commit.
func (s *Service) addMessage(tx Tx, orgID, memberID, chatID string, in MessageInput) (Message, []string, error) {
	chat, err := tx.GetChatRow(orgID, chatID) // its own columns are all a new message changes
	if err != nil {
		return Message{}, nil, err
	}
	now := s.now()
	m := Message{ID: NewID("msg"), ChatID: chatID, Role: in.Role, Model: in.Model, Status: in.Status, CreatedAt: now,
		UpdatedAt: now, Messages: in.Messages, Tools: in.Tools, Features: in.Features, Error: in.Error,
		BroadcastID: in.BroadcastID, IsBroadcastMessage: in.IsBroadcastMessage, Usage: in.Usage, Text: messageText(in.Messages),
		Metadata: in.Metadata, NoRun: in.NoRun}
	if m.Model == "" {
		m.Model = chat.Model
	}
	if m.ChatMemberID, err = messageAuthor(tx, chat, in.Role, memberID, now); err != nil {
		return Message{}, nil, err
	}
	if err := tx.CreateMessage(orgID, m); err != nil {
		return Message{}, nil, err
	}
	if err := s.deliverMessage(tx, orgID, chatID, &m); err != nil {
		return Message{}, nil, err
	}
	turn, err := s.beforeContactMessage(tx, &chat, m)
	if err != nil {
		return Message{}, nil, err
	}
	if m.NoRun {
		turn.intro = "" // an auto-reply must not get the intro either: that is how mail loops start
	}
	bumpCounters(&chat, m, now)
	if err := tx.UpdateChat(chat); err != nil {
		return Message{}, nil, err
	}
	stopped, err := s.afterContactMessage(tx, chat, m, turn, now)
	if err != nil {
		return Message{}, nil, err
	}
	if m, err = tx.GetMessage(orgID, chatID, m.ID); err != nil {
		return Message{}, nil, err
	}
	return m, stopped, s.EmitStream(tx, orgID, chatID, StreamMessageCreated, m)
}

func messageAuthor(tx Tx, chat Chat, role, memberID string, now Time) (string, error) {
	switch role {
	case "user":
		if chat.ContactID == "" && memberID != "" { // the playground: the member is the user
			return tx.EnsureChatMember(chat.ID, memberID, ChatRoleAdmin, now)
		}
		return tx.ContactChatMember(chat.ID)
	case "admin":
		return tx.EnsureChatMember(chat.ID, memberID, ChatRoleAdmin, now)
	}
	return "", nil
}

func bumpCounters(chat *Chat, m Message, now Time) {
	if m.Role == "user" {
		chat.State.AdminUnseenCount++
		chat.State.LastContactMessageAt = now
	} else {
		chat.State.UserUnseenCount++
	}
	chat.Status, chat.UpdatedAt = m.Status, now
}

// ListMessages lists a chat's messages oldest first, by page or by cursor.
func (s *Service) ListMessages(ctx context.Context, orgID, chatID, next string, pg Page) (l List[Message], err error) {
	scope := listScope("messages", orgID, chatID)
	after, err := parseCursor[MessageCursor](next, scope)
	if err != nil {
		return l, err
	}
	err = s.d.Store.Read(ctx, func(tx Tx) error {
		if _, err := tx.GetChat(orgID, chatID); err != nil {
			return err
		}
		l.Items, l.Total, err = tx.ListMessages(orgID, chatID, after, windowOffset(after, pg), pg.Take+1)
		return err
	})
	if err == nil {
		trimPage(&l, pg.Take, scope, func(m Message) MessageCursor { return MessageCursor{Seq: m.Seq} })
	}
	return l, err
}

// MessagePatch finishes or corrects a message: a RUNNING turn becomes COMPLETED, FAILED or
// CANCELED, with its final turns, error and usage.
type MessagePatch struct {
	Status   *string          `json:"status"`
	Messages []Turn           `json:"messages"`
	Error    Optional[string] `json:"error"`
	Usage    *Usage           `json:"usage"`
}

// UpdateMessage applies a MessagePatch; the chat's status follows its newest message.
func (s *Service) UpdateMessage(ctx context.Context, orgID, chatID, id string, in MessagePatch) (m Message, err error) {
	p := Problems{}
	if in.Status != nil && !slices.Contains(RunStatuses, *in.Status) {
		p.Add("status", "must be one of "+strings.Join(RunStatuses, ", "))
	}
	if in.Messages != nil {
		validateTurns(p, in.Messages)
	}
	validateUsage(p, "usage", in.Usage)
	if err := p.Err(); err != nil {
		return m, err
	}
	var stopped []string
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if m, err = tx.GetMessage(orgID, chatID, id); err != nil {
			return err
		}
		if err := checkMessageRefs(tx, orgID, chatID, m.Role, nil, in.Messages); err != nil {
			return err
		}
		wasRunning := m.Status == "RUNNING"
		if in.Status != nil {
			m.Status = *in.Status
		}
		if in.Messages != nil {
			m.Messages, m.Text = in.Messages, messageText(in.Messages)
		}
		if in.Error.Set {
			m.Error = in.Error.Ptr()
		}
		if in.Usage != nil {
			m.Usage = in.Usage
		}
		m.UpdatedAt = s.now()
		if err := tx.UpdateMessage(orgID, m); err != nil {
			return err
		}
		if err := s.followLastMessage(tx, orgID, chatID, m); err != nil {
			return err
		}
		if err := s.deliverMessage(tx, orgID, chatID, &m); err != nil {
			return err
		}
		// A contact's message that finishes arriving (a voice message) asks for an answer.
		if wasRunning && m.Status == "COMPLETED" {
			chat, err := tx.GetChat(orgID, chatID)
			if err != nil {
				return err
			}
			if stopped, err = s.triggerRun(tx, chat, m, m.UpdatedAt); err != nil {
				return err
			}
		}
		if m, err = tx.GetMessage(orgID, chatID, id); err != nil {
			return err
		}
		return s.EmitStream(tx, orgID, chatID, StreamMessageUpdated, m)
	})
	if err == nil {
		s.abortRuns(stopped)
	}
	return m, err
}

func (s *Service) followLastMessage(tx Tx, orgID, chatID string, m Message) error {
	return tx.FollowLastMessage(orgID, chatID, m.ID, m.Status, m.UpdatedAt)
}
