package app

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Event types that customers can subscribe to, and ping, which only the Test operation sends.
const (
	EventChatAssigned        = "chat.assigned"
	EventContactBlocked      = "contact.blocked"
	EventContactUnsubscribed = "contact.unsubscribed"
	EventBroadcastFailed     = "broadcast.failed"
	EventBroadcastBounced    = "broadcast.bounced"
	EventBroadcastComplained = "broadcast.complained"
	EventBroadcastSuppressed = "broadcast.suppressed"
	EventPing                = "ping"
)

// EventTypes is the live list of subscribable types (ping is not one).
var EventTypes = []EventType{
	{EventChatAssigned, "A customer conversation changed hands: the AI handed off, a member took it, or it was unassigned.", "inbox", true},
	{EventContactBlocked, "A contact was blocked.", "contacts", true},
	{EventContactUnsubscribed, "A contact opted out: manually, by an unsubscribe link, or after a bounce or complaint.", "contacts", true},
	{EventBroadcastFailed, "A broadcast failed as a whole.", "broadcasts", true},
	{EventBroadcastBounced, "A broadcast email hard-bounced.", "broadcasts", true},
	{EventBroadcastComplained, "A recipient marked a broadcast email as spam.", "broadcasts", true},
	{EventBroadcastSuppressed, "A send was skipped because the address is on the suppression list.", "broadcasts", true},
	// On the streams, message.created is every chat message, with the message as its data; as
	// a webhook event it is a reply to deliver on a custom chat (app/messagedelivery.go).
	{EventMessageCreated, "A chat message was added. Streams: every message (data: the message). Webhooks: a member's or " +
		"the assistant's finished reply on a chat of the custom integration, for the customer's bridge to deliver " +
		"(data: {message, chat_id, integration_id, assistant_integration_id, contact_id}).", "inbox", true},
}

func subscribable(t string) bool {
	return slices.ContainsFunc(EventTypes, func(et EventType) bool { return et.Type == t })
}

// Event is the envelope delivered to endpoints. Body holds the exact bytes sent on every
// attempt, so the signature covers the same content each time.
type Event struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	OrgID     string          `json:"org_id"`
	CreatedAt Time            `json:"created_at"`
	Data      json.RawMessage `json:"data"`
}

// EventTx is the outbox part of a transaction.
type EventTx interface {
	// InsertEvent stores the event and one pending delivery per enabled endpoint of the
	// organization subscribed to its type, due at once. It answers how many it made.
	InsertEvent(e Event, body []byte) (int, error)
	GetEvent(orgID, id string) (Event, []byte, error)
}

// NewEvent builds an envelope and its body.
func NewEvent(orgID, typ string, data any, now Time) (Event, []byte, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return Event{}, nil, fmt.Errorf("app: event data: %w", err)
	}
	e := Event{ID: NewID("evt"), Type: typ, OrgID: orgID, CreatedAt: now, Data: raw}
	body, err := e.Body()
	if err != nil {
		return Event{}, nil, err
	}
	return e, body, nil
}

// Body encodes the envelope as deliveries send it (`app listen` builds its forwards with it
// too, so both carry the same envelope).
func (e Event) Body() ([]byte, error) {
	body, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("app: event: %w", err)
	}
	return body, nil
}

// Emit writes an event into the outbox of the caller's transaction: if the transaction rolls
// back, the event and its deliveries are gone with it. The same data also goes to the
// streams' outbox, so the organization stream carries every webhook event (and a chat's
// stream the ones about that chat).
func (s *Service) Emit(tx Tx, orgID, typ string, data any) (Event, error) {
	e, body, err := NewEvent(orgID, typ, data, s.now())
	if err != nil {
		return Event{}, err
	}
	if _, err = tx.InsertEvent(e, body); err != nil {
		return e, err
	}
	return e, s.insertStream(tx, orgID, chatOf(data), typ, e.Data, data)
}
