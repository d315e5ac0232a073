package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Event types that only the live streams carry (no webhook can subscribe to them): what a
// live inbox needs besides the webhook events.
const (
	StreamChatCreated    = "chat.created"
	StreamChatDeleted    = "chat.deleted"
	StreamContactCreated = "contact.created"
	StreamContactUpdated = "contact.updated"
	StreamContactDeleted = "contact.deleted"
)

// StreamSync is the chat stream's snapshot of the message in flight (not persisted).
const StreamSync = "sync"

// StreamEvent is one row of the streams' outbox. Seq orders events in commit order and is
// the SSE id; Area is the permission area whose :read lets a key see the event.
type StreamEvent struct {
	Seq       int64
	OrgID     string
	ChatID    string // "" for organization-level events
	MessageID string // set on message events
	Type      string
	Area      string
	Data      json.RawMessage
	CreatedAt Time
}

// StreamTx is the stream outbox part of a transaction.
type StreamTx interface {
	InsertStreamEvent(e StreamEvent) (int64, error)
	// StreamEventsAfter answers up to limit events with seq > after, oldest first; an empty
	// orgID matches every organization, an empty chatID every chat.
	StreamEventsAfter(orgID, chatID string, after int64, limit int) ([]StreamEvent, error)
	GetStreamEvent(orgID string, seq int64) (StreamEvent, error)
	MessageCreatedSeq(orgID, messageID string) (int64, error)
	LastStreamSeq() (int64, error)
	PurgeStreamEvents(cutoff Time) (int, error)
}

// EventType describes one event type: every type the organization stream carries, marked
// with whether a webhook endpoint can subscribe to it and the area a key must read to see it.
type EventType struct {
	Type        string `json:"type"`
	Description string `json:"description"`
	Area        string `json:"area"`
	Webhook     bool   `json:"webhook"`
}

// StreamOnlyTypes are the organization stream's types that are not webhook events.
var StreamOnlyTypes = []EventType{
	{StreamMessageUpdated, "A chat message changed: a run finished, media was added, a reaction was set.", "inbox", false},
	{StreamMessageDelivery, "A message's delivery to the contact moved (data: {message_id, chat_id, delivery}).", "inbox", false},
	{StreamMessageToolCall, "An assistant's run called a tool (data: {message_id, chat_id, tool_call}).", "inbox", false},
	{StreamChatCreated, "A chat was started.", "inbox", false},
	{StreamChatUpdated, "A chat changed: title, state, assignee, ai_enabled, read marks and the other PATCH fields.", "inbox", false},
	{StreamChatDeleted, "A chat was deleted (data: {id}).", "inbox", false},
	{StreamContactCreated, "A contact was created.", "contacts", false},
	{StreamContactUpdated, "A contact changed: name, opt-outs, channels, or a merge into it.", "contacts", false},
	{StreamContactDeleted, "A contact was deleted (data: {id}).", "contacts", false},
}

// AllEventTypes is every type of the organization stream: the webhook events, then the
// stream-only ones.
func AllEventTypes() []EventType { return slices.Concat(EventTypes, StreamOnlyTypes) }

// streamAreas maps every stream type to its permission area (built once: every emit asks).
var streamAreas = func() map[string]string {
	m := map[string]string{}
	for _, et := range AllEventTypes() {
		m[et.Type] = et.Area
	}
	return m
}()

// streamArea is the permission area of an event type ("" for an unknown type).
func streamArea(typ string) string { return streamAreas[typ] }

// KnownStreamType tells whether the organization stream can carry typ.
func KnownStreamType(typ string) bool { return streamArea(typ) != "" }

// EmitStream writes a stream event into the caller's transaction: it reaches watchers only
// once the transaction commits, and never if it rolls back. data is encoded as the API
// encodes it (a Message or a Chat as GET answers it).
func (s *Service) EmitStream(tx Tx, orgID, chatID, typ string, data any) error {
	_, err := s.emitStreamJSON(tx, orgID, chatID, typ, data)
	return err
}

// emitStreamJSON is EmitStream answering data in EncodeJSON's form, for a service whose
// answer is the event's data: encoding it once serves both (see Contact.EncodedJSON).
func (s *Service) emitStreamJSON(tx Tx, orgID, chatID, typ string, data any) ([]byte, error) {
	raw, err := EncodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("app: stream event data: %w", err)
	}
	return raw, s.insertStream(tx, orgID, chatID, typ, bytes.TrimSpace(raw), data)
}

func (s *Service) insertStream(tx Tx, orgID, chatID, typ string, raw json.RawMessage, data any) error {
	area := streamArea(typ)
	if area == "" {
		return fmt.Errorf("app: stream event type %q has no area", typ)
	}
	e := StreamEvent{OrgID: orgID, ChatID: chatID, Type: typ, Area: area, Data: raw, CreatedAt: s.now()}
	switch v := data.(type) {
	case Message:
		e.MessageID = v.ID
	case *Message:
		e.MessageID = v.ID
	}
	_, err := tx.InsertStreamEvent(e)
	return err
}

// chatOf is the chat a webhook event is about, so it also shows on that chat's stream.
func chatOf(data any) string {
	switch v := data.(type) {
	case Chat:
		return v.ID
	case *Chat:
		return v.ID
	}
	return ""
}

// PurgeStreamEvents is the janitor's pass: stream events older than StreamRetention.
func (s *Service) PurgeStreamEvents(ctx context.Context) (n int, err error) {
	retention := s.d.StreamRetention
	if retention <= 0 {
		retention = 24 * time.Hour
	}
	cutoff := At(s.d.Clock.Now().Add(-retention))
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		n, err = tx.PurgeStreamEvents(cutoff)
		return err
	})
	return n, err
}

// StreamEventsAfter reads a stream's backlog: up to limit events with seq > after, of a chat
// when chatID is set.
func (s *Service) StreamEventsAfter(ctx context.Context, orgID, chatID string, after int64, limit int) ([]StreamEvent, error) {
	return readOne(ctx, s.d.Store, func(tx Tx) ([]StreamEvent, error) { return tx.StreamEventsAfter(orgID, chatID, after, limit) })
}
