// Package openai is the Provider for the OpenAI Chat Completions protocol, on the official
// SDK. One `type: openai` provider reaches OpenAI and every server that speaks the protocol
// (Ollama, vLLM, llama.cpp server, LM Studio, OpenRouter): only the base URL differs.
//
// Usage mapping (our six counters from the protocol's `usage`, sent in the last chunk because
// the request asks for stream_options.include_usage):
//
//	input_tokens             = prompt_tokens (which already include the cached tokens)
//	input_tokens_cache_read  = prompt_tokens_details.cached_tokens (a part of input_tokens)
//	input_tokens_cache_write = 0 (the protocol reports no cache writes)
//	output_tokens            = completion_tokens
//	reasoning_tokens         = completion_tokens_details.reasoning_tokens (a part of output)
//	total_tokens             = input_tokens + output_tokens
//
// A server that sends no usage chunk (some compatible servers ignore include_usage) gives a
// Result with Reported false.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"
	"github.com/tidwall/gjson"

	"wsapi/app"
	"wsapi/app/assist"
	"wsapi/app/assist/internal/remote"
)

// Provider streams Chat Completions from one configured provider.
type Provider struct {
	name    string
	key     string
	timeout time.Duration
	chat    oai.ChatCompletionService
}

// New makes the provider called name (the part of a model id before ":"). baseURL includes the
// API version path (https://api.openai.com/v1, http://localhost:11434/v1); apiKey may be empty
// for local servers; timeout bounds each whole call, streaming included (0: none); client is
// the caller's HTTP client (nil: a fresh one). The SDK's own retries are off: the run loop
// retries classified errors itself.
func New(name, baseURL, apiKey string, timeout time.Duration, client *http.Client) *Provider {
	if client == nil {
		// No client Timeout: the call's context carries the deadline, streaming included.
		client = &http.Client{}
	}
	// The service is built from these options only, not through oai.NewClient, so no
	// OPENAI_* environment variable of the host changes where or how a provider calls.
	opts := []option.RequestOption{
		option.WithEnvironmentProduction(), // https://api.openai.com/v1 unless baseURL is set
		option.WithAPIKey(apiKey),
		option.WithHTTPClient(client),
		option.WithMaxRetries(0),
	}
	if baseURL != "" {
		opts = append(opts, option.WithBaseURL(baseURL))
	}
	return &Provider{name: name, key: apiKey, timeout: timeout, chat: oai.NewChatCompletionService(opts...)}
}

// Stream makes one streamed Chat Completions call; see assist.Provider.
func (p *Provider) Stream(ctx context.Context, req assist.Request, onText func(string)) (assist.Result, error) {
	call, ctx, stop := remote.Start(ctx, p.name, p.key, p.timeout)
	defer stop()
	stream := p.chat.NewStreaming(ctx, params(req))
	defer stream.Close()
	var acc oai.ChatCompletionAccumulator
	var last oai.CompletionUsage
	reported, finished := false, false
	for stream.Next() {
		chunk := stream.Current()
		acc.AddChunk(chunk)
		if chunk.JSON.Usage.Valid() {
			// The last usage, not the accumulator's sum: a compatible server that repeats
			// its running totals in every chunk would otherwise be counted many times.
			reported, last = true, chunk.Usage
		}
		for _, choice := range chunk.Choices {
			if choice.Index != 0 { // n is 1: other choices never come, ignore them if they do
				continue
			}
			if choice.Delta.Content != "" {
				onText(choice.Delta.Content)
			}
			finished = finished || choice.FinishReason != ""
		}
	}
	acc.Usage = last
	res := result(&acc.ChatCompletion, reported)
	if err := stream.Err(); err != nil {
		return res, failure(call, err)
	}
	if !finished {
		return res, call.Incomplete()
	}
	return res, nil
}

// result reads the accumulated completion; a call cut short keeps its text but not its
// unfinished tool calls.
func result(cc *oai.ChatCompletion, reported bool) assist.Result {
	res := assist.Result{Reported: reported, Usage: usage(cc.Usage)}
	if len(cc.Choices) == 0 {
		return res
	}
	choice := cc.Choices[0]
	res.Text = choice.Message.Content
	res.StopReason = choice.FinishReason
	if res.StopReason == "" {
		return res
	}
	for _, tc := range choice.Message.ToolCalls {
		res.ToolCalls = append(res.ToolCalls, assist.ToolCall{
			ID: tc.ID, Name: tc.Function.Name, Arguments: arguments(tc.Function.Arguments),
		})
	}
	return res
}

