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

// EventType describes one subscribable event type.
type EventType struct {
	Type        string `json:"type"`
	Description string `json:"description"`
}

// EventTypes is the live list of subscribable types (ping is not one).
var EventTypes = []EventType{
	{EventChatAssigned, "A customer conversation changed hands: the AI handed off, a member took it, or it was unassigned."},
	{EventContactBlocked, "A contact was blocked."},
	{EventContactUnsubscribed, "A contact opted out: manually, by an unsubscribe link, or after a bounce or complaint."},
	{EventBroadcastFailed, "A broadcast failed as a whole."},
	{EventBroadcastBounced, "A broadcast email hard-bounced."},
	{EventBroadcastComplained, "A recipient marked a broadcast email as spam."},
	{EventBroadcastSuppressed, "A send was skipped because the address is on the suppression list."},
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
	body, err := json.Marshal(e)
	if err != nil {
		return Event{}, nil, fmt.Errorf("app: event: %w", err)
	}
	return e, body, nil
}

// Emit writes an event into the outbox of the caller's transaction: if the transaction rolls
// back, the event and its deliveries are gone with it.
func (s *Service) Emit(tx Tx, orgID, typ string, data any) (Event, error) {
	e, body, err := NewEvent(orgID, typ, data, s.now())
	if err != nil {
		return Event{}, err
	}
	_, err = tx.InsertEvent(e, body)
	return e, err
}
