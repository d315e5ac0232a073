package stream

import (
	"context"
	"encoding/json"
	"sync"
	"unicode/utf8"

	"wsapi/app"
)

// Item is what a subscriber receives: a persisted event, or a delta of a run in flight.
type Item struct {
	// Seq is the event's seq; for a delta, the seq of its message's message.created.
	Seq    int64
	Type   string
	ChatID string
	Data   json.RawMessage // persisted events only
	// Deltas only: the message, the rune offset where Text starts, and the text.
	MessageID string
	Offset    int
	Text      string
	// Shared is the item's encoded form, one for every subscriber the hub sent it to (nil
	// for items made elsewhere).
	Shared *Encoded
}

// Encoded holds an item's wire form, built once by the first subscriber that writes it and
// reused by the others: a delta sent to a hundred watchers is encoded once, not a hundred
// times.
type Encoded struct {
	once sync.Once
	b    []byte
}

// Bytes answers the encoded form, building it with build the first time.
func (e *Encoded) Bytes(build func() []byte) []byte {
	e.once.Do(func() { e.b = build() })
	return e.b
}

// IsDelta tells a live delta from a persisted event.
func (it Item) IsDelta() bool { return it.Type == app.StreamMessageDelta }

// End is the rune offset where a delta's text ends: the O of its SSE id "S.O".
func (it Item) End() int { return it.Offset + utf8.RuneCountInString(it.Text) }

// Filter says which events a subscriber sees.
type Filter struct {
	OrgID string
	// ChatID limits the subscription to one chat and adds its deltas; "" is the whole
	// organization (no deltas).
	ChatID string
	// Types keeps only these types (nil: all).
	Types map[string]bool
	// Area tells whether the subscriber may see events of a permission area (nil: all).
	Area func(area string) bool
	// DeltaChatID adds the deltas of one chat to an organization's subscription: the web
	// app's one stream per tab follows the whole inbox and the chat open in it.
	DeltaChatID string
	// Buffer, when positive, bounds this subscriber's waiting items instead of the hub's
	// Buffer: a widget visitor follows one chat and needs far less room than an inbox.
	Buffer int
}

// wantsDeltas tells whether the subscriber gets the deltas of a chat.
func (f Filter) wantsDeltas(orgID, chatID string) bool {
	return f.OrgID == orgID && (f.ChatID == chatID || f.DeltaChatID == chatID) && chatID != ""
}

// Matches tells whether the subscriber sees a stored event.
func (f Filter) Matches(e app.StreamEvent) bool {
	return e.OrgID == f.OrgID && (f.ChatID == "" || f.ChatID == e.ChatID) &&
		(f.Types == nil || f.Types[e.Type]) && (f.Area == nil || f.Area(e.Area))
}

// Subscriber is one open subscription. C is closed when it ends: unsubscribed, dropped
// for falling behind, or the hub closed. Items are shared by every subscriber they reach:
// read them, never change them. The queue holds pointers because a buffer of values (1024
// items of 112 bytes per watcher) made each send touch fresh memory; copying items into it
// was an eighth of the fan-out's CPU.
type Subscriber struct {
	C      <-chan *Item
	c      chan *Item
	ended  context.Context // done when the subscription ends
	end    context.CancelFunc
	filter Filter
	wake   func() // set by Hub.Wake; called under the hub's lock
}

// Ended is closed when the subscription ends, so a writer blocked on a slow connection can
// be cut off at once.
func (s *Subscriber) Ended() <-chan struct{} { return s.ended.Done() }

// AfterEnd runs f in a goroutine of its own once the subscription ends (at once if it has);
// stop cancels that. Unlike a goroutine waiting on Ended, it holds no goroutine while the
// subscription lasts: thousands of open streams each saved one.
func (s *Subscriber) AfterEnd(f func()) (stop func() bool) { return context.AfterFunc(s.ended, f) }

// Wake makes the hub call f after each item it queues for s from now on. A stream served by
// a goroutine that sleeps in a read of its client's connection, to see the client leave,
// instead of on C (app/api's detached streams: one goroutine a stream, not two) is woken by
// it. f runs under the hub's lock, on the fan-out's path: it must be quick and never block.
func (h *Hub) Wake(s *Subscriber, f func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s.wake = f
}

// Live is a run in flight as the hub holds it.
type Live struct {
	MessageID string
	Seq       int64 // the seq of its message.created
	Text      string
}

// Snapshot is the state at the moment of a subscription: everything with seq > LastSeq
// and every delta after the texts in Live will reach the subscriber.
type Snapshot struct {
	LastSeq int64
	Live    []Live // the chat's runs in flight (chat subscriptions only)
}

// Subscribe opens a subscription. The snapshot is taken atomically with it, so a reader of
// the backlog can drop what the subscription also delivers and lose nothing in between.
func (h *Hub) Subscribe(ctx context.Context, f Filter) (*Subscriber, Snapshot, error) {
	// Catch up with what is committed first: the snapshot's position then covers every write
	// the client could have seen before it connected, so none comes again after its sync.
	if err := h.catchUp(ctx); err != nil {
		return nil, Snapshot{}, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, Snapshot{}, ErrClosed
	}
	size := h.opt.Buffer
	if f.Buffer > 0 {
		size = min(f.Buffer, size)
	}
	c := make(chan *Item, size)
	ended, end := context.WithCancel(context.Background())
	s := &Subscriber{C: c, c: c, ended: ended, end: end, filter: f}
	h.subs.add(s)
	snap := Snapshot{LastSeq: h.last}
	if f.ChatID != "" || f.DeltaChatID != "" {
		for id, lm := range h.live {
			// A run that has streamed nothing yet is not in flight for a watcher: its first
			// delta reaches it whole.
			if f.wantsDeltas(lm.org, lm.chat) && lm.runes > 0 {
				snap.Live = append(snap.Live, Live{MessageID: id, Seq: lm.seq, Text: lm.text.String()})
			}
		}
	}
	return s, snap, nil
}

// Unsubscribe ends a subscription (a no-op when it has already ended).
func (h *Hub) Unsubscribe(s *Subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.remove(s)
}
