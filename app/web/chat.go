package web

import (
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"wsapi/app"
)

// messageTake is the size of a page of messages: the newest page loads with the chat, older
// ones when the member scrolls up to them, so a chat of thousands of messages opens as fast
// as a short one and the page holds only what was read.
const messageTake = 50

// chatView is the conversation pane.
type chatView struct {
	Chat     app.Chat
	Contact  string
	Header   headerView
	Messages messagesView
	CanWrite bool
	CanNote  bool
	CSRF     string
	// ContactView is the contact pane; nil when the chat has none or the role may not read
	// contacts.
	ContactView *contactView
}

type headerView struct {
	Chat     app.Chat
	Contact  string
	Channel  string
	State    string
	AI       bool
	Assignee string
	Mine     bool
	Waiting  bool
	CanWrite bool
	Members  []app.Member
	Snoozed  bool
	Closed   bool
}

type messagesView struct {
	ChatID  string
	Items   []msgView
	Older   int    // the page to load above these, 0: none
	FirstAt string // the time of the first message, which bounds the notes of the page above
}

// msgView is one message as the template shows it.
type msgView struct {
	ID        string
	Role      string // user, assistant, admin, note
	Author    string
	Text      string
	Offset    int // runes of Text, where the next live delta starts
	Running   bool
	Failed    string
	Citations []app.Citation
	Tools     []app.ToolCallPart
	Delivery  string
	DelivErr  string
	At        app.Time
}

func (s *Server) chatView(rq *Request, chatID string) (chatView, error) {
	c, err := s.svc.GetChat(rq.Ctx(), rq.Org(), chatID)
	if err != nil {
		return chatView{}, err
	}
	mv, err := s.messages(rq, c, 0, app.Time{})
	if err != nil {
		return chatView{}, err
	}
	h, err := s.header(rq, c)
	if err != nil {
		return chatView{}, err
	}
	cv, err := s.contactView(rq, c)
	if err != nil {
		return chatView{}, err
	}
	return chatView{Chat: c, Contact: contactName(c), Header: h, Messages: mv, CanWrite: rq.Can(app.Write("inbox")),
		CanNote: rq.Can(app.Write("contacts")) && c.ContactID != "", CSRF: rq.CSRF(), ContactView: cv}, nil
}

func (s *Server) header(rq *Request, c app.Chat) (headerView, error) {
	h := headerView{Chat: c, Contact: contactName(c), CanWrite: rq.Can(app.Write("inbox"))}
	if st := c.State; st != nil {
		h.Channel, h.State, h.AI = st.IntegrationID, st.State, st.AIEnabled
		if st.AssignedUser != nil {
			h.Assignee = st.AssignedUser.Name
		}
		h.Snoozed, h.Closed = st.State == "SNOOZED", st.State == "CLOSED"
		h.Waiting = !st.AIEnabled && c.AssignedUserID == "" && st.State == "OPEN" && c.ContactID != ""
	}
	h.Mine = c.AssignedUserID == rq.Session.MemberID
	if h.CanWrite && rq.Can(app.Read("members")) {
		ms, err := s.svc.ListMembers(rq.Ctx(), rq.Org(), app.Page{Page: 1, Take: app.MaxTake})
		if err != nil {
			return h, err
		}
		h.Members = ms.Items
	}
	return h, nil
}

// messages reads a page of a chat's messages (page 0: the newest) with the contact's private
// notes of the same stretch of time among them, in time order. before bounds the stretch
// above (the first message of the page below; zero for the newest page).
func (s *Server) messages(rq *Request, c app.Chat, page int, before app.Time) (messagesView, error) {
	if page == 0 {
		first, err := s.svc.ListMessages(rq.Ctx(), rq.Org(), c.ID, "", app.Page{Page: 1, Take: 1})
		if err != nil {
			return messagesView{}, err
		}
		page = max(1, (first.Total+messageTake-1)/messageTake)
	}
	l, err := s.svc.ListMessages(rq.Ctx(), rq.Org(), c.ID, "", app.Page{Page: page, Take: messageTake})
	if err != nil {
		return messagesView{}, err
	}
	mv := messagesView{ChatID: c.ID, Older: page - 1}
	for _, m := range l.Items {
		mv.Items = append(mv.Items, s.msg(rq, c, m))
	}
	from := c.CreatedAt
	if page > 1 && len(l.Items) > 0 {
		from = l.Items[0].CreatedAt
	}
	if len(l.Items) > 0 {
		mv.FirstAt = l.Items[0].CreatedAt.String()
	}
	notes, err := s.notesBetween(rq, c, from, before)
	if err != nil {
		return messagesView{}, err
	}
	mv.Items = mergeByTime(mv.Items, notes)
	return mv, nil
}

// notesBetween are the private notes on the chat's contact made in [from, before) (before
// zero: no bound), when the role reads contacts.
func (s *Server) notesBetween(rq *Request, c app.Chat, from, before app.Time) ([]msgView, error) {
	if c.ContactID == "" || !rq.Can(app.Read("contacts")) {
		return nil, nil
	}
	l, err := s.svc.ListNotes(rq.Ctx(), rq.Org(), c.ContactID, app.Page{Page: 1, Take: app.MaxTake})
	if err != nil {
		return nil, err
	}
	var out []msgView
	for _, n := range l.Items {
		if !n.CreatedAt.Before(from.Time) && (before.IsZero() || n.CreatedAt.Before(before.Time)) {
			out = append(out, noteView(n))
		}
	}
	return out, nil
}

