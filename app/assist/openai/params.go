package openai

import (
	"encoding/json"

	"wsapi/app/assist"
)

// request is the body of a streamed Chat Completions call.
type request struct {
	Model         string    `json:"model"`
	Messages      []message `json:"messages"`
	Stream        bool      `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxCompletionTokens int    `json:"max_completion_tokens,omitempty"`
	ReasoningEffort     string `json:"reasoning_effort,omitempty"`
	Tools               []tool `json:"tools,omitempty"`
}

// message is one message of the conversation; Content is left out only for an assistant
// message with tool calls and no text, as the protocol allows.
type message struct {
	Role       string        `json:"role"`
	Content    *string       `json:"content,omitempty"`
	ToolCalls  []messageCall `json:"tool_calls,omitempty"`
	ToolCallID string        `json:"tool_call_id,omitempty"`
}

type messageCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type tool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string         `json:"name"`
		Description string         `json:"description,omitempty"`
		Parameters  map[string]any `json:"parameters"`
	} `json:"function"`
}

// params builds the request body: the system prompt first, the conversation, the tools, and
// usage in the stream. max_completion_tokens (not the deprecated max_tokens, which reasoning
// models refuse) is sent only when the request sets a limit.
func params(req assist.Request) request {
	p := request{Model: req.Model, Messages: messages(req), Stream: true,
		MaxCompletionTokens: req.MaxTokens, ReasoningEffort: req.ReasoningEffort}
	p.StreamOptions.IncludeUsage = true
	for _, t := range req.Tools {
		var def tool
		def.Type = "function"
		def.Function.Name, def.Function.Description, def.Function.Parameters = t.Name, t.Description, schema(t.Parameters)
		p.Tools = append(p.Tools, def)
	}
	return p
}

// schema is a tool's JSON schema; none (or one that is not an object) is the empty object
// schema, which every server accepts.
func schema(raw json.RawMessage) map[string]any {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || m == nil {
		m = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	return m
}

// messages turns the conversation into the protocol's messages. A tool result that reports a
// failure has no flag in this protocol: its text says so.
func messages(req assist.Request) []message {
	var out []message
	if req.System != "" {
		out = append(out, message{Role: "system", Content: &req.System})
	}
	for _, m := range req.Messages {
		text := m.Text
		switch m.Role {
		case assist.RoleAssistant:
			out = append(out, assistantMessage(m))
		case assist.RoleTool:
			out = append(out, message{Role: "tool", Content: &text, ToolCallID: m.ToolCallID})
		default:
			out = append(out, message{Role: "user", Content: &text})
		}
	}
	return out
}

// assistantMessage is an earlier answer, with the tool calls it made.
func assistantMessage(m assist.Message) message {
	msg := message{Role: "assistant"}
	if m.Text != "" || len(m.ToolCalls) == 0 {
		msg.Content = &m.Text
	}
	for _, tc := range m.ToolCalls {
		args := string(tc.Arguments)
		if args == "" {
			args = "{}"
		}
		var c messageCall
		c.ID, c.Type = tc.ID, "function"
		c.Function.Name, c.Function.Arguments = tc.Name, args
		msg.ToolCalls = append(msg.ToolCalls, c)
	}
	return msg
}
