package api

import (
	"strconv"
	"strings"

	"wsapi/app"
	"wsapi/app/stream"
)

// chatStream is GET /orgs/{org}/chats/{id}/stream: the chat's events and the deltas of its
// runs as Server-Sent Events (see docs/assistants.md, "Streaming").
func (s *Server) chatStream(rq *Request) error {
	p := app.Problems{}
	from := parseResume(rq.R, p)
	if err := p.Err(); err != nil {
		return err
	}
	if _, err := s.svc.GetChat(rq.Ctx(), rq.Org(), rq.Param("id")); err != nil {
		return err
	}
	release, err := s.holdStream(rq)
	if err != nil {
		return err
	}
	return s.streamChat(rq, from, nil, func(sub *stream.Subscriber) func() { return s.watchRevocation(rq, sub) }, release)
}

// streamChat serves the stream of the chat rq.Param("id") of rq.Org() from a resume point,
// its slot of the stream budget already held; rewrite, when set, turns each stored event into
// what the client may see (sseWriter), and the subscription is a widget visitor's. watch puts
// the stream under the guard that ends it on a revocation (streamguard.go) until its stop.
// release frees the stream's slots once it has ended, which may be after this returns (a
// detached stream, ssedetach.go).
func (s *Server) streamChat(rq *Request, from resumePoint, rewrite func(string, []byte) ([]byte, bool),
	watch func(*stream.Subscriber) (stop func()), release func()) error {
	f := stream.Filter{OrgID: rq.Org(), ChatID: rq.Param("id")}
	if rewrite != nil {
		f.Buffer = visitorStreamBuffer
	}
	return s.subscribeAndServe(rq, f, watch, release, func(sub *stream.Subscriber, snap stream.Snapshot) (*sseWriter, *sent) {
		return s.startChatStream(rq, sub, snap, from, rewrite)
	})
}

// subscribeAndServe subscribes to f, lets start answer the stream's headers and backlog, then
// serves the stream (ssedetach.go); watch puts it under the revocation guard. Once the stream
// is over, or start found the client gone, the watch stops, the subscription ends and release
// frees the stream's slots, in that order.
func (s *Server) subscribeAndServe(rq *Request, f stream.Filter, watch func(*stream.Subscriber) (stop func()),
	release func(), start func(*stream.Subscriber, stream.Snapshot) (*sseWriter, *sent)) error {
	sub, snap, err := s.cfg.Hub.Subscribe(rq.Ctx(), f)
	if err != nil {
		release()
		return err
	}
	stopWatch := watch(sub)
	end := func() {
		stopWatch()
		s.cfg.Hub.Unsubscribe(sub)
		release()
	}
	w, st := start(sub, snap)
	if w == nil {
		end()
		return nil
	}
	s.serveStream(rq, w, sub, st, end)
	return nil
}

// startChatStream answers the stream's headers and its backlog; nil when the client is gone.
// A frame of its own (not inlined), so that the stack it needs is not kept while the stream is
// open.
//
//go:noinline
func (s *Server) startChatStream(rq *Request, sub *stream.Subscriber, snap stream.Snapshot, from resumePoint,
	rewrite func(string, []byte) ([]byte, bool)) (*sseWriter, *sent) {
	w, err := startSSE(rq, sub)
	if err != nil {
		return nil, nil // the client is gone
	}
	w.rewrite = rewrite
	st := &sent{seq: snap.LastSeq, offsets: map[string]int{}}
	if err := s.chatBacklog(rq, w, st, from, snap); err != nil {
		w.finish()
		logFrom(rq.R).Info("chat stream ended", "err", err)
		return nil, nil
	}
	return w, st
}

// chatBacklog writes what a client lacks before the live items: on a fresh connection a
// sync; on a resume the rest of the message it stood in, the stored events after its id, and
// the text so far of runs in flight.
func (s *Server) chatBacklog(rq *Request, w *sseWriter, st *sent, from resumePoint, snap stream.Snapshot) error {
	if !from.set {
		return s.writeSync(rq, w, st)
	}
	if from.hasOffset {
		if err := s.resumeDelta(rq, w, st, from, snap); err != nil {
			return err
		}
	}
	st.seq = from.seq
	if err := s.writeBacklog(rq, w, st, rq.Param("id"), func(app.StreamEvent) bool { return true }); err != nil {
		return err
	}
	needSync := false
	for _, lm := range snap.Live {
		switch _, has := st.offsets[lm.MessageID]; {
		case has:
		case lm.Seq > from.seq: // its message.created was in the backlog: all of its text is new
			it := stream.Item{Seq: lm.Seq, Type: app.StreamMessageDelta, ChatID: rq.Param("id"), MessageID: lm.MessageID, Text: lm.Text}
			if it, ok := st.cut(it); ok {
				if err := w.delta(it); err != nil {
					return err
				}
			}
		default: // the client knew the run but not how far it got: a snapshot replaces it
			needSync = true
		}
	}
	if needSync {
		return s.writeSync(rq, w, st)
	}
	return nil
}

