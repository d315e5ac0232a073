package widget

import (
	"encoding/json"
	"mime"
	"net/http"
	"strings"

	"wsapi/app"
)

// Message is a chat message as the visitor sees it: who wrote it (the visitor, the
// assistant or a member, by first name), its text and state. Tool calls, citations, usage
// and the members' ids stay in the inbox.
type Message struct {
	ID     string `json:"id"`
	Role   string `json:"role"`
	Status string `json:"status"`
	Text   string `json:"text"`
	Author string `json:"author"`
	// Audio lists the message's sounds: the visitor's recordings and the assistant's spoken
	// answers, read through GET .../api/files/{id}.
	Audio     []Sound  `json:"audio"`
	CreatedAt app.Time `json:"created_at"`
}

// Sound is a playable file of a message.
type Sound struct {
	ID       string `json:"id"`
	Mimetype string `json:"mimetype"`
}

// MessageView is m as the visitor sees it.
func MessageView(m app.Message) Message {
	var b strings.Builder
	sounds := []Sound{}
	for _, t := range m.Messages {
		for _, p := range t.Parts {
			switch {
			case p.Type == "text":
				b.WriteString(p.Text)
			case p.Type == "audio" && p.Audio != nil:
				sounds = append(sounds, Sound{ID: p.Audio.ID, Mimetype: p.Audio.FileMimetype})
			case p.Type == "file" && p.File != nil && strings.HasPrefix(p.File.FileMimetype, "audio/"):
				sounds = append(sounds, Sound{ID: p.File.ID, Mimetype: p.File.FileMimetype})
			case p.Type == "file":
				b.WriteString("[file: " + p.Text + "]")
			}
		}
	}
	v := Message{ID: m.ID, Role: m.Role, Status: m.Status, Text: b.String(), Audio: sounds, CreatedAt: m.CreatedAt}
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

// FileType is the MIME type a visitor's file is stored under: the sniffed one, except for a
// recording whose container the sniffer names as video or a bare Ogg (a WebM or Ogg
// recording from the microphone button), which keeps the audio type the browser declared.
func FileType(declared string, data []byte) string {
	sniffed := http.DetectContentType(data)
	t, _, err := mime.ParseMediaType(declared)
	if err != nil || !strings.HasPrefix(t, "audio/") {
		return sniffed
	}
	switch {
	case sniffed == "video/webm" && t == "audio/webm", sniffed == "application/ogg" && t == "audio/ogg",
		strings.HasPrefix(sniffed, "audio/"):
		return t
	}
	return sniffed
}