// mergeByTime puts notes among messages by time; a note made in the same millisecond as a
// message comes after it.
func mergeByTime(msgs, notes []msgView) []msgView {
	if len(notes) == 0 {
		return msgs
	}
	all := append(append([]msgView{}, msgs...), notes...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].At.Before(all[j].At.Time) })
	return all
}

func (s *Server) msg(rq *Request, c app.Chat, m app.Message) msgView {
	v := msgView{ID: m.ID, Role: m.Role, At: m.CreatedAt, Text: app.StreamText(m), Running: m.Status == "RUNNING"}
	if v.Running && s.svc.LiveTexts() != nil {
		if live, ok := s.svc.LiveTexts().LiveText(rq.Org(), c.ID, m.ID); ok && utf8.RuneCountInString(live) > utf8.RuneCountInString(v.Text) {
			v.Text = live
		}
	}
	v.Offset = utf8.RuneCountInString(v.Text)
	if m.Status == "FAILED" && m.Error != nil {
		v.Failed = *m.Error
	}
	switch m.Role {
	case "user":
		v.Author = contactName(c)
		if c.ContactID == "" && m.Member != nil && m.Member.User != nil && m.Member.User.Name != "" {
			v.Author = m.Member.User.Name // the playground: the member is the user
		}
	case "assistant":
		v.Author = "Assistant"
		if c.State != nil && c.State.Assistant != nil {
			v.Author = c.State.Assistant.Name
		}
	default:
		v.Author = "Member"
		if m.Member != nil && m.Member.User != nil && m.Member.User.Name != "" {
			v.Author = m.Member.User.Name
		}
	}
	for _, t := range m.Messages {
		for _, p := range t.Parts {
			if p.Citation != nil {
				v.Citations = append(v.Citations, *p.Citation)
			}
			if p.ToolCall != nil {
				v.Tools = append(v.Tools, *p.ToolCall)
			}
		}
	}
	v.Delivery, v.DelivErr = delivery(m)
	return v
}

// delivery reads a message's delivery status from its JSON form, so the pane shows it as
// soon as messages carry one (the delivery worker's field), whatever its Go shape.
func delivery(m app.Message) (status, errText string) {
	b, err := json.Marshal(m)
	if err != nil {
		return "", ""
	}
	d := gjson.GetBytes(b, "delivery")
	return d.Get("status").String(), d.Get("error").String()
}

func textOf(m app.Message) string { return strings.TrimSpace(app.StreamText(m)) }

// chat is GET /app/chats/{id}: the conversation and contact panes for htmx, or the whole
// inbox with this chat open for a page load.
func (s *Server) chat(rq *Request) error {
	if !rq.HTMX() {
		lq := readListQuery(rq.R.URL.Query())
		lq.Chat = rq.Params.ByName("id")
		http.Redirect(rq.W, rq.R, lq.URL(), http.StatusSeeOther)
		return nil
	}
	cv, err := s.chatView(rq, rq.Params.ByName("id"))
	if err != nil {
		return err
	}
	return s.render(rq, http.StatusOK, "chat-swap", map[string]any{"Chat": cv, "Perms": rq.Session.Principal.Perms})
}

func (s *Server) chatHeader(rq *Request) error {
	c, err := s.svc.GetChat(rq.Ctx(), rq.Org(), rq.Params.ByName("id"))
	if err != nil {
		return err
	}
	h, err := s.header(rq, c)
	if err != nil {
		return err
	}
	return s.render(rq, http.StatusOK, "header", h)
}

// olderMessages is GET /app/chats/{id}/messages?page=N: a page above those shown.
func (s *Server) olderMessages(rq *Request) error {
	page, err := strconv.Atoi(rq.R.URL.Query().Get("page"))
	if err != nil || page < 1 || page > 1000000 {
		return app.Invalid("page", "must be a whole number from 1")
	}
	var before app.Time
	if v := rq.R.URL.Query().Get("before"); v != "" {
		if before, err = app.ParseTime(v); err != nil {
			return app.Invalid("before", "must be an RFC 3339 time")
		}
	}
	c, err := s.svc.GetChat(rq.Ctx(), rq.Org(), rq.Params.ByName("id"))
	if err != nil {
		return err
	}
	mv, err := s.messages(rq, c, page, before)
	if err != nil {
		return err
	}
	return s.render(rq, http.StatusOK, "messages", mv)
}

// oneMessage is one message, for app.js when the stream says it was created or changed.
func (s *Server) oneMessage(rq *Request) error {
	c, err := s.svc.GetChat(rq.Ctx(), rq.Org(), rq.Params.ByName("id"))
	if err != nil {
		return err
	}
	m, err := s.svc.GetMessage(rq.Ctx(), rq.Org(), c.ID, rq.Params.ByName("mid"))
	if err != nil {
		return err
	}
	return s.render(rq, http.StatusOK, "message", s.msg(rq, c, m))
}
