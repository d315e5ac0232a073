package app

import "strings"

// The rules a channel's inbound shares (email today; the widget keeps its own session path):
// the contact of an address, a new conversation through an integration, and a contact's
// message with its files, each inside the caller's write so that threading, contact and
// message commit together.

// InboundFile is a file a contact sent through a channel. Hidden files (a mail's raw source)
// are stored with the message but get no part.
type InboundFile struct {
	Name, Mimetype string
	Data           []byte
	Hidden         bool
}

// Inbound is a contact's message arriving through an integration. NoRun keeps the assistant
// (and its intro) from answering it: the message lands in the inbox for a member.
type Inbound struct {
	OrgID, ChatID string
	Text          string
	Files         []InboundFile
	Metadata      map[string]any
	NoRun         bool
}

// NewChannel adds a contact channel for prof: to contactID, or to a new contact named name
// (the address when empty). The caller looked the address up first (each channel its own way).
func (s *Service) NewChannel(tx Tx, orgID, contactID string, prof ChannelProfile, name string) (Channel, error) {
	now := s.now()
	if contactID != "" {
		ch := newChannel(orgID, contactID, ChannelInput{ChannelProfile: prof}, now)
		if err := tx.CreateChannel(orgID, ch); err != nil {
			return Channel{}, err
		}
		return ch, s.contactUpdated(tx, orgID, contactID)
	}
	if name = strings.TrimSpace(name); name == "" {
		name = prof.Email
	}
	c := Contact{ID: NewID("ct"), OrgID: orgID, Name: clip(name, 255), CreatedAt: now, UpdatedAt: now}
	if err := tx.CreateContact(c); err != nil {
		return Channel{}, err
	}
	ch := newChannel(orgID, c.ID, ChannelInput{ChannelProfile: prof}, now)
	if err := tx.CreateChannel(orgID, ch); err != nil {
		return Channel{}, err
	}
	c.Channels, c.Segments = []Channel{ch}, []Segment{}
	return ch, s.EmitStream(tx, orgID, "", StreamContactCreated, c)
}

// StartConversation opens a chat on a contact channel through an integration, titled title;
// a widget's records the visitor's session on the contact's chat member.
func (s *Service) StartConversation(tx Tx, d Deployment, channelID, title, sessionID string) (string, error) {
	now := s.now()
	chat := Chat{ID: NewID("chat"), OrgID: d.OrgID, Model: AutoModel, Visibility: "PRIVATE", Status: "COMPLETED",
		CreatedAt: now, UpdatedAt: now, Tools: []Tool{}}
	if title = clip(strings.TrimSpace(title), 255); title != "" {
		chat.Title = &title
	}
	in := ChatInput{ContactChannelID: channelID, AssistantID: d.AssistantID, AssistantIntegrationID: d.ID}
	if err := s.attachConversation(tx, &chat, in); err != nil {
		return "", err
	}
	if err := tx.CreateChat(chat, ChatMember{}); err != nil {
		return "", err
	}
	if sessionID != "" {
		if err := tx.SetChatSession(chat.ID, channelID, sessionID); err != nil {
			return "", err
		}
	}
	created, err := tx.GetChat(chat.OrgID, chat.ID)
	if err != nil {
		return "", err
	}
	return chat.ID, s.EmitStream(tx, chat.OrgID, chat.ID, StreamChatCreated, created)
}

// AddInbound adds the contact's message with its files to a chat. It answers the message
// and the runs it superseded, to stop with AbortRuns after the commit.
func (s *Service) AddInbound(tx Tx, in Inbound) (Message, []string, error) {
	parts := []Part{}
	if strings.TrimSpace(in.Text) != "" {
		parts = append(parts, Part{Type: "text", Text: in.Text})
	}
	files := make([]ChatFile, len(in.Files))
	for i, f := range in.Files {
		id := NewID("file")
		files[i] = ChatFile{ChatID: in.ChatID, Data: f.Data, Audio: Audio{ID: id, FileFilename: f.Name,
			FilePath: "chats/" + in.ChatID + "/" + id, FileSize: int64(len(f.Data)), FileMimetype: f.Mimetype,
			FileURL: s.d.Links.ChatFile(in.OrgID, in.ChatID, id), CreatedAt: s.now()}}
		if !f.Hidden {
			parts = append(parts, Part{Type: "file", Text: f.Name, File: &files[i].Audio})
		}
	}
	m, stopped, err := s.addMessage(tx, in.OrgID, "", in.ChatID, MessageInput{Role: "user", Status: "COMPLETED",
		Messages: []Turn{{Role: "user", Parts: parts}}, Metadata: in.Metadata, NoRun: in.NoRun})
	if err != nil {
		return m, nil, err
	}
	for _, f := range files {
		f.MessageID = m.ID
		if err := tx.CreateFile(in.OrgID, f); err != nil {
			return m, nil, err
		}
	}
	return m, stopped, nil
}

// AbortRuns stops, after a commit, the runs a message superseded.
func (s *Service) AbortRuns(messageIDs []string) { s.abortRuns(messageIDs) }
