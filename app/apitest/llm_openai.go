package apitest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// NewOpenAIServer starts a fake OpenAI Chat Completions server; its URL ends in /v1, as a
// provider's base_url does. Streamed replies are written as the real service writes them:
// `data: {chat.completion.chunk}` lines, a role chunk first, content deltas, tool_calls
// fragments (index, id, type and function.name first, then argument pieces), the chunk with
// finish_reason, the usage chunk with empty choices when the request asked for
// stream_options.include_usage (and the reply has Usage), then `data: [DONE]`.
func NewOpenAIServer(t testing.TB) *LLMServer {
	return newLLMServer(t, openAIProtocol{}, "/v1")
}

type openAIProtocol struct{}

func (openAIProtocol) path() string { return "/v1/chat/completions" }

type oaChunk struct {
	ID                string          `json:"id"`
	Object            string          `json:"object"`
	Created           int64           `json:"created"`
	Model             string          `json:"model"`
	SystemFingerprint string          `json:"system_fingerprint"`
	Choices           []oaChoice      `json:"choices"`
	Usage             json.RawMessage `json:"usage,omitempty"`
}

type oaChoice struct {
	Index        int             `json:"index"`
	Delta        oaDelta         `json:"delta"`
	Logprobs     json.RawMessage `json:"logprobs"`
	FinishReason *string         `json:"finish_reason"`
}

type oaDelta struct {
	Role      string        `json:"role,omitempty"`
	Content   *string       `json:"content,omitempty"`
	ToolCalls []oaToolDelta `json:"tool_calls,omitempty"`
}

type oaToolDelta struct {
	Index    int        `json:"index"`
	ID       string     `json:"id,omitempty"`
	Type     string     `json:"type,omitempty"`
	Function oaFunction `json:"function"`
}

type oaFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

const oaCreated = 1767323045 // a fixed created time: the fake's answers are reproducible

func (openAIProtocol) stream(s *sseWriter, req map[string]any, r LLMReply) {
	opts, _ := req["stream_options"].(map[string]any)
	includeUsage := opts["include_usage"] == true
	chunk := func(choices []oaChoice) oaChunk {
		c := oaChunk{ID: "chatcmpl-apitest", Object: "chat.completion.chunk", Created: oaCreated,
			Model: str(req["model"]), SystemFingerprint: "fp_apitest", Choices: choices}
		if includeUsage {
			c.Usage = json.RawMessage("null")
		}
		return c
	}
	delta := func(d oaDelta) []oaChoice {
		return []oaChoice{{Delta: d, Logprobs: json.RawMessage("null")}}
	}
	empty := ""
	s.event("", chunk(delta(oaDelta{Role: "assistant", Content: &empty})))
	for _, text := range r.Text {
		s.content("", chunk(delta(oaDelta{Content: &text})))
	}
	for i, tc := range r.ToolCalls {
		start := oaToolDelta{Index: i, ID: tc.ID, Type: "function", Function: oaFunction{Name: tc.Name}}
		s.content("", chunk(delta(oaDelta{ToolCalls: []oaToolDelta{start}})))
		for _, part := range tc.Args {
			frag := oaToolDelta{Index: i, Function: oaFunction{Arguments: part}}
			s.content("", chunk(delta(oaDelta{ToolCalls: []oaToolDelta{frag}})))
		}
	}
	if !s.closing() {
		return
	}
	if r.StreamError != "" {
		s.event("", map[string]any{"error": oaError(r.StreamError, "apitest: stream error", "")})
		return
	}
	finish := oaFinish(r)
	s.event("", chunk([]oaChoice{{Delta: oaDelta{}, Logprobs: json.RawMessage("null"), FinishReason: &finish}}))
	if includeUsage && r.Usage != nil {
		c := chunk([]oaChoice{})
		c.Usage, _ = json.Marshal(oaUsage(*r.Usage))
		s.event("", c)
	}
	s.event("", "[DONE]")
}

func oaFinish(r LLMReply) string {
	switch {
	case r.StopReason != "":
		return r.StopReason
	case len(r.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func oaUsage(u LLMUsage) map[string]any {
	return map[string]any{
		"prompt_tokens":     u.Input,
		"completion_tokens": u.Output,
		"total_tokens":      u.Input + u.Output,
		"prompt_tokens_details": map[string]any{
			"cached_tokens": u.CacheRead, "audio_tokens": 0,
		},
		"completion_tokens_details": map[string]any{
			"reasoning_tokens": u.Reasoning, "audio_tokens": 0,
			"accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0,
		},
	}
}

// complete is the non-streamed chat.completion object of a reply.
func (openAIProtocol) complete(req map[string]any, r LLMReply) any {
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if len(r.Text) > 0 {
		msg["content"] = strings.Join(r.Text, "")
	}
	var calls []map[string]any
	for _, tc := range r.ToolCalls {
		calls = append(calls, map[string]any{"id": tc.ID, "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": strings.Join(tc.Args, "")}})
	}
	if calls != nil {
		msg["tool_calls"] = calls
	}
	out := map[string]any{"id": "chatcmpl-apitest", "object": "chat.completion", "created": oaCreated,
		"model": str(req["model"]), "system_fingerprint": "fp_apitest",
		"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": oaFinish(r)}}}
	if r.Usage != nil {
		out["usage"] = oaUsage(*r.Usage)
	}
	return out
}

// errorBody is OpenAI's error object; the type and code by status are the service's own.
func (openAIProtocol) errorBody(status int, typ, message string) any {
	code := ""
	switch {
	case typ != "":
	case status == http.StatusUnauthorized:
		typ, code = "invalid_request_error", "invalid_api_key"
	case status == http.StatusTooManyRequests:
		typ, code = "requests", "rate_limit_exceeded"
	case status >= 500:
		typ = "server_error"
	default:
		typ = "invalid_request_error"
	}
	if message == "" {
		message = http.StatusText(status)
	}
	return map[string]any{"error": oaError(typ, message, code)}
}

func oaError(typ, message, code string) map[string]any {
	e := map[string]any{"message": message, "type": typ, "param": nil, "code": nil}
	if code != "" {
		e["code"] = code
	}
	return e
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
