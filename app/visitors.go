package app

import (
	"context"
	"strings"
)

// The web widget's visitors (DESIGN.md, "Web widget"). A visitor holds a session token (kept
// in the widget's storage); the session names the contact and its `internal` channel. An
// identified visitor (user_id signed with the widget's secret_key) is one contact on every
// device: each new session finds the channel of that user_id. An anonymous one gets a contact
// of its own per session.

// MaxVisitorFile bounds a file a visitor sends.
const MaxVisitorFile = 10 << 20

// MaxVisitorText bounds the text of a visitor's message, in characters.
const MaxVisitorText = 4000

// VisitorTokenPrefix starts every widget session token.
const VisitorTokenPrefix = "wst_"

// WidgetSession is one visitor's session on one widget.
type WidgetSession struct {
	ID           string
	OrgID        string
	DeploymentID string
	ContactID    string
	ChannelID    string
	UserID       string
	CreatedAt    Time
}

// WidgetTx is the widget's part of a transaction.
type WidgetTx interface {
	CreateWidgetSession(ws WidgetSession, tokenHash []byte) error
	// WidgetSessionByToken reads the session of a token hash on one integration.
	WidgetSessionByToken(deploymentID string, tokenHash []byte) (WidgetSession, error)
	// ChannelOfUser answers the organization's channel of type typ with user_id userID.
	ChannelOfUser(orgID, typ, userID string) (Channel, error)
	// DeploymentChats answers the chats of a contact channel through one integration, newest
	// first (at most limit).
	DeploymentChats(orgID, channelID, deploymentID string, limit int) ([]string, error)
	// SetChatSession records on the chat's contact member the session that started it (the
	// chat member's session {id}).
	SetChatSession(chatID, channelID, sessionID string) error
}

// VisitorStart opens a session: an identity (user_id and user_hash, with name and email),
// or nothing for an anonymous visitor; Agent, IP and Language come from the browser.
type VisitorStart struct {
	UserID   string `json:"user_id"`
	UserHash string `json:"user_hash"`
	Name     string `json:"name"`
	Email    string `json:"email"`
	Agent    string `json:"-"`
	IP       string `json:"-"`
	Language string `json:"-"`
}

// Visitor is a session as its widget needs it.
type Visitor struct {
	Session    WidgetSession
	Deployment Deployment
}

// WidgetOf reads an enabled or disabled widget by id; anything else (another type, deleted,
// unknown) is not_found, as is a widget whose assistant was deleted.
func (s *Service) WidgetOf(ctx context.Context, id string) (Deployment, Assistant, error) {
	var d Deployment
	var a Assistant
	err := s.d.Store.Read(ctx, func(tx Tx) (err error) {
		if d, err = tx.FindDeployment(id); err != nil {
			return err
		}
		if a, err = tx.GetAssistant(d.OrgID, d.AssistantID); err != nil || a.Deleted {
			return NotFound("assistant integration")
		}
		return nil
	})
	if IsNotFound(err) || (err == nil && d.IntegrationID != IntegrationInternal) {
		return Deployment{}, Assistant{}, NotFound("widget")
	}
	return d, a, err
}

// StartVisitor opens a widget session and answers it with its token (shown this once). A
// wrong user_hash, and an anonymous visitor of a widget that requires identity, are refused.
func (s *Service) StartVisitor(ctx context.Context, deploymentID string, in VisitorStart) (Visitor, string, error) {
	d, _, err := s.WidgetOf(ctx, deploymentID)
	if err != nil {
		return Visitor{}, "", err
	}
	if err := checkVisitor(d, in); err != nil {
		return Visitor{}, "", err
	}
	token := VisitorTokenPrefix + RandomBase62(43)
	now := s.now()
	ws := WidgetSession{ID: NewID("wss"), OrgID: d.OrgID, DeploymentID: d.ID, UserID: in.UserID, CreatedAt: now}
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		ch, err := s.visitorChannel(tx, d.OrgID, in)
		if err != nil {
			return err
		}
		ws.ContactID, ws.ChannelID = ch.ContactID, ch.ID
		return tx.CreateWidgetSession(ws, HashToken(token))
	})
	return Visitor{Session: ws, Deployment: d}, token, err
}