// writeSync writes the in-flight message as it stands (or null), with the stream's
// position as id.
func (s *Server) writeSync(rq *Request, w *sseWriter, st *sent) error {
	m, err := s.svc.SyncMessage(rq.Ctx(), rq.Org(), rq.Param("id"))
	if err != nil {
		return err
	}
	if m != nil {
		st.have(m.ID, app.StreamText(*m))
	}
	data, err := app.EncodeJSON(m)
	if err != nil {
		return err
	}
	return w.event(strconv.FormatInt(st.seq, 10), app.StreamSync, data)
}

// resumeDelta sends the text of message S from rune O on: the hub's live text, or the
// stored text when the hub no longer holds it.
func (s *Server) resumeDelta(rq *Request, w *sseWriter, st *sent, from resumePoint, snap stream.Snapshot) error {
	chatID := rq.Param("id")
	var msgID, text string
	for _, lm := range snap.Live {
		if lm.Seq == from.seq && from.seq > 0 {
			msgID, text = lm.MessageID, lm.Text
		}
	}
	if msgID == "" {
		var err error
		msgID, text, err = s.svc.ResumeText(rq.Ctx(), rq.Org(), chatID, from.seq)
		if app.IsNotFound(err) {
			return nil // purged, or not a message.created of this chat: the stored events follow
		}
		if err != nil {
			return err
		}
	}
	st.offsets[msgID] = from.offset
	it, ok := st.cut(stream.Item{Seq: from.seq, Type: app.StreamMessageDelta, ChatID: chatID, MessageID: msgID, Text: text})
	if !ok {
		return nil
	}
	return w.delta(it)
}

// writeBacklog writes the stored events after st.seq (of a chat, or of the organization when
// chatID is empty) that keep passes.
func (s *Server) writeBacklog(rq *Request, w *sseWriter, st *sent, chatID string, keep func(app.StreamEvent) bool) error {
	for {
		es, err := s.svc.StreamEventsAfter(rq.Ctx(), rq.Org(), chatID, st.seq, backlogPage)
		if err != nil {
			return err
		}
		for _, e := range es {
			st.seq = e.Seq
			if !keep(e) {
				continue
			}
			if err := w.persisted(e.Seq, e.Type, e.Data); err != nil {
				return err
			}
		}
		if len(es) < backlogPage {
			return nil
		}
	}
}

// orgStream is GET /orgs/{org}/events/stream: the organization's events as they commit,
// those of areas the key may read, optionally of some types only.
func (s *Server) orgStream(rq *Request) error {
	p := app.Problems{}
	from := parseResume(rq.R, p)
	types := parseTypes(rq.R.URL.Query().Get("types"), p)
	if err := p.Err(); err != nil {
		return err
	}
	release, err := s.holdStream(rq)
	if err != nil {
		return err
	}
	perms := rq.Caller.Perms
	f := stream.Filter{OrgID: rq.Org(), Types: types, Area: func(area string) bool { return perms.Has(app.Read(area)) }}
	watch := func(sub *stream.Subscriber) func() { return s.watchRevocation(rq, sub) }
	return s.subscribeAndServe(rq, f, watch, release, func(sub *stream.Subscriber, snap stream.Snapshot) (*sseWriter, *sent) {
		return s.startOrgStream(rq, sub, snap, from, f)
	})
}

// startOrgStream answers the stream's headers and its position or backlog; nil when the
// client is gone.
//
//go:noinline
func (s *Server) startOrgStream(rq *Request, sub *stream.Subscriber, snap stream.Snapshot, from resumePoint,
	f stream.Filter) (*sseWriter, *sent) {
	w, err := startSSE(rq, sub)
	if err != nil {
		return nil, nil
	}
	st := &sent{seq: snap.LastSeq}
	if !from.set {
		err = w.position(snap.LastSeq)
	} else {
		st.seq = from.seq
		err = s.writeBacklog(rq, w, st, "", f.Matches)
	}
	if err != nil {
		w.finish()
		logFrom(rq.R).Info("event stream ended", "err", err)
		return nil, nil
	}
	return w, st
}

// parseTypes reads the types filter: comma-separated known types; empty is every type.
func parseTypes(v string, p app.Problems) map[string]bool {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	types := map[string]bool{}
	for _, t := range strings.Split(v, ",") {
		t = strings.TrimSpace(t)
		if !app.KnownStreamType(t) {
			p.Add("types", "unknown event type "+strconv.Quote(t)+"; see GET /orgs/{org}/webhooks/events?all=true")
		}
		types[t] = true
	}
	return types
}