// arguments keeps the model's JSON object; an empty one is {} and text that is not JSON is
// passed on as a JSON string, so the run loop can store it and the tool can refuse it.
func arguments(s string) json.RawMessage {
	s = strings.TrimSpace(s)
	if s == "" {
		return json.RawMessage(`{}`)
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	quoted, _ := json.Marshal(s)
	return quoted
}

// usage maps the protocol's counters to ours (see the package comment).
func usage(u oai.CompletionUsage) app.UsageCounter {
	in, out := float64(u.PromptTokens), float64(u.CompletionTokens)
	return app.UsageCounter{
		InputTokens:          in,
		OutputTokens:         out,
		TotalTokens:          in + out,
		ReasoningTokens:      float64(u.CompletionTokensDetails.ReasoningTokens),
		InputTokensCacheRead: float64(u.PromptTokensDetails.CachedTokens),
	}
}

// failure classifies an error of the SDK: an HTTP error status, an error event inside the
// stream, or a transport failure.
func failure(call *remote.Call, err error) error {
	var apiErr *oai.Error
	if errors.As(err, &apiErr) {
		var header http.Header
		if apiErr.Response != nil {
			header = apiErr.Response.Header
		}
		return call.StatusError(apiErr.StatusCode, header, apiErr.Message)
	}
	var streamErr *ssestream.StreamError
	if errors.As(err, &streamErr) {
		e := gjson.GetBytes(streamErr.Event.Data, "error")
		return call.StatusError(eventStatus(e.Get("type").String()+" "+e.Get("code").String()), nil,
			e.Get("message").String())
	}
	return call.Failure(err)
}

// eventStatus gives an error event inside a 200 stream the status it stands for, so a server
// error mid-stream is as retryable as a 500; an unknown kind is 0, not retried.
func eventStatus(kind string) int {
	switch {
	case strings.Contains(kind, "rate_limit"):
		return http.StatusTooManyRequests
	case strings.Contains(kind, "overloaded"):
		return 529
	case strings.Contains(kind, "server_error"), strings.Contains(kind, "api_error"):
		return http.StatusInternalServerError
	}
	return 0
}

// params builds the request body: the system prompt first, the conversation, the tools, and
// usage in the stream. max_completion_tokens (not the deprecated max_tokens, which reasoning
// models refuse) is sent only when the request sets a limit.
func params(req assist.Request) oai.ChatCompletionNewParams {
	p := oai.ChatCompletionNewParams{
		Model:         shared.ChatModel(req.Model),
		Messages:      messages(req),
		StreamOptions: oai.ChatCompletionStreamOptionsParam{IncludeUsage: oai.Bool(true)},
	}
	if req.MaxTokens > 0 {
		p.MaxCompletionTokens = oai.Int(int64(req.MaxTokens))
	}
	if req.ReasoningEffort != "" {
		p.ReasoningEffort = shared.ReasoningEffort(req.ReasoningEffort)
	}
	for _, t := range req.Tools {
		def := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema(t.Parameters)}
		if t.Description != "" {
			def.Description = oai.String(t.Description)
		}
		p.Tools = append(p.Tools, oai.ChatCompletionFunctionTool(def))
	}
	return p
}

// schema is a tool's JSON schema as the SDK wants it; none (or one that is not an object)
// is the empty object schema, which every server accepts.
func schema(raw json.RawMessage) shared.FunctionParameters {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || m == nil {
		m = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	return m
}

// messages turns the conversation into the protocol's messages. A tool result that reports a
// failure has no flag in this protocol: its text says so.
func messages(req assist.Request) []oai.ChatCompletionMessageParamUnion {
	var out []oai.ChatCompletionMessageParamUnion
	if req.System != "" {
		out = append(out, oai.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case assist.RoleAssistant:
			out = append(out, assistantMessage(m))
		case assist.RoleTool:
			out = append(out, oai.ToolMessage(m.Text, m.ToolCallID))
		default:
			out = append(out, oai.UserMessage(m.Text))
		}
	}
	return out
}

// assistantMessage is an earlier answer, with the tool calls it made (content is left out
// when empty, as the protocol allows for a message with tool calls).
func assistantMessage(m assist.Message) oai.ChatCompletionMessageParamUnion {
	msg := oai.ChatCompletionAssistantMessageParam{}
	if m.Text != "" || len(m.ToolCalls) == 0 {
		msg.Content.OfString = oai.String(m.Text)
	}
	for _, tc := range m.ToolCalls {
		args := string(tc.Arguments)
		if args == "" {
			args = "{}"
		}
		msg.ToolCalls = append(msg.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
				ID:       tc.ID,
				Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: args},
			},
		})
	}
	return oai.ChatCompletionMessageParamUnion{OfAssistant: &msg}
}
