// Package stream is the event hub behind both SSE routes. It takes the events each commit
// of this process wrote to the streams' outbox (stream_events) from the store, reads the
// outbox on a short poll for writes from another process (and whenever a commit's events do
// not follow the last ones), and fans the rows out to subscribers in seq (commit) order. It also
// implements app.Live: the text of runs in flight, which is never persisted, is kept here
// per message until Done and sent to the chat's watchers as message.delta.
//
// A subscriber has a bounded buffer. The hub never waits for one: a subscriber whose buffer
// is full is dropped (its channel closed) and must resume with Last-Event-ID, so a slow
// client never slows a run or the other watchers.
package stream

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"wsapi/app"
)

// Options tune the hub.
type Options struct {
	// Poll is how often the hub looks for events written by another process (default 1 s).
	Poll time.Duration
	// Buffer is how many items a subscriber may have waiting before it is dropped.
	Buffer int
	Log    *slog.Logger
}

// ErrClosed is answered to a subscription once the hub has shut down.
var ErrClosed = errors.New("stream: hub closed")

// page is how many outbox rows one read takes.
const page = 500

// Hub fans stream events and deltas out to subscribers.
type Hub struct {
	store app.Store
	opt   Options
	nudge chan struct{}

	// pollMu serializes reads of the outbox, so rows are fanned out once and in order.
	pollMu sync.Mutex

	mu     sync.Mutex
	ready  bool  // last has been read from the store
	last   int64 // the newest seq fanned out
	closed bool
	subs   index
	live   map[string]*liveMessage // runs in flight, by message id
}

var _ app.Live = (*Hub)(nil)
var _ app.LiveTexts = (*Hub)(nil)

// New makes a hub over the store; Run must run for events to flow.
func New(store app.Store, opt Options) *Hub {
	if opt.Poll <= 0 {
		opt.Poll = time.Second
	}
	if opt.Buffer <= 0 {
		opt.Buffer = 1024
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	return &Hub{store: store, opt: opt, nudge: make(chan struct{}, 1),
		subs: newIndex(), live: map[string]*liveMessage{}}
}

// Nudge wakes the hub after a commit that wrote stream events; it never blocks.
func (h *Hub) Nudge() {
	select {
	case h.nudge <- struct{}{}:
	default:
	}
}

// Committed fans out the events a commit of this process wrote, as stored, without reading
// them back (that read was a tenth of the CPU of POST /contacts). When they do not follow
// the last event fanned out (another process wrote in between, or the hub has not yet read
// where the outbox stands) it reads the outbox instead, so nothing is skipped.
func (h *Hub) Committed(es []app.StreamEvent) {
	h.mu.Lock()
	follows := h.ready && len(es) > 0 && es[0].Seq == h.last+1
	for i := 1; follows && i < len(es); i++ {
		follows = es[i].Seq == es[i-1].Seq+1
	}
	if follows {
		h.publishLocked(es)
	}
	h.mu.Unlock()
	if !follows {
		h.Nudge()
	}
}

// Run fans out new events on every nudge and poll until ctx ends, then ends every
// subscription.
func (h *Hub) Run(ctx context.Context) {
	ticker := time.NewTicker(h.opt.Poll)
	defer ticker.Stop()
	defer h.Close()
	for {
		h.pass(ctx)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		case <-h.nudge:
		}
	}
}

// pass is one read of the outbox; a failure or a panic is logged and the next pass retries.
func (h *Hub) pass(ctx context.Context) {
	err := app.Safely(func() error { return h.catchUp(ctx) })
	if err != nil && ctx.Err() == nil {
		app.LogFailure(h.opt.Log, "stream hub: read events", err)
	}
}

// Close ends every subscription and refuses new ones (server shutdown: open streams must
// end for the drain to finish).
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for s := range h.subs.all {
		h.remove(s)
	}
}

// init reads where the outbox stands, once: a hub starts from now, not from history.
func (h *Hub) init(ctx context.Context) error {
	h.mu.Lock()
	ready := h.ready
	h.mu.Unlock()
	if ready {
		return nil
	}
	var last int64
	err := h.store.Read(ctx, func(tx app.Tx) (err error) {
		last, err = tx.LastStreamSeq()
		return err
	})
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.last, h.ready = last, true
	h.mu.Unlock()
	return nil
}

// catchUp fans out every committed event after the last one fanned out.
func (h *Hub) catchUp(ctx context.Context) error {
	h.pollMu.Lock()
	defer h.pollMu.Unlock()
	if err := h.init(ctx); err != nil {
		return err
	}
	for {
		h.mu.Lock()
		after := h.last
		h.mu.Unlock()
		var es []app.StreamEvent
		err := h.store.Read(ctx, func(tx app.Tx) (err error) {
			es, err = tx.StreamEventsAfter("", "", after, page)
			return err
		})
		if err != nil {
			return err
		}
		h.publish(es)
		if len(es) < page {
			return nil
		}
	}
}

// publish fans out events read from the outbox, in order.
func (h *Hub) publish(es []app.StreamEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.publishLocked(es)
}

// publishLocked fans out the events newer than the last one fanned out. Holds mu.
func (h *Hub) publishLocked(es []app.StreamEvent) {
	for _, e := range es {
		if e.Seq <= h.last {
			continue
		}
		h.last = e.Seq
		h.forgetFinished(e)
		var it *Item // made for the first subscriber that matches, shared by the others
		h.subs.event(e.OrgID, e.ChatID, func(s *Subscriber) {
			if s.filter.Matches(e) {
				if it == nil {
					it = &Item{Seq: e.Seq, Type: e.Type, ChatID: e.ChatID, Data: e.Data, Shared: &Encoded{}}
				}
				h.send(s, it)
			}
		})
	}
}

// forgetFinished drops the live text of a message whose stored state is final, or whose
// chat was deleted, in case the run never called Done (a crash of its goroutine). Holds mu.
func (h *Hub) forgetFinished(e app.StreamEvent) {
	if e.Type == app.StreamChatDeleted {
		for id, lm := range h.live {
			if lm.org == e.OrgID && lm.chat == e.ChatID {
				delete(h.live, id)
			}
		}
		return
	}
	if e.Type != app.StreamMessageUpdated || h.live[e.MessageID] == nil {
		return
	}
	var m struct {
		Status string `json:"status"`
	}
	if json.Unmarshal(e.Data, &m) == nil && m.Status != "RUNNING" {
		delete(h.live, e.MessageID)
	}
}

// send queues an item without waiting; a full buffer drops the subscriber. Holds mu.
func (h *Hub) send(s *Subscriber, it *Item) {
	select {
	case s.c <- it:
		if s.wake != nil {
			s.wake()
		}
	default:
		h.opt.Log.Info("stream hub: slow subscriber dropped", "org", s.filter.OrgID, "chat", s.filter.ChatID)
		h.remove(s)
	}
}

// remove ends a subscription. Holds mu.
func (h *Hub) remove(s *Subscriber) {
	if !h.subs.remove(s) {
		return
	}
	close(s.c)
	s.end()
}

// Watchers is the number of open subscriptions (for tests and metrics).
func (h *Hub) Watchers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs.all)
}
