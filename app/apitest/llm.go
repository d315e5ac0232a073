package apitest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// LLMReply is one scripted answer of a fake model server (NewOpenAIServer,
// NewAnthropicServer). The zero value is an empty successful answer without usage.
//
// A "content chunk" below is each chunk or event that carries model output: one text piece,
// the start of a tool call, one fragment of its arguments.
type LLMReply struct {
	// Text is streamed in order, one chunk per element.
	Text []string
	// ToolCalls are streamed after the text, each start followed by its argument fragments.
	ToolCalls []LLMToolCall
	// Usage is sent as the protocol does; nil means the server sends no usage at all.
	Usage *LLMUsage
	// StopReason overrides the protocol's finish reason (stop / tool_calls for OpenAI,
	// end_turn / tool_use for Anthropic).
	StopReason string

	// Status, when set and not 200, answers with this HTTP error status and the protocol's
	// error body instead of a stream (ErrorType and Message default by status).
	Status    int
	ErrorType string
	Message   string
	// RetryAfter and RetryAfterMs are sent as the Retry-After and retry-after-ms headers.
	RetryAfter   string
	RetryAfterMs string

	// Hang writes nothing, not even headers, until the client goes away.
	Hang bool
	// Step, when set, makes each content chunk wait for a receive from it (close it to
	// release all); the headers and the protocol's opening event go out at once.
	Step <-chan struct{}
	// Delay is a pause before each content chunk.
	Delay time.Duration
	// Drop cuts the connection (no proper end of the response) after DropAfter content chunks.
	Drop      bool
	DropAfter int
	// Truncate ends the response cleanly after the content but without the protocol's
	// closing events, as a proxy that gives up early does.
	Truncate bool
	// StreamError, when set, ends the stream after the content with the protocol's error
	// event of this type (e.g. "overloaded_error", "server_error") instead of finishing.
	StreamError string
}

// LLMToolCall is a scripted tool call; Args are the fragments of its JSON arguments.
type LLMToolCall struct {
	ID   string
	Name string
	Args []string
}

// LLMUsage is the usage a fake server reports, in the protocol's own terms: for OpenAI, Input
// is prompt_tokens and includes CacheRead (cached_tokens); for Anthropic, Input is
// input_tokens and excludes CacheRead and CacheWrite (cache_read_input_tokens,
// cache_creation_input_tokens). Reasoning is OpenAI's reasoning_tokens, Anthropic's
// thinking_tokens (sent only when non-zero).
type LLMUsage struct {
	Input, Output, CacheRead, CacheWrite, Reasoning int
}

// TextReply is a reply streaming the given chunks, without usage.
func TextReply(chunks ...string) LLMReply { return LLMReply{Text: chunks} }

// LLMRequest is one request a fake model server received.
type LLMRequest struct {
	Method string
	Path   string
	Header http.Header
	// Body is the decoded JSON body (nil when it was not JSON); Raw is as received.
	Body map[string]any
	Raw  []byte
}

// LLMServer is a real local HTTP server speaking one model protocol, answering from a queue
// of scripted replies and recording every request.
type LLMServer struct {
	// URL is the base URL to configure as the provider's base_url.
	URL    string
	Server *httptest.Server

	proto       llmProtocol
	mu          sync.Mutex
	queue       []LLMReply
	fallback    *LLMReply
	requests    []LLMRequest
	disconnects chan struct{}
	closed      chan struct{}
}

// llmProtocol is what differs between the protocols: paths, error bodies and the stream.
type llmProtocol interface {
	path() string
	errorBody(status int, typ, message string) any
	stream(s *sseWriter, req map[string]any, r LLMReply)
	complete(req map[string]any, r LLMReply) any
}

func newLLMServer(t testing.TB, proto llmProtocol, basePath string) *LLMServer {
	t.Helper()
	s := &LLMServer{proto: proto, disconnects: make(chan struct{}, 1024), closed: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.Server.URL + basePath
	t.Cleanup(func() {
		close(s.closed) // releases hanging and stepping replies so Close does not wait on them
		s.Server.Close()
	})
	return s
}

// Reply queues replies, answered in order, one per request.
func (s *LLMServer) Reply(replies ...LLMReply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Fail queues an error answer with this status and Retry-After value ("" for none).
func (s *LLMServer) Fail(status int, retryAfter string) {
	s.Reply(LLMReply{Status: status, RetryAfter: retryAfter})
}

// Default sets the reply used when the queue is empty (without one the server answers 500).
func (s *LLMServer) Default(r LLMReply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fallback = &r
}

// Pending is how many queued replies are still unanswered.
func (s *LLMServer) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Requests returns every request received so far, in order.
func (s *LLMServer) Requests() []LLMRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]LLMRequest(nil), s.requests...)
}

