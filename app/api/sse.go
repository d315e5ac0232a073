package api

import (
	"bytes"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"wsapi/app"
	"wsapi/app/stream"
)

// sseWriteTimeout bounds one write to a watcher: a client that takes no bytes for this long
// is cut off (the server's own WriteTimeout is lifted for streams).
const sseWriteTimeout = time.Minute

// backlogPage is how many stored events one read of a resumed stream's backlog takes.
const backlogPage = 500

// errCut is a write to a stream whose subscription has ended.
var errCut = errors.New("api: stream subscription ended")

// sseWriter writes Server-Sent Events and flushes after each, unless hold is set. Events
// gather in out until the flush, which sends them in one write: through net/http, or, once
// the stream is detached (ssedetach.go), as one chunk on its own connection.
type sseWriter struct {
	w  http.ResponseWriter // nil once detached
	rc *http.ResponseController
	// conn is the stream's connection once detached from net/http.
	conn net.Conn
	out  []byte
	// hold defers the flush while pump writes what is already queued (see writeQueued).
	hold bool
	// mu orders the deadlines: once cut, no write may set a later one. done: the handler
	// has returned, and the ResponseWriter is net/http's again (finish).
	mu   sync.Mutex
	cut  bool
	done bool
	// rewrite, when set, turns each stored event into what this client may see, or drops it
	// (false): the widget's visitors (widget.Event). Deltas pass as they are.
	rewrite func(typ string, data []byte) ([]byte, bool)
}

// startSSE answers 200 with the event-stream headers. A subscription that ends (dropped for
// falling behind, or the hub closing) cuts a write that is blocked on a slow client at once.
func startSSE(rq *Request, sub *stream.Subscriber) (*sseWriter, error) {
	h := rq.W.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	rq.W.WriteHeader(http.StatusOK)
	w := &sseWriter{w: rq.W, rc: http.NewResponseController(rq.W)}
	// Once the subscription ends (dropped, revoked, the hub closing, or the handler's own
	// Unsubscribe as it returns) no write may wait on the client: not the pump's, nor the
	// server's last flush. Run by the subscription's end, so an open stream holds no goroutine
	// of its own for it.
	sub.AfterEnd(w.cutOff)
	if err := w.flush(); err != nil {
		w.finish()
		return nil, err
	}
	return w, nil
}

// cutOff fails every write from now on, one blocked on a slow client included, and wakes a
// detached stream's goroutine from its read.
func (w *sseWriter) cutOff() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cut = true
	switch {
	case w.conn != nil:
		_ = w.conn.SetDeadline(time.Now())
	case !w.done:
		_ = w.rc.SetWriteDeadline(time.Now())
	}
}

// finish must run before the handler of a stream that was not detached returns: the
// subscription's end runs cutOff in a goroutine of its own, which may come after that
// return, and net/http's HTTP/2 server frees the ResponseWriter with its handler (a deadline
// set then was a nil dereference that ended the process). It also cuts the server's last
// flush short, so that no write waits on the client once the stream is over.
func (w *sseWriter) finish() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.conn == nil && !w.done {
		w.cut, w.done = true, true
		_ = w.rc.SetWriteDeadline(time.Now())
	}
}

// isCut tells whether cutOff ran.
func (w *sseWriter) isCut() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cut
}

// event writes one event; an empty id writes no id line (the client keeps its last one).
func (w *sseWriter) event(id, typ string, data []byte) error {
	if w.rewrite != nil {
		var ok bool
		if data, ok = w.rewrite(typ, data); !ok {
			return nil
		}
	}
	w.out = appendEvent(w.out, id, typ, data)
	return w.written()
}

// appendEvent appends the wire form of one event to b.
func appendEvent(b []byte, id, typ string, data []byte) []byte {
	if id != "" {
		b = append(append(append(b, "id: "...), id...), '\n')
	}
	b = append(append(append(b, "event: "...), typ...), "\ndata: "...)
	b = append(b, bytes.TrimSpace(data)...) // encoded JSON holds no newline
	return append(b, "\n\n"...)
}

// position writes an id with no data: the client's Last-Event-ID moves to it, and no event
// is dispatched (so a client that reconnects before any event resumes from here).
func (w *sseWriter) position(seq int64) error {
	w.out = append(strconv.AppendInt(append(w.out, "id: "...), seq, 10), "\n\n"...)
	return w.written()
}

// ping is the heartbeat comment that keeps proxies from closing an idle stream.
func (w *sseWriter) ping() error {
	return w.write([]byte(": ping\n\n"))
}

