// Package openai is the Provider for the OpenAI Chat Completions protocol, on net/http and
// encoding/json (docs/decisions/provider-clients.md: the official SDK was 20 MB of a 57 MB
// binary for one streamed call). One `type: openai` provider reaches OpenAI and every server
// that speaks the protocol (Ollama, vLLM, llama.cpp server, LM Studio, OpenRouter): only the
// base URL differs.
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
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"wsapi/app/assist"
	"wsapi/app/assist/internal/remote"
)

// DefaultBaseURL is OpenAI's API when the configuration names no base URL.
const DefaultBaseURL = "https://api.openai.com/v1"

// maxErrorBody bounds what is read of an error answer: its message is all that is kept.
const maxErrorBody = 1 << 20

// Provider streams Chat Completions from one configured provider.
type Provider struct {
	name    string
	key     string
	timeout time.Duration
	url     string
	client  *http.Client
}

// New makes the provider called name (the part of a model id before ":"). baseURL includes the
// API version path (https://api.openai.com/v1, the default when empty; http://localhost:11434/v1);
// apiKey may be empty for local servers; timeout bounds each whole call, streaming included
// (0: none); client is the caller's HTTP client (nil: a fresh one). There are no retries here:
// the run loop retries classified errors itself. No OPENAI_* environment variable of the host
// changes where or how a provider calls.
func New(name, baseURL, apiKey string, timeout time.Duration, client *http.Client) *Provider {
	if client == nil {
		// No client Timeout: the call's context carries the deadline, streaming included.
		client = &http.Client{}
	}
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	return &Provider{name: name, key: apiKey, timeout: timeout, client: client,
		url: strings.TrimRight(baseURL, "/") + "/chat/completions"}
}

// Stream makes one streamed Chat Completions call; see assist.Provider.
func (p *Provider) Stream(ctx context.Context, req assist.Request, onText func(string)) (assist.Result, error) {
	call, ctx, stop := remote.Start(ctx, p.name, p.key, p.timeout)
	defer stop()
	resp, err := p.post(ctx, req)
	if err != nil {
		return assist.Result{}, call.Failure(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return assist.Result{}, statusError(call, resp)
	}
	var acc accumulator
	err = readEvents(resp.Body, func(data []byte) (bool, error) {
		if bytes.HasPrefix(data, []byte("[DONE]")) {
			return false, nil
		}
		return true, acc.add(call, data, onText)
	})
	res := acc.result()
	if err != nil {
		if _, ok := assist.AsProviderError(err); ok {
			return res, err
		}
		return res, call.Failure(err)
	}
	if !acc.finished {
		return res, call.Incomplete()
	}
	return res, nil
}

// post sends the request; the answer's body is the caller's to close.
func (p *Provider) post(ctx context.Context, req assist.Request) (*http.Response, error) {
	body, err := json.Marshal(params(req))
	if err != nil {
		return nil, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	if p.key != "" {
		hr.Header.Set("Authorization", "Bearer "+p.key)
	}
	return p.client.Do(hr)
}

// statusError classifies an HTTP error answer by its status, with the message of the
// protocol's error object ({"error": {"message": ...}}) when the body has one.
func statusError(call *remote.Call, resp *http.Response) error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	var body struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(raw, &body)
	return call.StatusError(resp.StatusCode, resp.Header, body.Error.Message)
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

// streamError is the error of an error event inside the stream: {"error": {type, code, message}}.
func streamError(call *remote.Call, raw json.RawMessage) error {
	var e struct {
		Type    string `json:"type"`
		Code    any    `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &e) != nil {
		e.Message = string(raw)
	}
	code := ""
	if e.Code != nil {
		code = fmt.Sprint(e.Code)
	}
	return call.StatusError(eventStatus(e.Type+" "+code), nil, e.Message)
}
