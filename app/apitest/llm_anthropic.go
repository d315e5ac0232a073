package apitest

import (
	"net/http"
	"strings"
	"testing"
)

// NewAnthropicServer starts a fake Anthropic Messages API server; its URL is the host, as a
// provider's base_url is (the SDK adds /v1/messages). Streamed replies are written as the real
// service writes them: `event: message_start` (with the input side of the usage),
// content_block_start / content_block_delta (text_delta, input_json_delta) /
// content_block_stop for each block, a `ping` after the first block starts, `message_delta`
// (stop_reason, usage.output_tokens), then `message_stop`.
func NewAnthropicServer(t testing.TB) *LLMServer {
	return newLLMServer(t, anthropicProtocol{}, "")
}

type anthropicProtocol struct{}

func (anthropicProtocol) path() string { return "/v1/messages" }

func (p anthropicProtocol) stream(s *sseWriter, req map[string]any, r LLMReply) {
	msg := p.message(req, r)
	msg["content"], msg["stop_reason"] = []any{}, nil
	if u, ok := msg["usage"].(map[string]any); ok {
		u["output_tokens"] = 1 // what the real service reports before the first token
	}
	s.event("message_start", map[string]any{"type": "message_start", "message": msg})
	index := 0
	if len(r.Text) > 0 {
		s.event("content_block_start", blockStart(index, map[string]any{"type": "text", "text": ""}))
		s.event("ping", map[string]any{"type": "ping"})
		for _, text := range r.Text {
			s.content("content_block_delta", blockDelta(index, map[string]any{"type": "text_delta", "text": text}))
		}
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	for _, tc := range r.ToolCalls {
		s.content("content_block_start", blockStart(index, map[string]any{
			"type": "tool_use", "id": tc.ID, "name": tc.Name, "input": map[string]any{}}))
		s.event("content_block_delta", blockDelta(index, map[string]any{"type": "input_json_delta", "partial_json": ""}))
		for _, part := range tc.Args {
			s.content("content_block_delta", blockDelta(index, map[string]any{"type": "input_json_delta", "partial_json": part}))
		}
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	if !s.closing() {
		return
	}
	if r.StreamError != "" {
		s.event("error", map[string]any{"type": "error",
			"error": map[string]any{"type": r.StreamError, "message": "apitest: stream error"}})
		return
	}
	end := map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": anFinish(r), "stop_sequence": nil}}
	if r.Usage != nil {
		end["usage"] = map[string]any{"output_tokens": r.Usage.Output}
	}
	s.event("message_delta", end)
	s.event("message_stop", map[string]any{"type": "message_stop"})
}

func blockStart(index int, block map[string]any) map[string]any {
	return map[string]any{"type": "content_block_start", "index": index, "content_block": block}
}

func blockDelta(index int, delta map[string]any) map[string]any {
	return map[string]any{"type": "content_block_delta", "index": index, "delta": delta}
}

func anFinish(r LLMReply) string {
	switch {
	case r.StopReason != "":
		return r.StopReason
	case len(r.ToolCalls) > 0:
		return "tool_use"
	}
	return "end_turn"
}

// message is the whole Message object of a reply (the non-streamed answer; the stream's
// message_start carries it emptied).
func (anthropicProtocol) message(req map[string]any, r LLMReply) map[string]any {
	var content []any
	if len(r.Text) > 0 {
		content = append(content, map[string]any{"type": "text", "text": strings.Join(r.Text, "")})
	}
	for _, tc := range r.ToolCalls {
		content = append(content, map[string]any{"type": "tool_use", "id": tc.ID, "name": tc.Name,
			"input": rawJSON(strings.Join(tc.Args, ""))})
	}
	msg := map[string]any{"id": "msg_apitest", "type": "message", "role": "assistant",
		"model": str(req["model"]), "content": content, "stop_reason": anFinish(r), "stop_sequence": nil}
	if u := r.Usage; u != nil {
		usage := map[string]any{"input_tokens": u.Input, "cache_creation_input_tokens": u.CacheWrite,
			"cache_read_input_tokens": u.CacheRead, "output_tokens": u.Output}
		if u.Reasoning > 0 {
			usage["output_tokens_details"] = map[string]any{"thinking_tokens": u.Reasoning}
		}
		msg["usage"] = usage
	}
	return msg
}

func (p anthropicProtocol) complete(req map[string]any, r LLMReply) any { return p.message(req, r) }

// errorBody is Anthropic's error object; the type by status is the one the service documents.
func (anthropicProtocol) errorBody(status int, typ, message string) any {
	if typ == "" {
		typ = anthropicErrorTypes[status]
	}
	if typ == "" {
		typ = "api_error"
	}
	if message == "" {
		message = http.StatusText(status)
		if status == 529 {
			message = "Overloaded"
		}
	}
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": message},
		"request_id": "req_apitest"}
}

var anthropicErrorTypes = map[int]string{
	400: "invalid_request_error", 401: "authentication_error", 402: "billing_error",
	403: "permission_error", 404: "not_found_error", 413: "request_too_large",
	429: "rate_limit_error", 500: "api_error", 504: "timeout_error", 529: "overloaded_error",
}