// checkVisitor applies the identity rules: a given user_id needs its hash (constant-time
// HMAC check), and require_identity refuses anonymous visitors.
func checkVisitor(d Deployment, in VisitorStart) error {
	p := Problems{}
	for f, v := range map[string]string{"user_id": in.UserID, "name": in.Name, "email": in.Email} {
		if CharCount(v) > 255 {
			p.Add(f, "must be at most 255 characters")
		}
	}
	if len(in.UserHash) > 128 {
		p.Add("user_hash", "must be at most 128 characters")
	}
	if err := p.Err(); err != nil {
		return err
	}
	if in.UserID == "" {
		if d.RequireIdentity() {
			return &Error{Code: CodePermission, Message: "this widget requires an identified visitor: call AppWidget.identify first"}
		}
		return nil
	}
	if !d.VerifyIdentity(in.UserID, in.UserHash) {
		return &Error{Code: CodePermission, Message: "user_hash does not match user_id",
			Fields: map[string]string{"user_hash": "is not the HMAC-SHA256 of user_id under this widget's secret_key"}}
	}
	return nil
}

// visitorChannel finds the identified user's channel, or makes a contact and channel.
func (s *Service) visitorChannel(tx Tx, orgID string, in VisitorStart) (Channel, error) {
	return s.profileChannel(tx, orgID, ChannelProfile{Type: IntegrationInternal, UserID: in.UserID, Name: in.Name,
		Email: in.Email, Agent: clip(in.Agent, 512), IP: in.IP, Language: clip(in.Language, 35)}, "Visitor")
}

