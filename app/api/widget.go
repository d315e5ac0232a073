package api

import (
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"

	"wsapi/app"
	"wsapi/app/budget"
	"wsapi/app/channel/widget"
	"wsapi/app/stream"
)

// The web widget's public routes (docs/channels.md). The visitor API authenticates by the
// widget session's token (header X-Session-Token; the stream, which EventSource opens without
// headers, by the query parameter token), never by a key; every answer is the visitor's own
// view (app/channel/widget), and another widget's or another visitor's object is not_found.

// visitorStreamBuffer bounds the items a visitor's stream may have waiting (the hub drops a
// subscriber that falls further behind; the widget resumes with Last-Event-ID): one chat's
// events and deltas need a fraction of an inbox's events.stream_buffer, and 5,000 open
// visitor streams then hold 1 KiB of queue each instead of 8.
const visitorStreamBuffer = 128

// maxVisitorBody bounds a visitor's JSON body: 4,000 characters of text fit in it.
const maxVisitorBody = 32 << 10

func (s *Server) widgetLoader(rq *Request) error {
	s.widget.Loader(rq.W, rq.R)
	return nil
}

func (s *Server) widgetAsset(rq *Request) error {
	return s.widget.Asset(rq.W, rq.Param("file"))
}

func (s *Server) widgetPage(rq *Request) error {
	d, a, err := s.svc.WidgetOf(rq.Ctx(), rq.Param("asi"))
	if err != nil {
		return err
	}
	return s.widget.Page(rq.W, d, a)
}

// visitorAnswer is a session as the widget page reads it.
type visitorAnswer struct {
	Token   string         `json:"token,omitempty"`
	Session visitorSession `json:"session"`
	Widget  widgetInfo     `json:"widget"`
	Chat    *widget.Chat   `json:"chat"`
	Chats   []widget.Chat  `json:"chats"`
}

type visitorSession struct {
	ID         string `json:"id"`
	ContactID  string `json:"contact_id"`
	Identified bool   `json:"identified"`
}

type widgetInfo struct {
	Name              string   `json:"name"`
	AvatarURL         string   `json:"avatar_url"`
	WelcomeBanner     string   `json:"welcome_banner"`
	SuggestedMessages []string `json:"suggested_messages"`
	RequireIdentity   bool     `json:"require_identity"`
	// AsksRating: the assistant asks for a 1-5 rating when a chat is resolved
	// (enable_auto_csat); the widget then offers the scores.
	AsksRating bool `json:"asks_rating"`
}

func (s *Server) visitorStart(rq *Request) error {
	if err := s.visitorLimits.session(rq); err != nil {
		return err
	}
	var in app.VisitorStart
	if err := decodeJSON(rq.W, rq.R, maxVisitorBody, &in); err != nil {
		return err
	}
	in.Agent, in.Language = rq.R.UserAgent(), firstLanguage(rq.R.Header.Get("Accept-Language"))
	in.IP = clientIP(rq.R, s.cfg.TrustedProxies)
	v, token, err := s.svc.StartVisitor(rq.Ctx(), rq.Param("asi"), in)
	if err != nil {
		return err
	}
	return rq.Created(s.visitorAnswer(rq, v, token))
}

// firstLanguage is the first tag of Accept-Language ("fr-CH" of "fr-CH, fr;q=0.9").
func firstLanguage(h string) string {
	tag, _, _ := strings.Cut(h, ",")
	tag, _, _ = strings.Cut(tag, ";")
	return strings.TrimSpace(tag)
}

func (s *Server) visitorSession(rq *Request) error {
	v, err := s.visitor(rq, rq.R.Header.Get("X-Session-Token"))
	if err != nil {
		return err
	}
	return rq.OK(s.visitorAnswer(rq, v, ""))
}

func (s *Server) visitor(rq *Request, token string) (app.Visitor, error) {
	return s.svc.VisitorByToken(rq.Ctx(), rq.Param("asi"), token)
}

