package web

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"wsapi/app"
	"wsapi/app/stream"
)

// writeTimeout bounds one write to a tab: one that takes no bytes this long is cut off.
const writeTimeout = 30 * time.Second

// events is GET /app/events?chat=ID: the tab's one live stream. It carries, from the hub
// behind the API's streams, the organization's events the member's role may read (the list
// redraws itself on them) and the deltas of the chat open in the tab (the assistant's text
// as it streams). Every heartbeat checks the session again, so a sign-out everywhere, a
// deleted member or a changed role ends the stream within a heartbeat.
func (s *Server) events(rq *Request) error {
	chatID := rq.R.URL.Query().Get("chat")
	if chatID != "" {
		if _, err := s.svc.GetChat(rq.Ctx(), rq.Org(), chatID); err != nil {
			return err
		}
	}
	perms := rq.Session.Principal.Perms
	sub, snap, err := s.cfg.Hub.Subscribe(rq.Ctx(), stream.Filter{OrgID: rq.Org(), DeltaChatID: chatID,
		Area: func(area string) bool { return perms.Has(app.Read(area)) }})
	if err != nil {
		return err
	}
	defer s.cfg.Hub.Unsubscribe(sub)
	h := rq.W.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	rq.W.WriteHeader(http.StatusOK)
	w := &sse{w: rq.W, rc: http.NewResponseController(rq.W)}
	if w.send("retry: 2000\nevent: hello\ndata: {}\n\n") != nil {
		return nil
	}
	for _, lm := range snap.Live {
		if w.json("live", map[string]any{"message": lm.MessageID, "text": lm.Text}) != nil {
			return nil
		}
	}
	s.pump(rq, w, sub)
	return nil
}

func (s *Server) pump(rq *Request, w *sse, sub *stream.Subscriber) {
	beat := time.NewTicker(s.cfg.Heartbeat)
	defer beat.Stop()
	token := s.sessionToken(rq.R)
	for {
		select {
		case <-rq.Ctx().Done():
			return
		case it, ok := <-sub.C:
			if !ok || w.item(it) != nil {
				return // dropped for falling behind: the tab reconnects and redraws
			}
		case <-beat.C:
			ses, err := s.auth.Authenticate(rq.Ctx(), token)
			if err != nil || !ses.Principal.Perms.Has(app.Read("inbox")) {
				_ = w.send("event: signedout\ndata: {}\n\n")
				return
			}
			if w.send(": ping\n\n") != nil {
				return
			}
		}
	}
}

// sse writes events and flushes after each.
type sse struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (w *sse) send(s string) error {
	_ = w.rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	if _, err := w.w.Write([]byte(s)); err != nil {
		return err
	}
	return w.rc.Flush()
}

func (w *sse) json(event string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return w.send("event: " + event + "\ndata: " + string(b) + "\n\n")
}

// item writes a hub item in the small form app.js reads: the chat and the message a
// stored event is about (the tab fetches what it shows), or a delta's text.
func (w *sse) item(it *stream.Item) error {
	if it.IsDelta() {
		return w.json("delta", map[string]any{"chat": it.ChatID, "message": it.MessageID, "offset": it.Offset, "text": it.Text})
	}
	if !strings.HasPrefix(it.Type, "chat.") && !strings.HasPrefix(it.Type, "message.") && it.Type != app.StreamContactUpdated {
		return nil
	}
	msg := ""
	switch it.Type {
	case app.StreamMessageCreated, app.StreamMessageUpdated:
		msg = gjson.GetBytes(it.Data, "id").String()
	case app.StreamMessageToolCall:
		msg = gjson.GetBytes(it.Data, "message_id").String()
	}
	return w.json("change", map[string]any{"type": it.Type, "chat": it.ChatID, "message": msg})
}
