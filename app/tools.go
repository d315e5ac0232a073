package app

import (
	"context"
	"encoding/json"
	"strings"
)

// ToolCallPart is one tool call of an assistant's run as its message records it: what the
// model asked for, what it got back (a result or an error) and how long it took.
type ToolCallPart struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	Arguments  json.RawMessage `json:"arguments"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      string          `json:"error,omitempty"`
	DurationMS int64           `json:"duration_ms"`
}

// Citation is a piece of knowledge an answer used: the content it came from and the text.
type Citation struct {
	ContentID string `json:"content_id"`
	Title     string `json:"title"`
	Text      string `json:"text"`
}

// Names of the built-in tools, offered when the assistant's configuration allows them.
const (
	ToolTransferToHuman = "transfer_to_human"
	ToolEndConversation = "end_conversation"
	ToolBlockContact    = "block_contact"
	ToolSaveMemory      = "save_memory"
	ToolSearchKnowledge = "search_knowledge"
)

// ToolEffect is what a built-in tool changes. It is not applied when the tool is called:
// the run's final transaction applies it with the reply, and only while the chat is still
// the assistant's, so a run never hands off, closes or blocks over a member's head.
type ToolEffect struct {
	Tool    string // one of the Tool* names that change something
	Reason  string
	Summary string
	Memory  *MemoryInput
}

// StreamMessageToolCall is the chat stream's event for each tool call of a run in flight:
// {message_id, chat_id, tool_call}, stored like the other message events.
const StreamMessageToolCall = "message.tool_call"

// ToolCallEvent is the data of a message.tool_call event.
type ToolCallEvent struct {
	MessageID string       `json:"message_id"`
	ChatID    string       `json:"chat_id"`
	ToolCall  ToolCallPart `json:"tool_call"`
}

// DefaultHandoffMessage is what the contact reads when the model handed off without words.
const DefaultHandoffMessage = "I am passing you to a member of our team, who will answer here shortly."

// stopNotTheAIs is the error of a reply discarded at commit because the chat stopped being
// the assistant's while the run was under way (a race with the stops of runs.go).
const stopNotTheAIs = "canceled: the chat is no longer the assistant's"

// toolParts are the parts a run's message records after its text: each tool call, then
// each citation.
func toolParts(calls []ToolCallPart, cites []Citation) []Part {
	var parts []Part
	for i := range calls {
		parts = append(parts, Part{Type: "tool_call", ToolCall: &calls[i]})
	}
	for i := range cites {
		parts = append(parts, Part{Type: "citation", Citation: &cites[i]})
	}
	return parts
}

// handoffNote is the private note a transfer leaves for the members on the contact.
func handoffNote(assistant string, e ToolEffect) string {
	var b strings.Builder
	b.WriteString(assistant + " transferred the chat to a human. Reason: " + strings.TrimSpace(e.Reason))
	if s := strings.TrimSpace(e.Summary); s != "" {
		b.WriteString("\nSummary: " + s)
	}
	return truncateChars(b.String(), 1000)
}

func truncateChars(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// promptMemories answers the contact's most important memories when the assistant keeps
// memories (up to PromptMemories), so a returning contact is remembered.
func (s *Service) promptMemories(tx Tx, in RunInput) ([]Memory, error) {
	if in.Chat.ContactID == "" || !in.Assistant.Config.Conversation.EnableMemories || s.d.RunPolicy.PromptMemories <= 0 {
		return nil, nil
	}
	ms, _, err := tx.ListMemories(in.Chat.OrgID, in.Chat.ContactID, nil, 0, s.d.RunPolicy.PromptMemories)
	return ms, err
}

// RecordToolCall stores the message.tool_call stream event of a run's tool call, so chat
// watchers see each call as it ends (the message itself records them when the run ends).
func (s *Service) RecordToolCall(ctx context.Context, job RunJob, call ToolCallPart) error {
	ev := ToolCallEvent{MessageID: job.MessageID, ChatID: job.ChatID, ToolCall: call}
	return s.d.Store.Write(ctx, func(tx Tx) error { return s.EmitStream(tx, job.OrgID, job.ChatID, StreamMessageToolCall, ev) })
}

// checkToolCallbacks applies the webhook URL rules (CheckTargetURL) to every tool's callback
// when a chat or a message is saved: the run POSTs there later, so a file://, loopback or
// metadata address is refused now, naming the tool, rather than found out by a failing run.
// A tool without a callback is an action or built-in tool and has nothing to check.
func (s *Service) checkToolCallbacks(ctx context.Context, p Problems, tools []Tool) {
	for i, t := range tools {
		if t.Callback == "" {
			continue
		}
		if why := s.CheckTargetURL(ctx, t.Callback); why != "" {
			p.Add("tools["+itoa(i)+"].callback", why)
		}
	}
}
