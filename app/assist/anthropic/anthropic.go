// Package anthropic is the Provider for Anthropic's Messages API, on the official SDK.
//
// Usage mapping (our six counters; Anthropic sends the input side in message_start and the
// output in message_delta, and both are combined):
//
//	input_tokens             = input_tokens + cache_read_input_tokens + cache_creation_input_tokens
//	input_tokens_cache_read  = cache_read_input_tokens (a part of input_tokens)
//	input_tokens_cache_write = cache_creation_input_tokens (a part of input_tokens)
//	output_tokens            = output_tokens
//	reasoning_tokens         = output_tokens_details.thinking_tokens when reported, else 0
//	total_tokens             = input_tokens + output_tokens
//
// A stream without any usage object (a compatible server that leaves it out) gives a Result
// with Reported false.
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"wsapi/app"
	"wsapi/app/assist"
	"wsapi/app/assist/internal/remote"
)

// DefaultMaxTokens is max_tokens when the request sets none: Anthropic requires the field, and
// 4096 is within every Claude model's output limit (a larger value fails on the smaller ones).
const DefaultMaxTokens = 4096

// Provider streams Messages API answers from one configured provider.
type Provider struct {
	name     string
	key      string
	timeout  time.Duration
	messages sdk.MessageService
}

// New makes the provider called name (the part of a model id before ":"). baseURL is the host
// without the version path (https://api.anthropic.com, the default when empty); timeout bounds
// each whole call, streaming included (0: none); client is the caller's HTTP client (nil: a
// fresh one). The SDK's own retries are off: the run loop retries classified errors itself.
func New(name, baseURL, apiKey string, timeout time.Duration, client *http.Client) *Provider {
	if client == nil {
		// No client Timeout: the call's context carries the deadline, streaming included.
		client = &http.Client{}
	}
	// No ANTHROPIC_* environment variable or config file of the host changes where or how a
	// provider calls: everything comes from the configuration.
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(apiKey),
		option.WithHTTPClient(client),
		option.WithMaxRetries(0),
	}
	if baseURL != "" {
		opts = append(opts, option.WithBaseURL(baseURL))
	}
	c := sdk.NewClient(opts...)
	return &Provider{name: name, key: apiKey, timeout: timeout, messages: c.Messages}
}

// Stream makes one streamed Messages call; see assist.Provider.
func (p *Provider) Stream(ctx context.Context, req assist.Request, onText func(string)) (assist.Result, error) {
	call, ctx, stop := remote.Start(ctx, p.name, p.key, p.timeout)
	defer stop()
	stream := p.messages.NewStreaming(ctx, params(req))
	defer stream.Close()
	var msg sdk.Message
	reported, finished := false, false
	for stream.Next() {
		ev := stream.Current()
		if err := msg.Accumulate(ev); err != nil {
			return result(&msg, reported, false), call.Failure(err)
		}
		switch ev.Type {
		case "message_start":
			reported = reported || ev.Message.JSON.Usage.Valid()
		case "message_delta":
			reported = reported || ev.JSON.Usage.Valid()
		case "content_block_delta":
			if ev.Delta.Type == "text_delta" && ev.Delta.Text != "" {
				onText(ev.Delta.Text)
			}
		case "message_stop":
			finished = true
		}
	}
	res := result(&msg, reported, finished)
	if err := stream.Err(); err != nil {
		return res, failure(call, err)
	}
	if !finished {
		return res, call.Incomplete()
	}
	return res, nil
}

// result reads the accumulated message; a call cut short keeps its text but not its
// unfinished tool calls.
func result(msg *sdk.Message, reported, finished bool) assist.Result {
	res := assist.Result{Reported: reported, Usage: usage(msg.Usage), StopReason: string(msg.StopReason)}
	for _, block := range msg.Content {
		switch block.Type {
		case "text":
			res.Text += block.Text
		case "tool_use":
			if finished {
				res.ToolCalls = append(res.ToolCalls, assist.ToolCall{
					ID: block.ID, Name: block.Name, Arguments: arguments(block.Input),
				})
			}
		}
	}
	return res
}

// arguments keeps the tool input object; an empty one is {}.
func arguments(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || !json.Valid(raw) {
		return json.RawMessage(`{}`)
	}
	return raw
}

// usage maps the protocol's counters to ours (see the package comment).
func usage(u sdk.Usage) app.UsageCounter {
	read, write := float64(u.CacheReadInputTokens), float64(u.CacheCreationInputTokens)
	in := float64(u.InputTokens) + read + write
	out := float64(u.OutputTokens)
	return app.UsageCounter{
		InputTokens:           in,
		OutputTokens:          out,
		TotalTokens:           in + out,
		ReasoningTokens:       float64(u.OutputTokensDetails.ThinkingTokens),
		InputTokensCacheRead:  read,
		InputTokensCacheWrite: write,
	}
}

// failure classifies an error of the SDK: an HTTP error status, an error event inside the
// stream (which arrives with the stream's 200), or a transport failure.
func failure(call *remote.Call, err error) error {
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) {
		return call.Failure(err)
	}
	status := apiErr.StatusCode
	var header http.Header
	if apiErr.Response != nil {
		header = apiErr.Response.Header
	}
	if status < 400 { // an error event mid-stream: the status its type stands for
		status, header = typeStatus[string(apiErr.Type())], nil
	}
	return call.StatusError(status, header, apiErr.Message)
}

// typeStatus is the HTTP status of each error type Anthropic documents, for error events that
// come inside a stream; an unknown type is 0, not retried.
var typeStatus = map[string]int{
	"invalid_request_error": 400,
	"authentication_error":  401,
	"billing_error":         402,
	"permission_error":      403,
	"not_found_error":       404,
	"request_too_large":     413,
	"rate_limit_error":      429,
	"api_error":             500,
	"timeout_error":         504,
	"overloaded_error":      529,
}
