package stream_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/stream"
	"wsapi/sqlite"
)

// hubEnv is a hub over a migrated database in t.TempDir(), running until the test ends.
func hubEnv(t *testing.T, opt stream.Options) (*stream.Hub, *sqlite.DB) {
	t.Helper()
	db, err := sqlite.Open(filepath.Join(t.TempDir(), "hub.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	h := stream.New(db, opt)
	db.OnStreamed(h.Committed)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { h.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; db.Close() })
	return h, db
}

// insert commits one stream event and answers its seq.
func insert(t *testing.T, db *sqlite.DB, e app.StreamEvent) int64 {
	t.Helper()
	if e.Area == "" {
		e.Area = "inbox"
	}
	if e.Data == nil {
		e.Data = []byte(`{}`)
	}
	e.CreatedAt = app.At(time.Now())
	var seq int64
	err := db.Write(context.Background(), func(tx app.Tx) (err error) {
		seq, err = tx.InsertStreamEvent(e)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return seq
}

func next(t *testing.T, s *stream.Subscriber) stream.Item {
	t.Helper()
	select {
	case it, ok := <-s.C:
		if !ok {
			t.Fatalf("subscription ended")
		}
		return *it
	case <-time.After(5 * time.Second):
		t.Fatalf("no item within 5 s")
	}
	return stream.Item{}
}

func quiet(t *testing.T, s *stream.Subscriber) {
	t.Helper()
	select {
	case it := <-s.C:
		t.Fatalf("unexpected item %+v", it)
	case <-time.After(30 * time.Millisecond):
	}
}

func subscribe(t *testing.T, h *stream.Hub, f stream.Filter) *stream.Subscriber {
	t.Helper()
	s, _, err := h.Subscribe(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Unsubscribe(s) })
	return s
}

func TestHubFansOutCommittedEventsInOrderByFilter(t *testing.T) {
	h, db := hubEnv(t, stream.Options{})
	insert(t, db, app.StreamEvent{OrgID: "o1", Type: app.StreamChatCreated}) // before any subscription: history
	chat := subscribe(t, h, stream.Filter{OrgID: "o1", ChatID: "c1"})
	org := subscribe(t, h, stream.Filter{OrgID: "o1", Types: map[string]bool{app.StreamChatUpdated: true, app.StreamContactUpdated: true},
		Area: func(a string) bool { return a == "inbox" }})
	other := subscribe(t, h, stream.Filter{OrgID: "o2"})

	s1 := insert(t, db, app.StreamEvent{OrgID: "o1", ChatID: "c1", Type: app.StreamMessageCreated})
	s2 := insert(t, db, app.StreamEvent{OrgID: "o1", ChatID: "c1", Type: app.StreamChatUpdated})
	insert(t, db, app.StreamEvent{OrgID: "o1", Type: app.StreamContactUpdated, Area: "contacts"})
	s4 := insert(t, db, app.StreamEvent{OrgID: "o1", ChatID: "c2", Type: app.StreamChatUpdated})

	if a, b := next(t, chat), next(t, chat); a.Seq != s1 || b.Seq != s2 {
		t.Fatalf("chat subscriber got %d, %d; want %d, %d", a.Seq, b.Seq, s1, s2)
	}
	if a, b := next(t, org), next(t, org); a.Seq != s2 || b.Seq != s4 {
		t.Fatalf("org subscriber got %d, %d; want %d, %d (types and area filtered)", a.Seq, b.Seq, s2, s4)
	}
	quiet(t, chat)
	quiet(t, org)
	quiet(t, other)
}

func TestHubDeltasFollowTheirMessageCreatedAndTrimRepeats(t *testing.T) {
	h, db := hubEnv(t, stream.Options{})
	s := subscribe(t, h, stream.Filter{OrgID: "o1", ChatID: "c1"})
	// The run commits its message and streams at once: the delta must not overtake the
	// message.created that the hub has not read yet.
	created := insert(t, db, app.StreamEvent{OrgID: "o1", ChatID: "c1", MessageID: "m1", Type: app.StreamMessageCreated})
	h.Delta("o1", "c1", "m1", 0, "abc")
	h.Delta("o1", "c1", "m1", 2, "cdé") // "c" again
	h.Delta("o1", "c1", "m1", 1, "bc")  // all repeated: nothing
	if it := next(t, s); it.Seq != created || it.IsDelta() {
		t.Fatalf("first item %+v, want message.created %d", it, created)
	}
	a, b := next(t, s), next(t, s)
	if a.Seq != created || a.Offset != 0 || a.Text != "abc" || b.Offset != 3 || b.Text != "dé" || b.End() != 5 {
		t.Fatalf("deltas %+v %+v", a, b)
	}
	quiet(t, s)
	if text, ok := h.LiveText("o1", "c1", "m1"); !ok || text != "abcdé" {
		t.Fatalf("live text %q %v", text, ok)
	}
	if _, ok := h.LiveText("o2", "c1", "m1"); ok {
		t.Fatalf("another organization reads the live text")
	}
	_, snap, _ := h.Subscribe(context.Background(), stream.Filter{OrgID: "o1", ChatID: "c1"})
	if len(snap.Live) != 1 || snap.Live[0].Text != "abcdé" || snap.Live[0].Seq != created || snap.LastSeq != created {
		t.Fatalf("snapshot %+v", snap)
	}
	// A stored final state forgets the text even without Done.
	insert(t, db, app.StreamEvent{OrgID: "o1", ChatID: "c1", MessageID: "m1", Type: app.StreamMessageUpdated,
		Data: []byte(`{"id":"m1","status":"COMPLETED"}`)})
	next(t, s)
	if _, ok := h.LiveText("o1", "c1", "m1"); ok {
		t.Fatalf("the live text outlived the stored final state")
	}
	h.Delta("o1", "c1", "m2", 0, "x")
	h.Done("o1", "c1", "m2")
	if _, ok := h.LiveText("o1", "c1", "m2"); ok {
		t.Fatalf("the live text outlived Done")
	}
	// So does the deletion of its chat.
	h.Delta("o1", "c9", "m9", 0, "x")
	insert(t, db, app.StreamEvent{OrgID: "o1", ChatID: "c9", Type: app.StreamChatDeleted})
	deadline := time.Now().Add(5 * time.Second)
	for _, ok := h.LiveText("o1", "c9", "m9"); ok; _, ok = h.LiveText("o1", "c9", "m9") {
		if time.Now().After(deadline) {
			t.Fatalf("the live text outlived its chat")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestHubDropsASubscriberThatFallsBehind(t *testing.T) {
	h, _ := hubEnv(t, stream.Options{Buffer: 2})
	slow := subscribe(t, h, stream.Filter{OrgID: "o1", ChatID: "c1"})
	fast := subscribe(t, h, stream.Filter{OrgID: "o1", ChatID: "c1"})
	for i := range 5 {
		h.Delta("o1", "c1", "m1", i, "x") // never waits for slow
		next(t, fast)
	}
	select {
	case <-slow.Ended():
	case <-time.After(time.Second):
		t.Fatalf("the slow subscriber was not dropped")
	}
	n := 0
	for range slow.C {
		n++
	}
	if n != 2 || h.Watchers() != 1 {
		t.Fatalf("slow subscriber kept %d items, %d watchers left; want 2 and 1", n, h.Watchers())
	}
}

// A subscriber's own Buffer (a widget visitor's) bounds it below the hub's: it is dropped
// once that many items wait, while a subscriber with the hub's buffer keeps up.
func TestHubSubscriberBufferOfItsOwn(t *testing.T) {
	h, _ := hubEnv(t, stream.Options{Buffer: 100})
	small := subscribe(t, h, stream.Filter{OrgID: "o1", ChatID: "c1", Buffer: 3})
	big := subscribe(t, h, stream.Filter{OrgID: "o1", ChatID: "c1"})
	for i := range 5 {
		h.Delta("o1", "c1", "m1", i, "x")
	}
	select {
	case <-small.Ended():
	case <-time.After(time.Second):
		t.Fatalf("the subscriber with 3 items of room was not dropped after 5")
	}
	n := 0
	for range small.C {
		n++
	}
	if n != 3 {
		t.Fatalf("kept %d items, want 3", n)
	}
	for range 5 {
		next(t, big)
	}
}

func TestHubCloseEndsSubscriptionsAndRefusesNewOnes(t *testing.T) {
	h, _ := hubEnv(t, stream.Options{})
	s := subscribe(t, h, stream.Filter{OrgID: "o1"})
	h.Close()
	if _, ok := <-s.C; ok {
		t.Fatalf("subscription open after Close")
	}
	if _, _, err := h.Subscribe(context.Background(), stream.Filter{OrgID: "o1"}); !errors.Is(err, stream.ErrClosed) {
		t.Fatalf("Subscribe after Close: %v", err)
	}
}

// Runs, writers and watchers at once: every watcher sees stored events in seq order and each
// run's deltas contiguous (run with -race).
func TestHubUnderConcurrentRunsWritersAndWatchers(t *testing.T) {
	h, db := hubEnv(t, stream.Options{Buffer: 10_000})
	var wg sync.WaitGroup
	subs := make([]*stream.Subscriber, 8)
	for i := range subs {
		subs[i] = subscribe(t, h, stream.Filter{OrgID: "o1", ChatID: "c1"})
	}
	for r := range 4 {
		wg.Go(func() {
			for i := range 100 {
				h.Delta("o1", "c1", fmt.Sprintf("m%d", r), i, "y")
			}
		})
	}
	wg.Go(func() {
		for range 50 {
			insert(t, db, app.StreamEvent{OrgID: "o1", ChatID: "c1", Type: app.StreamChatUpdated})
		}
	})
	wg.Go(func() {
		for range 50 {
			s, _, err := h.Subscribe(context.Background(), stream.Filter{OrgID: "o1"})
			if err == nil {
				h.Unsubscribe(s)
			}
		}
	})
	wg.Wait()
	for i, s := range subs {
		var last int64
		offsets := map[string]int{}
		stored := 0
		for stored < 50 || len(offsets) < 4 || offsets["m0"]+offsets["m1"]+offsets["m2"]+offsets["m3"] < 400 {
			it := next(t, s)
			if it.IsDelta() {
				if it.Offset != offsets[it.MessageID] {
					t.Fatalf("watcher %d: delta of %s at %d, want %d", i, it.MessageID, it.Offset, offsets[it.MessageID])
				}
				offsets[it.MessageID] = it.End()
				continue
			}
			if it.Seq <= last {
				t.Fatalf("watcher %d: seq %d after %d", i, it.Seq, last)
			}
			last = it.Seq
			stored++
		}
	}
}

// Begin readies a run before its first token: a watcher that subscribes in between sees no
// run in flight (nothing has streamed), then gets the first delta whole, under the seq of
// the message's message.created.
func TestHubBeginReadiesARunBeforeItsFirstDelta(t *testing.T) {
	h, db := hubEnv(t, stream.Options{})
	created := insert(t, db, app.StreamEvent{OrgID: "o1", ChatID: "c1", MessageID: "m1", Type: app.StreamMessageCreated})
	h.Begin("o1", "c1", "m1")
	if text, ok := h.LiveText("o1", "c1", "m1"); !ok || text != "" {
		t.Fatalf("live text after Begin %q %v, want empty and held", text, ok)
	}
	s, snap, err := h.Subscribe(context.Background(), stream.Filter{OrgID: "o1", ChatID: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Unsubscribe(s)
	if len(snap.Live) != 0 {
		t.Fatalf("snapshot %+v: a run with no text yet is not in flight", snap.Live)
	}
	h.Delta("o1", "c1", "m1", 0, "Hi")
	if it := next(t, s); !it.IsDelta() || it.Seq != created || it.Offset != 0 || it.Text != "Hi" {
		t.Fatalf("first delta %+v, want Hi at 0 under seq %d", it, created)
	}
}

// TestHubTakesCommittedEventsFromTheStore: the events a commit of this process wrote reach
// subscribers as the store hands them over, not read back; events that do not follow the
// last one fanned out (another process wrote in between) make the hub read the outbox
// instead, so the other process's events come first and in order.
func TestHubTakesCommittedEventsFromTheStore(t *testing.T) {
	h, db := hubEnv(t, stream.Options{Poll: time.Hour}) // no poll: only commits wake the hub
	other, err := sqlite.Open(db.Path())                // another process: nothing handed over
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	s := subscribe(t, h, stream.Filter{OrgID: "o1"})
	first := insert(t, db, app.StreamEvent{OrgID: "o1", Type: app.StreamContactUpdated})
	if it := next(t, s); it.Seq != first {
		t.Fatalf("got %d, want %d", it.Seq, first)
	}
	// Stored with one payload, handed over with another: the hub sends what it was given.
	if seq := insert(t, other, app.StreamEvent{OrgID: "o1", Type: app.StreamContactUpdated, Data: []byte(`{"stored":true}`)}); seq != first+1 {
		t.Fatalf("seq %d", seq)
	}
	h.Committed([]app.StreamEvent{{Seq: first + 1, OrgID: "o1", Type: app.StreamContactUpdated, Area: "inbox", Data: []byte(`{"as":"given"}`)}})
	if it := next(t, s); it.Seq != first+1 || string(it.Data) != `{"as":"given"}` {
		t.Fatalf("got %d %s, want the handed-over event", it.Seq, it.Data)
	}
	// Two events of the other process, then one of ours: the hub reads all three.
	want := []int64{insert(t, other, app.StreamEvent{OrgID: "o1", Type: app.StreamContactUpdated}),
		insert(t, other, app.StreamEvent{OrgID: "o1", Type: app.StreamContactUpdated}),
		insert(t, db, app.StreamEvent{OrgID: "o1", Type: app.StreamContactUpdated})}
	for _, w := range want {
		if it := next(t, s); it.Seq != w {
			t.Fatalf("got %d, want %d (of %v)", it.Seq, w, want)
		}
	}
	quiet(t, s)
}

// An organization's subscription with DeltaChatID (the web app's one stream per tab) gets
// every event of the organization and the deltas of that one chat, with its live text in
// the snapshot; the API's organization streams never get deltas.
func TestHubOrgSubscriptionWithTheDeltasOfOneChat(t *testing.T) {
	h, db := hubEnv(t, stream.Options{})
	created := insert(t, db, app.StreamEvent{OrgID: "o1", ChatID: "c1", MessageID: "m1", Type: app.StreamMessageCreated})
	h.Delta("o1", "c1", "m1", 0, "so far")
	tab, snap, err := h.Subscribe(context.Background(), stream.Filter{OrgID: "o1", DeltaChatID: "c1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Unsubscribe(tab) })
	if len(snap.Live) != 1 || snap.Live[0].MessageID != "m1" || snap.Live[0].Text != "so far" || snap.Live[0].Seq != created {
		t.Fatalf("snapshot %+v", snap)
	}
	api := subscribe(t, h, stream.Filter{OrgID: "o1"})
	other := subscribe(t, h, stream.Filter{OrgID: "o2", DeltaChatID: "c1"})
	h.Delta("o1", "c1", "m1", 6, ", more")
	h.Delta("o1", "c2", "m2", 0, "another chat")
	s := insert(t, db, app.StreamEvent{OrgID: "o1", ChatID: "c2", Type: app.StreamChatUpdated})
	if it := next(t, tab); !it.IsDelta() || it.MessageID != "m1" || it.Text != ", more" {
		t.Fatalf("first item %+v, want the open chat's delta", it)
	}
	if it := next(t, tab); it.IsDelta() || it.Seq != s {
		t.Fatalf("second item %+v, want another chat's event %d", it, s)
	}
	if it := next(t, api); it.IsDelta() || it.Seq != s {
		t.Fatalf("the API's org stream got %+v", it)
	}
	quiet(t, tab)
	quiet(t, api)
	quiet(t, other)
}

// TestHubWakesASubscriberAfterEachItemItQueues: Wake's function runs once an item is in the
// subscriber's queue (events and deltas alike), never for items it does not get.
func TestHubWakesASubscriberAfterEachItemItQueues(t *testing.T) {
	h, db := hubEnv(t, stream.Options{})
	s := subscribe(t, h, stream.Filter{OrgID: "o1", ChatID: "c1"})
	var mu sync.Mutex
	var queued []int // the queue's length each time it was woken
	h.Wake(s, func() {
		mu.Lock()
		defer mu.Unlock()
		queued = append(queued, len(s.C))
	})
	insert(t, db, app.StreamEvent{OrgID: "o1", ChatID: "c2", Type: app.StreamMessageCreated}) // another chat's
	insert(t, db, app.StreamEvent{OrgID: "o1", ChatID: "c1", MessageID: "m1", Type: app.StreamMessageCreated})
	h.Delta("o1", "c1", "m1", 0, "abc")
	next(t, s)
	next(t, s)
	mu.Lock()
	defer mu.Unlock()
	if len(queued) != 2 || queued[0] < 1 || queued[1] < 1 {
		t.Fatalf("woken with queues %v, want twice, each time with the item in the queue", queued)
	}
}
