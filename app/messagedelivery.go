package app

import (
	"slices"
	"time"
)

// MessageDelivery is how far a message got on its way to the contact (DESIGN.md, "Delivery
// back to the contact").
type MessageDelivery struct {
	Status     string  `json:"status"`
	Error      *string `json:"error"`
	ExternalID *string `json:"external_id"`
	UpdatedAt  Time    `json:"updated_at"`
}

// Delivery statuses of a message besides PENDING and FAILED, which it shares with webhook
// deliveries (deliveries.go).
const (
	DeliverySent      = "SENT"
	DeliveryDelivered = "DELIVERED"
	DeliveryRead      = "READ"
)

// DeliveredIntegrations are the integrations whose replies this server sends itself; a
// `custom` chat's replies go to the customer's bridge as the message.created webhook event.
var DeliveredIntegrations = []string{IntegrationInternal, IntegrationEmail, "telegram", "whatsapp"}

// StreamMessageDelivery is the stream event of a message's delivery changing.
const StreamMessageDelivery = "message.delivery"

// EventMessageCreated is the webhook event of a reply to deliver on a custom chat.
const EventMessageCreated = "message.created"

// QueuedDelivery is a message waiting for the delivery worker.
type QueuedDelivery struct {
	MessageID, OrgID, ChatID, IntegrationID, DeploymentID string
	Attempts                                              int
	NextAttemptAt, CreatedAt                              Time
}

// DeliveryJob is a claimed delivery: the message to send, its chat and integration.
type DeliveryJob struct {
	QueuedDelivery
	Message    Message
	Chat       Chat
	Deployment Deployment
}

// DeliveryQueueTx is the delivery worker's part of a transaction.
type DeliveryQueueTx interface {
	QueueDelivery(d QueuedDelivery) error
	SetMessageDelivery(orgID, messageID string, d MessageDelivery) error
	// ClaimDeliveries leases the due deliveries the room picks (round-robin across
	// organizations, then chats) until leaseUntil.
	ClaimDeliveries(now, leaseUntil Time, room ClaimRoom) ([]QueuedDelivery, error)
	AnyDeliveryQueued(now Time) (bool, error)
	// RetryDelivery sets the next attempt and releases the lease; attempts is the new count.
	RetryDelivery(messageID string, attempts int, next Time) error
	DropDelivery(messageID string) error
}

// DeliveryOutcome is what sending one message came to. Err nil: Status (SENT or DELIVERED)
// with ExternalID. Err set: a retry after the schedule's next delay, unless Permanent or the
// attempts are spent (FAILED). Wait set with Err nil: not sent yet (a rate limit), tried again
// after Wait without using an attempt.
type DeliveryOutcome struct {
	Status     string
	ExternalID string
	Err        error
	Permanent  bool
	Wait       time.Duration
}

// deliverMessage decides, in the message's own transaction, how a member's message or a
// finished assistant message reaches the contact: queued for the delivery worker when the
// chat's integration is one the server delivers, or as the message.created webhook event on
// a custom chat. Anything else (a contact's message, a run still RUNNING, a workspace chat)
// goes nowhere. It sets m.Delivery as stored.
func (s *Service) deliverMessage(tx Tx, orgID, chatID string, m *Message) error {
	if m.Status != "COMPLETED" || (m.Role != "assistant" && m.Role != "admin") || m.Delivery != nil {
		return nil
	}
	c, err := tx.GetChatRow(orgID, chatID)
	if err != nil || c.ContactID == "" {
		return ignoreNotFound(err)
	}
	if c.State.IntegrationID == IntegrationCustom {
		return s.emitReply(tx, c, *m)
	}
	if c.State.AssistantIntegrationID == nil {
		return nil
	}
	d, err := tx.GetDeployment(orgID, "", *c.State.AssistantIntegrationID)
	if IsNotFound(err) || (err == nil && !slices.Contains(DeliveredIntegrations, d.IntegrationID)) {
		return nil
	}
	if err != nil {
		return err
	}
	now := s.now()
	m.Delivery = &MessageDelivery{Status: DeliveryPending, UpdatedAt: now}
	if err := tx.SetMessageDelivery(orgID, m.ID, *m.Delivery); err != nil {
		return err
	}
	return tx.QueueDelivery(QueuedDelivery{MessageID: m.ID, OrgID: orgID, ChatID: chatID, IntegrationID: d.IntegrationID,
		DeploymentID: d.ID, NextAttemptAt: now, CreatedAt: now})
}

// ReplyEvent is the data of message.created: a reply the customer's bridge delivers.
type ReplyEvent struct {
	Message       Message `json:"message"`
	ChatID        string  `json:"chat_id"`
	IntegrationID string  `json:"integration_id"`
	// AssistantIntegrationID is the chat's assistant integration, null when none.
	AssistantIntegrationID *string `json:"assistant_integration_id"`
	ContactID              string  `json:"contact_id"`
}

// emitReply queues message.created for the webhook endpoints subscribed to it. The stream
// already carries every message as its own message.created, so this event goes to webhooks
// only (Emit would write a second stream row of the same type).
func (s *Service) emitReply(tx Tx, c Chat, m Message) error {
	data := ReplyEvent{Message: m, ChatID: c.ID, IntegrationID: c.State.IntegrationID,
		AssistantIntegrationID: c.State.AssistantIntegrationID, ContactID: c.ContactID}
	e, body, err := NewEvent(c.OrgID, EventMessageCreated, data, s.now())
	if err != nil {
		return err
	}
	_, err = tx.InsertEvent(e, body)
	return err
}

// DeliveryChange is the data of message.delivery.
type DeliveryChange struct {
	MessageID string          `json:"message_id"`
	ChatID    string          `json:"chat_id"`
	Delivery  MessageDelivery `json:"delivery"`
}