// Disconnected receives once for each request whose client went away before its reply was
// complete (a cancel, a timeout).
func (s *LLMServer) Disconnected() <-chan struct{} { return s.disconnects }

func (s *LLMServer) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	reply, ok := s.next(LLMRequest{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Raw: raw})
	switch {
	case r.Method != http.MethodPost || r.URL.Path != s.proto.path():
		s.writeError(w, LLMReply{Status: http.StatusNotFound, Message: "apitest: no such route " + r.URL.Path})
	case !ok:
		s.writeError(w, LLMReply{Status: http.StatusInternalServerError, Message: "apitest: no scripted reply"})
	case reply.Hang:
		select {
		case <-r.Context().Done():
			s.disconnected()
		case <-s.closed:
		}
	case reply.Status != 0 && reply.Status != http.StatusOK:
		s.writeError(w, reply)
	case body["stream"] == true:
		sw := &sseWriter{w: w, r: r, reply: reply, srv: s}
		sw.open()
		s.proto.stream(sw, body, reply)
	default:
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(s.proto.complete(body, reply))
	}
}

// next records the request and takes its reply (the default once the queue is empty).
func (s *LLMServer) next(req LLMRequest) (LLMReply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	if req.Path != s.proto.path() {
		return LLMReply{}, false
	}
	if len(s.queue) > 0 {
		r := s.queue[0]
		s.queue = s.queue[1:]
		return r, true
	}
	if s.fallback != nil {
		return *s.fallback, true
	}
	return LLMReply{}, false
}

func (s *LLMServer) writeError(w http.ResponseWriter, r LLMReply) {
	if r.RetryAfter != "" {
		w.Header().Set("Retry-After", r.RetryAfter)
	}
	if r.RetryAfterMs != "" {
		w.Header().Set("retry-after-ms", r.RetryAfterMs)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(r.Status)
	_ = json.NewEncoder(w).Encode(s.proto.errorBody(r.Status, r.ErrorType, r.Message))
}

// sseWriter writes one streamed reply, applying its Step, Delay and Drop to content chunks.
// It ends the handler with http.ErrAbortHandler (which the server turns into a closed
// connection without logging) when the client is gone or the reply drops the connection.
type sseWriter struct {
	w      http.ResponseWriter
	r      *http.Request
	reply  LLMReply
	srv    *LLMServer
	chunks int
}

func (s *sseWriter) open() {
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	s.w.WriteHeader(http.StatusOK)
	http.NewResponseController(s.w).Flush()
}

// event writes one SSE event ("" event: a data-only line, as OpenAI sends) and flushes it.
func (s *sseWriter) event(name string, data any) {
	var payload []byte
	if raw, ok := data.(string); ok {
		payload = []byte(raw)
	} else {
		payload, _ = json.Marshal(data)
	}
	if name != "" {
		fmt.Fprintf(s.w, "event: %s\n", name)
	}
	_, err := fmt.Fprintf(s.w, "data: %s\n\n", payload)
	if err == nil {
		err = http.NewResponseController(s.w).Flush()
	}
	if err != nil || s.r.Context().Err() != nil {
		s.gone()
	}
}

// content writes one content chunk once its Step and Delay allow, or drops the connection.
func (s *sseWriter) content(name string, data any) {
	if s.reply.Drop && s.chunks >= s.reply.DropAfter {
		panic(http.ErrAbortHandler)
	}
	if s.reply.Step != nil {
		select {
		case <-s.reply.Step:
		case <-s.r.Context().Done():
			s.gone()
		case <-s.srv.closed:
			panic(http.ErrAbortHandler)
		}
	}
	if s.reply.Delay > 0 {
		select {
		case <-time.After(s.reply.Delay):
		case <-s.r.Context().Done():
			s.gone()
		}
	}
	s.event(name, data)
	s.chunks++
}

// closing is called before the protocol's closing events: a dropping reply with fewer chunks
// than DropAfter is cut here; false means the reply ends without them.
func (s *sseWriter) closing() bool {
	if s.reply.Drop {
		panic(http.ErrAbortHandler)
	}
	return !s.reply.Truncate
}

// gone records that the client went away and ends the handler.
func (s *sseWriter) gone() {
	s.srv.disconnected()
	panic(http.ErrAbortHandler)
}

func (s *LLMServer) disconnected() {
	select {
	case s.disconnects <- struct{}{}:
	default: // nobody reads them: never block a handler on it
	}
}

// rawJSON is s as JSON when it is JSON (a tool call's joined arguments), else {}.
func rawJSON(s string) json.RawMessage {
	if s == "" || !json.Valid([]byte(s)) {
		return json.RawMessage(`{}`)
	}
	return json.RawMessage(s)
}
