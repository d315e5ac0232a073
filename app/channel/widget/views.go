package widget

import (
	"encoding/json"
	"strings"

	"wsapi/app"
)

// Message is a chat message as the visitor sees it: who wrote it (the visitor, the
// assistant or a member, by first name), its text and state. Tool calls, citations, usage
// and the members' ids stay in the inbox.
type Message struct {
	ID        string   `json:"id"`
	Role      string   `json:"role"`
	Status    string   `json:"status"`
	Text      string   `json:"text"`
	Author    string   `json:"author"`
	CreatedAt app.Time `json:"created_at"`
}

// MessageView is m as the visitor sees it.
func MessageView(m app.Message) Message {
	var b strings.Builder
	for _, t := range m.Messages {
		for _, p := range t.Parts {
			switch p.Type {
			case "text":
				b.WriteString(p.Text)
			case "file":
				b.WriteString("[file: " + p.Text + "]")
			}
		}
	}
	v := Message{ID: m.ID, Role: m.Role, Status: m.Status, Text: b.String(), CreatedAt: m.CreatedAt}
	if m.Role == "admin" && m.Member != nil && m.Member.User != nil {
		v.Author, _, _ = strings.Cut(m.Member.User.Name, " ")
	}
	return v
}

// MessageViews maps a page of messages.
func MessageViews(ms []app.Message) []Message {
	out := make([]Message, 0, len(ms))
	for _, m := range ms {
		out = append(out, MessageView(m))
	}
	return out
}

// Chat is a conversation as the visitor sees it: whether the assistant answers, whether a
// member took it (a handoff), and whether it is resolved and rated.
type Chat struct {
	ID        string   `json:"id"`
	State     string   `json:"state"`
	AIEnabled bool     `json:"ai_enabled"`
	HandedOff bool     `json:"handed_off"`
	CSATScore *int     `json:"csat_score"`
	CreatedAt app.Time `json:"created_at"`
}

// ChatView is c as the visitor sees it.
func ChatView(c app.Chat) Chat {
	v := Chat{ID: c.ID, CreatedAt: c.CreatedAt}
	if st := c.State; st != nil {
		v.State, v.AIEnabled, v.CSATScore = st.State, st.AIEnabled, st.CSATScore
		v.HandedOff = c.AssignedUserID != "" || !st.AIEnabled
	}
	return v
}

// Event rewrites a chat stream event for the visitor: messages and chats become their
// visitor views, deltas and delivery changes pass as they are, everything else is dropped.
func Event(typ string, data []byte) ([]byte, bool) {
	switch typ {
	case app.StreamMessageCreated, app.StreamMessageUpdated:
		var m app.Message
		if json.Unmarshal(data, &m) != nil || m.IsBroadcastMessage && m.Role == "" {
			return nil, false
		}
		return encode(MessageView(m))
	case app.StreamSync:
		var m *app.Message
		if json.Unmarshal(data, &m) != nil {
			return nil, false
		}
		if m == nil {
			return []byte("null"), true
		}
		return encode(MessageView(*m))
	case app.StreamChatUpdated:
		var c app.Chat
		if json.Unmarshal(data, &c) != nil {
			return nil, false
		}
		c.AssignedUserID = ""
		if c.State != nil && c.State.AssignedUser != nil {
			c.AssignedUserID = c.State.AssignedUser.ID
		}
		return encode(ChatView(c))
	case app.StreamMessageDelta, app.StreamMessageDelivery:
		return data, true
	}
	return nil, false
}

func encode(v any) ([]byte, bool) {
	b, err := app.EncodeJSON(v)
	return b, err == nil
}