// write writes p, which it does not keep.
func (w *sseWriter) write(p []byte) error {
	w.out = append(w.out, p...)
	return w.written()
}

// holdMax is how much a held burst gathers before it is flushed all the same.
const holdMax = 32 << 10

// written flushes what out gathered, unless a burst is held (and still small).
func (w *sseWriter) written() error {
	if w.hold && len(w.out) < holdMax {
		return nil
	}
	return w.flush()
}

// flush sends what out gathered, under a fresh write deadline: the server's WriteTimeout
// counts from the request's start, a stream sets its own for each write.
func (w *sseWriter) flush() (err error) {
	w.mu.Lock()
	cut := w.cut
	if !cut {
		if w.conn != nil {
			_ = w.conn.SetWriteDeadline(time.Now().Add(sseWriteTimeout))
		} else {
			_ = w.rc.SetWriteDeadline(time.Now().Add(sseWriteTimeout))
		}
	}
	w.mu.Unlock()
	if cut {
		return errCut
	}
	switch {
	case w.conn != nil:
		err = w.writeChunk()
	case len(w.out) > 0:
		if _, err = w.w.Write(w.out); err == nil {
			err = w.rc.Flush()
		}
	default:
		err = w.rc.Flush()
	}
	w.release()
	return err
}

// release empties out and lets it go when it is large, or when the stream is detached: a
// detached stream is idle between flushes and keeps no buffer (thousands of them are open).
func (w *sseWriter) release() {
	if w.conn != nil || cap(w.out) > idleBuffer {
		w.out = nil
	}
	w.out = w.out[:0]
}

// idleBuffer is the most of out a stream in its handler keeps for its next event.
const idleBuffer = 512

// persisted writes a stored event with its seq as id.
func (w *sseWriter) persisted(seq int64, typ string, data []byte) error {
	return w.event(strconv.FormatInt(seq, 10), typ, data)
}

// deltaData is the data of a message.delta event.
type deltaData struct {
	MessageID string `json:"message_id"`
	ChatID    string `json:"chat_id"`
	Offset    int    `json:"offset"`
	Text      string `json:"text"`
}

// delta writes a piece of a run's text; its id is "S.O": the seq of the message's
// message.created and the rune offset where the piece ends.
func (w *sseWriter) delta(it stream.Item) error {
	b, err := deltaEvent(it)
	if err != nil {
		return err
	}
	return w.write(b)
}

// deltaEvent is the wire form of a delta.
func deltaEvent(it stream.Item) ([]byte, error) {
	b, err := app.EncodeJSON(deltaData{MessageID: it.MessageID, ChatID: it.ChatID, Offset: it.Offset, Text: it.Text})
	if err != nil {
		return nil, err
	}
	return appendEvent(nil, strconv.FormatInt(it.Seq, 10)+"."+strconv.Itoa(it.End()), app.StreamMessageDelta, b), nil
}

// shared writes an item the hub sent to every watcher as it came: its wire form is built
// by the first watcher that writes it and reused by the others.
func (w *sseWriter) shared(it stream.Item) error {
	if w.rewrite != nil && !it.IsDelta() { // this client's own form, not the shared one
		return w.persisted(it.Seq, it.Type, it.Data)
	}
	b := it.Shared.Bytes(func() []byte {
		if !it.IsDelta() {
			return appendEvent(nil, strconv.FormatInt(it.Seq, 10), it.Type, it.Data)
		}
		b, _ := deltaEvent(it) // nil on an encoding error, which delta then answers
		return b
	})
	if b == nil {
		return w.delta(it)
	}
	return w.write(b)
}

// resumePoint is a parsed Last-Event-ID: "S" or "S.O".
type resumePoint struct {
	set       bool
	seq       int64
	offset    int
	hasOffset bool
}

// parseResume reads Last-Event-ID (the header EventSource sends when it reconnects, or the
// last_event_id query parameter for a first connection that resumes).
func parseResume(r *http.Request, p app.Problems) resumePoint {
	v := r.Header.Get("Last-Event-ID")
	field := "Last-Event-ID"
	if v == "" {
		v, field = r.URL.Query().Get("last_event_id"), "last_event_id"
	}
	if v == "" {
		return resumePoint{}
	}
	seqPart, offPart, hasOffset := strings.Cut(v, ".")
	seq, err1 := strconv.ParseInt(seqPart, 10, 64)
	off, err2 := 0, error(nil)
	if hasOffset {
		off, err2 = strconv.Atoi(offPart)
	}
	if err1 != nil || err2 != nil || seq < 0 || off < 0 {
		p.Add(field, "must be an event id: <seq> or <seq>.<offset>")
		return resumePoint{}
	}
	return resumePoint{set: true, seq: seq, offset: off, hasOffset: hasOffset}
}