// profileChannel finds the organization's channel of prof's type and user_id, or makes a
// contact (named after prof, else unnamed) with that channel: the rule of every channel
// whose contacts are known by the provider's id (a verified widget user, a Telegram user).
func (s *Service) profileChannel(tx Tx, orgID string, prof ChannelProfile, unnamed string) (Channel, error) {
	if prof.UserID != "" {
		ch, err := tx.ChannelOfUser(orgID, prof.Type, prof.UserID)
		if err == nil || !IsNotFound(err) {
			return ch, err
		}
	}
	name := strings.TrimSpace(prof.Name)
	if name == "" {
		name = unnamed
	}
	return s.NewChannel(tx, orgID, "", prof, name)
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// VisitorByToken reads the session of a token on a widget; any other token is
// unauthenticated (never a hint of another widget's sessions).
func (s *Service) VisitorByToken(ctx context.Context, deploymentID, token string) (Visitor, error) {
	d, _, err := s.WidgetOf(ctx, deploymentID)
	if err != nil {
		return Visitor{}, err
	}
	if !strings.HasPrefix(token, VisitorTokenPrefix) {
		return Visitor{}, errVisitorToken
	}
	ws, err := readOne(ctx, s.d.Store, func(tx Tx) (WidgetSession, error) { return tx.WidgetSessionByToken(d.ID, HashToken(token)) })
	if IsNotFound(err) {
		return Visitor{}, errVisitorToken
	}
	return Visitor{Session: ws, Deployment: d}, err
}

var errVisitorToken = &Error{Code: CodeUnauthenticated, Message: "missing or invalid widget session token"}

// VisitorChats answers the visitor's conversations on this widget, newest first: an
// identified visitor's from every device.
func (s *Service) VisitorChats(ctx context.Context, v Visitor) ([]Chat, error) {
	var chats []Chat
	err := s.d.Store.Read(ctx, func(tx Tx) error {
		ids, err := tx.DeploymentChats(v.Session.OrgID, v.Session.ChannelID, v.Deployment.ID, 20)
		if err != nil {
			return err
		}
		for _, id := range ids {
			c, err := tx.GetChatRow(v.Session.OrgID, id)
			if err != nil {
				return err
			}
			chats = append(chats, c)
		}
		return nil
	})
	return chats, err
}

// VisitorChat reads one of the visitor's chats; a chat of anyone else is not_found.
func (s *Service) VisitorChat(ctx context.Context, v Visitor, chatID string) (Chat, error) {
	c, err := s.GetChat(ctx, v.Session.OrgID, chatID)
	if err != nil || c.ContactChannelID != v.Session.ChannelID || c.State == nil ||
		c.State.AssistantIntegrationID == nil || *c.State.AssistantIntegrationID != v.Deployment.ID {
		return Chat{}, NotFound("chat")
	}
	return c, nil
}

// VisitorMessage adds the visitor's message to its newest conversation on this widget, or
// to a new one. The assistant answers as in any conversation (unless the integration is
// disabled, the AI is off or a member took it).
func (s *Service) VisitorMessage(ctx context.Context, v Visitor, text string) (Message, error) {
	if err := visitorText(text); err != nil {
		return Message{}, err
	}
	in := MessageInput{Role: "user", Status: "COMPLETED", Messages: []Turn{{Role: "user", Parts: []Part{{Type: "text", Text: text}}}}}
	var m Message
	var stopped []string
	err := s.d.Store.Write(ctx, func(tx Tx) error {
		chatID, err := s.deploymentChatID(tx, v.Session.ChannelID, v.Deployment, v.Session.ID)
		if err != nil {
			return err
		}
		m, stopped, err = s.addMessage(tx, v.Session.OrgID, "", chatID, in)
		return err
	})
	if err == nil {
		s.abortRuns(stopped)
	}
	return m, err
}

func visitorText(text string) error {
	switch n := CharCount(text); {
	case strings.TrimSpace(text) == "":
		return Invalid("text", "is required")
	case n > MaxVisitorText:
		return Invalid("text", "must be at most "+itoa(MaxVisitorText)+" characters")
	}
	return nil
}

// deploymentChatID is the newest chat of a contact channel on an integration, started when
// there is none (with the widget session that started it, if any). A resolved chat is
// joined too: the contact's next message reopens it, or answers its rating question.
func (s *Service) deploymentChatID(tx Tx, channelID string, d Deployment, sessionID string) (string, error) {
	ids, err := tx.DeploymentChats(d.OrgID, channelID, d.ID, 1)
	if err != nil || len(ids) > 0 {
		if len(ids) > 0 {
			return ids[0], nil
		}
		return "", err
	}
	return s.StartConversation(tx, d, channelID, "", sessionID)
}

// LatestMessages answers a chat's last n messages, oldest first.
func (s *Service) LatestMessages(ctx context.Context, orgID, chatID string, n int) (ms []Message, err error) {
	err = s.d.Store.Read(ctx, func(tx Tx) error {
		_, total, err := tx.ListMessages(orgID, chatID, nil, 0, 1)
		if err != nil {
			return err
		}
		ms, _, err = tx.ListMessages(orgID, chatID, nil, max(0, total-n), n)
		return err
	})
	return ms, err
}

// VisitorFile adds a file the visitor sent, as its message (a part of type file) in its
// newest chat on the widget, stored with the chat like media.
func (s *Service) VisitorFile(ctx context.Context, v Visitor, name, mimetype string, data []byte) (Message, error) {
	name = strings.TrimSpace(name)
	p := Problems{}
	switch {
	case len(data) == 0:
		p.Add("file", "is empty")
	case len(data) > MaxVisitorFile:
		p.Add("file", "must be at most 10 MiB")
	}
	if name == "" || name == "." || name == ".." || CharCount(name) > 255 || strings.ContainsAny(name, "/\\\x00") {
		p.Add("file", "needs a file name of 1 to 255 characters, without a path")
	}
	if err := p.Err(); err != nil {
		return Message{}, err
	}
	var m Message
	var stopped []string
	err := s.d.Store.Write(ctx, func(tx Tx) error {
		chatID, err := s.deploymentChatID(tx, v.Session.ChannelID, v.Deployment, v.Session.ID)
		if err != nil {
			return err
		}
		m, stopped, err = s.AddInbound(tx, Inbound{OrgID: v.Session.OrgID, ChatID: chatID,
			Files: []InboundFile{{Name: name, Mimetype: mimetype, Data: data}}})
		return err
	})
	if err == nil {
		s.abortRuns(stopped)
	}
	return m, err
}
