package apitest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"wsapi/app"
)

// SSEEvent is one dispatched Server-Sent Event, parsed as a browser's EventSource would
// (https://html.spec.whatwg.org/multipage/server-sent-events.html), plus the comment and
// id-only blocks an EventSource swallows, so tests can see heartbeats and positions.
type SSEEvent struct {
	ID      string // the id field; "" when the block had none
	HasID   bool
	Type    string // the event field
	Data    string // the data lines joined by "\n"
	Comment string // a block of only comment lines (": ping")
}

// Heartbeat tells a comment block.
func (ev SSEEvent) Heartbeat() bool { return ev.Comment != "" && ev.Type == "" && ev.Data == "" }

// JSON decodes the data into v.
func (ev SSEEvent) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(ev.Data), v); err != nil {
		t.Fatalf("sse %s data %q: %v", ev.Type, ev.Data, err)
	}
}

// Map decodes the data as a JSON object (nil for null).
func (ev SSEEvent) Map(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	ev.JSON(t, &m)
	return m
}

// SSEStream is an open event stream read in the background.
type SSEStream struct {
	T      testing.TB
	Header http.Header
	events chan SSEEvent
	done   chan struct{} // closed when the server ended the stream
	cancel context.CancelFunc
	body   io.Closer
}

// Stream opens GET path as an event stream with key, resuming after lastEventID when it is
// not empty. It fails the test unless the answer is 200 text/event-stream.
func (e *Env) Stream(path, key, lastEventID string) *SSEStream {
	e.T.Helper()
	s, err := e.OpenStream(path, key, lastEventID)
	if err != nil {
		e.T.Fatalf("apitest: %v", err)
	}
	return s
}

// OpenStream is Stream answering an error instead of failing the test, so streams can be
// opened from several goroutines.
func (e *Env) OpenStream(path, key, lastEventID string) (*SSEStream, error) {
	e.checkEverything()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", e.Server.URL+path, nil)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("stream request: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Accept", "text/event-stream")
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	res, err := e.Server.Client().Do(req)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("stream %s: %w", path, err)
	}
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		cancel()
		return nil, fmt.Errorf("stream %s: status %d, type %q: %s", path, res.StatusCode, res.Header.Get("Content-Type"), b)
	}
	s := &SSEStream{T: e.T, Header: res.Header, events: make(chan SSEEvent, 100_000), done: make(chan struct{}),
		cancel: cancel, body: res.Body}
	go s.read(res.Body)
	e.T.Cleanup(s.Close)
	return s, nil
}

// read parses the stream until it ends.
func (s *SSEStream) read(r io.Reader) {
	defer close(s.done)
	br := bufio.NewReaderSize(r, 64<<10)
	var ev SSEEvent
	var data []string
	hasData := false
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if line == "" {
			if hasData {
				ev.Data = strings.Join(data, "\n")
			}
			if hasData || ev.HasID || ev.Comment != "" {
				s.events <- ev
			}
			ev, data, hasData = SSEEvent{}, nil, false
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "":
			ev.Comment += value
		case "id":
			ev.ID, ev.HasID = value, true
		case "event":
			ev.Type = value
		case "data":
			data, hasData = append(data, value), true
		}
	}
}

// NextBlock answers the next block of any kind (event, id-only or comment), failing the
// test after timeout or when the stream has ended.
func (s *SSEStream) NextBlock(timeout time.Duration) SSEEvent {
	s.T.Helper()
	select {
	case ev := <-s.events:
		return ev
	case <-time.After(timeout):
		s.T.Fatalf("apitest: no stream event within %s", timeout)
	case <-s.done:
		select {
		case ev := <-s.events:
			return ev
		default:
		}
		s.T.Fatalf("apitest: the stream ended")
	}
	return SSEEvent{}
}

// Next answers the next dispatched event (data present), skipping heartbeats and id-only
// blocks.
func (s *SSEStream) Next() SSEEvent {
	s.T.Helper()
	// One deadline for the whole wait: heartbeats must not keep a test waiting forever.
	deadline := time.Now().Add(5 * time.Second)
	for {
		ev := s.NextBlock(max(time.Until(deadline), time.Millisecond))
		if ev.Type != "" || ev.Data != "" {
			return ev
		}
	}
}

// Expect reads the next event and fails the test unless it is of type typ; it answers it.
func (s *SSEStream) Expect(typ string) SSEEvent {
	s.T.Helper()
	ev := s.Next()
	if ev.Type != typ {
		s.T.Fatalf("event %s (%s), want %s", ev.Type, ev.Data, typ)
	}
	return ev
}

// Synced opens a stream afresh and reads its first event, which must be the sync snapshot
// with an id; it answers both.
func (e *Env) Synced(path, key string) (*SSEStream, SSEEvent) {
	e.T.Helper()
	s := e.Stream(path, key, "")
	first := s.Next()
	if first.Type != app.StreamSync || !first.HasID {
		e.T.Fatalf("first event %+v, want sync with an id", first)
	}
	return s, first
}

// Seq is the event's id as a stream sequence number.
func (ev SSEEvent) Seq(t testing.TB) int64 {
	t.Helper()
	n, err := strconv.ParseInt(ev.ID, 10, 64)
	if err != nil {
		t.Fatalf("event %s: id %q is not a sequence number", ev.Type, ev.ID)
	}
	return n
}

// Quiet fails the test if an event (other than a heartbeat) arrives within d.
func (s *SSEStream) Quiet(d time.Duration) {
	s.T.Helper()
	deadline := time.After(d)
	for {
		select {
		case ev := <-s.events:
			if ev.Heartbeat() {
				continue
			}
			s.T.Fatalf("apitest: unexpected stream event %+v", ev)
		case <-deadline:
			return
		}
	}
}

// Ended waits up to timeout for the server to end the stream.
func (s *SSEStream) Ended(timeout time.Duration) bool {
	select {
	case <-s.done:
		return true
	case <-time.After(timeout):
		return false
	}
}

// Close disconnects.
func (s *SSEStream) Close() {
	s.cancel()
	s.body.Close()
}