func (s *Server) visitorAnswer(rq *Request, v app.Visitor, token string) (visitorAnswer, error) {
	_, a, err := s.svc.WidgetOf(rq.Ctx(), v.Deployment.ID)
	if err != nil {
		return visitorAnswer{}, err
	}
	chats, err := s.svc.VisitorChats(rq.Ctx(), v)
	if err != nil {
		return visitorAnswer{}, err
	}
	conv := a.Config.Conversation
	out := visitorAnswer{Token: token, Chats: []widget.Chat{},
		Session: visitorSession{ID: v.Session.ID, ContactID: v.Session.ContactID, Identified: v.Session.UserID != ""},
		Widget: widgetInfo{Name: a.Name, AvatarURL: a.AvatarURL, WelcomeBanner: conv.WelcomeBanner,
			SuggestedMessages: conv.SuggestedMessages, RequireIdentity: v.Deployment.RequireIdentity(),
			AsksRating: conv.EnableAutoCSAT}}
	if out.Widget.SuggestedMessages == nil {
		out.Widget.SuggestedMessages = []string{}
	}
	for _, c := range chats {
		out.Chats = append(out.Chats, widget.ChatView(c))
	}
	if len(out.Chats) > 0 {
		out.Chat = &out.Chats[0]
	}
	return out, nil
}

