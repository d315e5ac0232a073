package stream

import (
	"context"
	"strings"
	"time"

	"wsapi/app"
)

// liveMessage is the text a run has streamed so far.
type liveMessage struct {
	org, chat string
	seq       int64 // its message.created, the S of its deltas' ids
	text      strings.Builder
	runes     int
}

// lookupTimeout bounds the store reads of a first delta, which runs on the run's goroutine.
const lookupTimeout = 5 * time.Second

// Delta records a piece of a run's text and sends it to the chat's watchers. The first
// delta of a message first fans out the committed events (so its message.created reaches
// watchers before any of its text) and looks up that event's seq.
func (h *Hub) Delta(orgID, chatID, messageID string, offset int, text string) {
	if text == "" {
		return
	}
	h.mu.Lock()
	lm := h.live[messageID]
	h.mu.Unlock()
	if lm == nil {
		lm = h.start(orgID, chatID, messageID)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if offset < lm.runes { // a piece repeated in part: keep only what is new
		text = app.RunesFrom(text, lm.runes-offset)
		offset = lm.runes
		if text == "" {
			return
		}
	}
	it := &Item{Seq: lm.seq, Type: app.StreamMessageDelta, ChatID: chatID, MessageID: messageID, Offset: offset, Text: text,
		Shared: &Encoded{}}
	lm.text.WriteString(text)
	lm.runes = it.End()
	h.subs.delta(orgID, chatID, func(s *Subscriber) { // never the API's org streams
		if s.filter.wantsDeltas(orgID, chatID) {
			h.send(s, it)
		}
	})
}

// Begin registers a run's message before its first delta: the outbox read and the seq
// lookup of start then happen while the provider is asked, not between its first token and
// the watchers.
func (h *Hub) Begin(orgID, chatID, messageID string) {
	h.mu.Lock()
	lm := h.live[messageID]
	h.mu.Unlock()
	if lm == nil {
		h.start(orgID, chatID, messageID)
	}
}

// start registers a message in flight.
func (h *Hub) start(orgID, chatID, messageID string) *liveMessage {
	ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
	defer cancel()
	if err := h.catchUp(ctx); err != nil {
		h.opt.Log.Error("stream hub: read events", "err", err)
	}
	var seq int64
	err := h.store.Read(ctx, func(tx app.Tx) (err error) {
		seq, err = tx.MessageCreatedSeq(orgID, messageID)
		return err
	})
	if err != nil && !app.IsNotFound(err) {
		h.opt.Log.Error("stream hub: message.created of a delta", "message", messageID, "err", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if lm := h.live[messageID]; lm != nil {
		return lm
	}
	lm := &liveMessage{org: orgID, chat: chatID, seq: seq}
	h.live[messageID] = lm
	return lm
}

// Done forgets a message's live text: its final state is persisted.
func (h *Hub) Done(orgID, chatID, messageID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if lm := h.live[messageID]; lm != nil && lm.org == orgID {
		delete(h.live, messageID)
	}
}

// LiveText is the text a message in flight has streamed so far.
func (h *Hub) LiveText(orgID, chatID, messageID string) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	lm := h.live[messageID]
	if lm == nil || lm.org != orgID || lm.chat != chatID {
		return "", false
	}
	return lm.text.String(), true
}
