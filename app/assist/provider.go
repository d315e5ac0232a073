// Package assist runs assistants: it turns a chat into a model request, streams the model's
// answer into the assistant's chat message, and records usage. Each provider protocol lives
// in a sub-package (openai, anthropic, builtin) behind the Provider interface below, so the
// run loop knows no SDK and the domain (package app) knows neither.
package assist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"wsapi/app"
)

// Provider makes one model call and streams its answer. Stream calls onText with each piece
// of text as it arrives (in order, never concurrently) and returns once the call has ended,
// with the whole text, the tool calls the model asked for, and the usage the provider
// reported. Cancelling ctx must abort the HTTP request at once.
//
// An error before the first piece of text is a *ProviderError when the provider answered or
// could not be reached, so the run loop can classify it (retry, fall back, fail).
type Provider interface {
	Stream(ctx context.Context, req Request, onText func(string)) (Result, error)
}

// Request is one model call. Model is the part of the model id after "<provider>:".
type Request struct {
	Model     string
	System    string
	Messages  []Message
	Tools     []ToolSpec
	MaxTokens int
	// ReasoningEffort is the chat's features.reasoning.effort ("" when unset).
	ReasoningEffort string

	// What the builtin:retrieval model needs to search; remote providers ignore these.
	OrgID       string
	AssistantID string
	// KnowledgeScope is nil for all of the assistant's knowledge, else the content ids.
	KnowledgeScope []string
	Language       string
	// FollowUp marks a follow-up run: the builtin writes its follow-up sentence.
	FollowUp bool
}

// Message roles of a request.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one entry of the conversation sent to the model. An assistant message may carry
// tool calls; a tool message answers the call named by ToolCallID.
type Message struct {
	Role       string
	Text       string
	ToolCalls  []ToolCall
	ToolCallID string
	// IsError marks a tool result that reports a failure (Anthropic's is_error).
	IsError bool
}

// ToolSpec is a tool offered to the model: Parameters is its JSON schema.
type ToolSpec struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// ToolCall is a call the model asked for; Arguments is the JSON object it wrote.
type ToolCall struct {
	ID        string
	Name      string
	Arguments json.RawMessage
}

// Result is the end of one model call.
type Result struct {
	Text      string
	ToolCalls []ToolCall
	// Usage is the six counters mapped from the provider's own; Reported is false when the
	// provider sent none (the run loop then estimates from the text and says so).
	Usage    app.UsageCounter
	Reported bool
	// StopReason is the provider's own word for why it stopped (stop, length, tool_calls...).
	StopReason string
	// Citations are the knowledge the answer quotes, when the provider knows (builtin).
	Citations []app.Citation
}

// ProviderError is a failed call, classified so the run loop knows whether to retry.
type ProviderError struct {
	Provider string // the configured provider name
	Status   int    // the HTTP status, 0 when none came back (connection refused, timeout)
	// Retryable is true for 429, 5xx, overload and connection errors.
	Retryable bool
	// RetryAfter is the provider's Retry-After, 0 when it gave none.
	RetryAfter time.Duration
	Message    string // never contains the API key
}

func (e *ProviderError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("provider %s: %s", e.Provider, e.Message)
	}
	return fmt.Sprintf("provider %s: status %d: %s", e.Provider, e.Status, e.Message)
}

// AsProviderError unwraps err into a *ProviderError, if it is one.
func AsProviderError(err error) (*ProviderError, bool) {
	var pe *ProviderError
	ok := errors.As(err, &pe)
	return pe, ok
}