// sent is what a stream has written, so items that the subscription delivers again after
// the backlog or the snapshot are dropped, and deltas are cut where the client stands.
type sent struct {
	seq     int64
	offsets map[string]int // message id -> rune offset the client has
}

// fresh tells whether a stored event is new to the client, and records it.
func (s *sent) fresh(seq int64) bool {
	if seq <= s.seq {
		return false
	}
	s.seq = seq
	return true
}

// cut trims a delta to what the client lacks; false when it has all of it.
func (s *sent) cut(it stream.Item) (stream.Item, bool) {
	have := s.offsets[it.MessageID]
	end := it.End()
	if end <= have {
		return it, false
	}
	if it.Offset < have {
		it.Text, it.Offset = app.RunesFrom(it.Text, have-it.Offset), have
	}
	s.offsets[it.MessageID] = end
	return it, true
}

// have records that the client holds a message's text up to offset.
func (s *sent) have(messageID, text string) {
	s.offsets[messageID] = utf8.RuneCountInString(text)
}

// pump writes the subscription's items and heartbeats until the client leaves, the
// subscription ends or a write fails.
func (s *Server) pump(rq *Request, w *sseWriter, sub *stream.Subscriber, st *sent) {
	hb := time.NewTicker(s.cfg.StreamHeartbeat)
	defer hb.Stop()
	for {
		var err error
		select {
		case <-rq.Ctx().Done():
			return
		case <-hb.C:
			err = w.ping()
		case it, ok := <-sub.C:
			if !ok { // dropped or the hub closed: end the response without waiting on the client
				w.cutOff()
				return
			}
			err = writeQueued(w, st, sub, *it)
		}
		if err != nil {
			return
		}
	}
}

// writeQueued writes it and the items already queued behind it, then flushes once: a burst
// of deltas (a fast model, many watchers) costs one flush per watcher instead of one per
// delta. Consecutive queued deltas of one message go out as one delta (same text, the id of
// the last), so a watcher that fell behind catches up in one event instead of many. Only
// what is queued when it starts is taken, so a steady stream is still flushed.
func writeQueued(w *sseWriter, st *sent, sub *stream.Subscriber, it stream.Item) error {
	w.hold = true
	j := joiner{it: it}
	var err error
	for n := len(sub.C); err == nil && n > 0; n-- {
		next, ok := <-sub.C
		if !ok {
			break
		}
		if !j.join(*next) {
			err = writeItem(w, st, j.item())
			j = joiner{it: *next}
		}
	}
	if err == nil {
		err = writeItem(w, st, j.item())
	}
	w.hold = false
	if err != nil {
		return err
	}
	return w.flush()
}

// joiner gathers consecutive deltas of one message into one.
type joiner struct {
	it     stream.Item
	text   strings.Builder // the joined text once a second piece came
	end    int             // where the joined text ends, kept to not recount it
	joined bool
}

// join appends next when it is the piece that follows; false when it is not.
func (j *joiner) join(next stream.Item) bool {
	if !j.it.IsDelta() || !next.IsDelta() || next.MessageID != j.it.MessageID {
		return false
	}
	if !j.joined {
		j.end = j.it.End()
	}
	if next.Offset != j.end {
		return false
	}
	if !j.joined {
		j.text.WriteString(j.it.Text)
		j.joined = true
	}
	j.text.WriteString(next.Text)
	j.end = next.End()
	return true
}

// item is the gathered item: a joined delta has its own wire form, not the shared one.
func (j *joiner) item() stream.Item {
	if j.joined {
		j.it.Text, j.it.Shared = j.text.String(), nil
	}
	return j.it
}

func writeItem(w *sseWriter, st *sent, it stream.Item) error {
	if it.IsDelta() {
		cut, ok := st.cut(it)
		switch {
		case !ok:
			return nil
		case cut.Offset != it.Offset || it.Shared == nil: // trimmed to where this client stands
			return w.delta(cut)
		}
		return w.shared(it)
	}
	if !st.fresh(it.Seq) {
		return nil
	}
	if it.Shared == nil {
		return w.persisted(it.Seq, it.Type, it.Data)
	}
	return w.shared(it)
}