// visitorChat is the chat the request names (chat_id), or the visitor's newest.
func (s *Server) visitorChat(rq *Request, v app.Visitor) (app.Chat, error) {
	id := rq.R.URL.Query().Get("chat_id")
	if id == "" {
		chats, err := s.svc.VisitorChats(rq.Ctx(), v)
		if err != nil || len(chats) == 0 {
			return app.Chat{}, firstErr(err, app.NotFound("chat"))
		}
		id = chats[0].ID
	}
	return s.svc.VisitorChat(rq.Ctx(), v, id)
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// visitorMessages answers the last 100 messages of the visitor's chat, oldest first.
func (s *Server) visitorMessages(rq *Request) error {
	v, err := s.visitor(rq, rq.R.Header.Get("X-Session-Token"))
	if err != nil {
		return err
	}
	c, err := s.visitorChat(rq, v)
	if err != nil {
		return err
	}
	l, err := s.svc.LatestMessages(rq.Ctx(), v.Session.OrgID, c.ID, 100)
	if err != nil {
		return err
	}
	return rq.OK(widget.MessageViews(l), nil)
}

type visitorText struct {
	Text string `json:"text"`
}

type visitorSent struct {
	Message widget.Message `json:"message"`
	Chat    widget.Chat    `json:"chat"`
}

func (s *Server) visitorSend(rq *Request) error {
	v, err := s.visitor(rq, rq.R.Header.Get("X-Session-Token"))
	if err != nil {
		return err
	}
	if err := s.visitorLimits.message(rq, v); err != nil {
		return err
	}
	var in visitorText
	if err := decodeJSON(rq.W, rq.R, maxVisitorBody, &in); err != nil {
		return err
	}
	m, err := s.svc.VisitorMessage(rq.Ctx(), v, in.Text)
	if err != nil {
		return err
	}
	c, err := s.svc.VisitorChat(rq.Ctx(), v, m.ChatID)
	if err != nil {
		return err
	}
	return rq.Created(visitorSent{Message: widget.MessageView(m), Chat: widget.ChatView(c)}, nil)
}

// visitorStream is the visitor's chat as Server-Sent Events, resumable with Last-Event-ID:
// the chat stream of the API, each event in its visitor view.
func (s *Server) visitorStream(rq *Request) error {
	vs, err := s.openVisitorStream(rq)
	if err != nil {
		return err
	}
	return s.streamChat(rq, vs.from, widget.Event, vs.watch, vs.release)
}

// visitorStreamArgs is what a visitor's stream needs once it is allowed.
type visitorStreamArgs struct {
	from    resumePoint
	release func()
	watch   func(*stream.Subscriber) (stop func())
}

// openVisitorStream checks the visitor, its chat and its limits, and holds its slots. It is a
// frame of its own (not inlined into visitorStream), so what it needs on the stack is gone
// while the stream is open: each open stream's goroutine then keeps a smaller stack.
//
//go:noinline
func (s *Server) openVisitorStream(rq *Request) (visitorStreamArgs, error) {
	p := app.Problems{}
	from := parseResume(rq.R, p)
	if err := p.Err(); err != nil {
		return visitorStreamArgs{}, err
	}
	// The authentication version before the session is read: the guard re-checks the stream
	// once it moves (streamguard.go), so no change after this read is missed, and an
	// unchanged one costs no check.
	version, err := s.svc.AuthVersion(rq.Ctx())
	if err != nil {
		return visitorStreamArgs{}, err
	}
	token := rq.R.URL.Query().Get("token")
	v, err := s.visitor(rq, token)
	if err != nil {
		return visitorStreamArgs{}, err
	}
	c, err := s.visitorChat(rq, v)
	if err != nil {
		return visitorStreamArgs{}, err
	}
	release, err := s.visitorLimits.stream(rq, v)
	if err != nil {
		return visitorStreamArgs{}, err
	}
	held, err := s.holdVisitorStream(rq, v)
	if err != nil {
		release()
		return visitorStreamArgs{}, err
	}
	rq.Caller.OrgID, rq.params["id"] = v.Session.OrgID, c.ID
	rq.W.Header().Set("Cache-Control", "no-store")
	asi := v.Deployment.ID
	return visitorStreamArgs{from: from, release: func() { held(); release() },
		watch: func(sub *stream.Subscriber) func() { return s.watchVisitor(asi, token, version, sub) }}, nil
}

// visitorFile takes one file (multipart field "file", at most 10 MiB) as the visitor's
// message. Its type is sniffed from its bytes, not taken from the browser.
func (s *Server) visitorFile(rq *Request) error {
	v, err := s.visitor(rq, rq.R.Header.Get("X-Session-Token"))
	if err != nil {
		return err
	}
	if err := s.visitorLimits.message(rq, v); err != nil {
		return err
	}
	name, declared, data, err := readUpload(rq)
	if err != nil {
		return err
	}
	m, err := s.svc.VisitorFile(rq.Ctx(), v, name, widget.FileType(declared, data), data)
	if err != nil {
		return err
	}
	c, err := s.svc.VisitorChat(rq.Ctx(), v, m.ChatID)
	if err != nil {
		return err
	}
	return rq.Created(visitorSent{Message: widget.MessageView(m), Chat: widget.ChatView(c)}, nil)
}

// readUpload reads the multipart part "file", refusing more than app.MaxVisitorFile.
func readUpload(rq *Request) (name, declared string, data []byte, err error) {
	body := http.MaxBytesReader(rq.W, rq.R.Body, app.MaxVisitorFile+64<<10) // the file and its part headers
	rq.R.Body = body
	mr, err := rq.R.MultipartReader()
	if err != nil {
		return "", "", nil, app.Invalid("file", "send the file as multipart/form-data in the field \"file\"")
	}
	for {
		part, err := mr.NextPart()
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			return "", "", nil, errTooLarge
		case err != nil:
			return "", "", nil, app.Invalid("file", "send the file as multipart/form-data in the field \"file\"")
		}
		if part.FormName() != "file" {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(part, app.MaxVisitorFile+1))
		if errors.As(err, &tooBig) || len(data) > app.MaxVisitorFile {
			return "", "", nil, errTooLarge
		}
		if err != nil {
			return "", "", nil, app.Invalid("file", "could not be read")
		}
		return filepath.Base(part.FileName()), part.Header.Get("Content-Type"), data, nil
	}
}

// holdVisitorStream takes the visitor stream's slot of the server's stream budget (its
// server-wide cap and the per-address cap shared with every other stream), counted under the
// widget too (budget kind "widget"), after the widget's own caps (visitorLimits).
func (s *Server) holdVisitorStream(rq *Request, v app.Visitor) (release func(), err error) {
	if s.cfg.Streams == nil {
		return func() {}, nil
	}
	release, err = s.cfg.Streams.Acquire(budget.Key{Kind: budget.KindIP, Value: clientIP(rq.R, s.cfg.TrustedProxies)},
		budget.Key{Kind: "widget", Value: v.Deployment.ID})
	var full *budget.FullError
	if errors.As(err, &full) {
		return nil, StreamsFull(rq.W.Header(), full)
	}
	return release, err
}
