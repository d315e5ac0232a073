package app

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
)

// RecipientFlags are the independent outcomes of a recipient, each with a timestamp.
var RecipientFlags = []string{"skipped", "failed", "bounced", "sent", "delivered", "complained", "unsubscribed", "opened", "played"}

// Recipient statuses.
const (
	RecipientSending   = "SENDING"
	RecipientProcessed = "PROCESSED"
)

// Recipient is one contact address of a broadcast (the spec's Broadcast recipient).
type Recipient struct {
	ID                string
	BroadcastID       string
	BroadcastName     string
	IntegrationID     string
	UserID            *string
	Name              *string
	Username          *string
	Phone             *string
	Email             *string
	Status            string
	Flags             map[string]Time // flag -> when it was set; absent: not set
	ErrorMessage      *string
	ExternalMessageID *string
	ClickCount        int
	LastClickedAt     Time
	CreatedAt         Time
	UpdatedAt         Time
	Contact           *Contact
	OrgID             string
	ContactID         string
}

// MarshalJSON writes every flag and its timestamp, null when unset.
func (r Recipient) MarshalJSON() ([]byte, error) {
	m := map[string]any{
		"id": r.ID, "broadcast_id": r.BroadcastID, "broadcast_name": r.BroadcastName, "integration_id": r.IntegrationID,
		"user_id": r.UserID, "name": r.Name, "username": r.Username, "phone": r.Phone, "email": r.Email,
		"status": r.Status, "error_message": r.ErrorMessage, "external_message_id": r.ExternalMessageID,
		"click_count": r.ClickCount, "last_clicked_at": r.LastClickedAt, "created_at": r.CreatedAt, "updated_at": r.UpdatedAt,
	}
	for _, f := range RecipientFlags {
		if at, ok := r.Flags[f]; ok {
			m["is_"+f], m["is_"+f+"_at"] = true, at
		} else {
			m["is_"+f], m["is_"+f+"_at"] = nil, nil
		}
	}
	if r.Contact != nil {
		m["contact"] = r.Contact
	}
	return json.Marshal(m)
}

// RecipientFilter is every query parameter of GET /broadcasts/recipients.
type RecipientFilter struct {
	BroadcastID   string
	Status        string
	Flags         map[string]bool
	IntegrationID string
	ContactID     string
	UserID        string
	Username      string
	Email         string
	SortField     string
	SortDesc      bool
}

// RecipientCursor is the (sort value, id) of the last recipient of a page.
type RecipientCursor struct {
	Value string `json:"v"`
	ID    string `json:"id"`
}

// RecipientTx is the recipients part of a transaction.
type RecipientTx interface {
	GetRecipient(orgID, id string) (Recipient, error)
	// FindRecipient reads a recipient of any organization (signed links carry only its id).
	FindRecipient(id string) (Recipient, error)
	ListRecipients(orgID string, f RecipientFilter, after *RecipientCursor, offset, limit int) ([]Recipient, int, error)
	// SetRecipientFlag sets a flag once, at the time the event happened, and updated_at to
	// now; it answers false when the flag was already set.
	SetRecipientFlag(id, flag string, at, now Time) (bool, error)
	// FinishRecipient marks a recipient PROCESSED with its message id or error.
	FinishRecipient(id string, externalID, errMsg *string, now Time) error
	RecordClick(id string, now Time) error
	// RecipientOfMessage finds the recipient whose broadcast message (on a messaging app) is
	// messageID.
	RecipientOfMessage(orgID, broadcastID, messageID string) (Recipient, error)
	// ClaimRecipients leases SENDING email and internal recipients of SENDING broadcasts, as
	// many as room allows and picked as room.Pick does (queues are broadcasts).
	ClaimRecipients(now, leaseUntil Time, room ClaimRoom) ([]Recipient, error)
	// AnyRecipientDue tells, cheaply and on a reader, whether a claim may find work.
	AnyRecipientDue(now Time) (bool, error)
	// ContactOptedOut tells whether a contact is unsubscribed or blocked; a contact that is
	// gone counts as opted out. The sender asks once per recipient.
	ContactOptedOut(orgID, contactID string) (bool, error)
	// RecipientOwner answers the contact that owns the recipient's address now ("" when
	// none): its own contact while it exists, else one with a channel of that address.
	RecipientOwner(r Recipient) (string, error)
	// SkipCandidates reads the SENDING recipients of a broadcast that skipReason may skip.
	SkipCandidates(broadcastID string) ([]Recipient, error)
	// RecipientProgress tells whether any of a broadcast's recipients is still SENDING
	// (pending > 0, not necessarily their number); when none is, failed and total count the
	// recipients that failed and all of them.
	RecipientProgress(broadcastID string) (pending, failed, total int, err error)
}

// ParseRecipientFilter validates the query of GET /broadcasts/recipients.
func ParseRecipientFilter(get func(string) string) (RecipientFilter, error) {
	f := RecipientFilter{BroadcastID: get("broadcast_id"), Status: get("status"), IntegrationID: get("integration_id"),
		ContactID: get("contact_id"), UserID: get("user_id"), Username: get("username"), Email: get("email"),
		SortField: get("sort_field"), Flags: map[string]bool{}}
	p := Problems{}
	if f.Status != "" && !slices.Contains([]string{"ALL", RecipientSending, RecipientProcessed}, f.Status) {
		p.Add("status", "must be ALL, SENDING or PROCESSED")
	}
	if f.IntegrationID != "" && !ValidIntegration(f.IntegrationID) {
		p.Add("integration_id", "must be one of "+strings.Join(Integrations, ", "))
	}
	for _, flag := range RecipientFlags {
		switch v := get("is_" + flag); v {
		case "":
		case "true", "false":
			f.Flags[flag] = v == "true"
		default:
			p.Add("is_"+flag, "must be true or false")
		}
	}
	if f.SortField == "" {
		f.SortField = "created_at"
	}
	if !slices.Contains([]string{"created_at", "updated_at"}, f.SortField) {
		p.Add("sort_field", "must be created_at or updated_at")
	}
	switch get("sort_direction") {
	case "", "asc":
	case "desc":
		f.SortDesc = true
	default:
		p.Add("sort_direction", "must be asc or desc")
	}
	return f, p.Err()
}

// ListRecipients lists recipients by page or by cursor.
func (s *Service) ListRecipients(ctx context.Context, orgID string, f RecipientFilter, next string, pg Page) (l List[Recipient], err error) {
	scope := listScope("recipients", orgID, f)
	after, err := parseCursor[RecipientCursor](next, scope)
	if err != nil {
		return l, err
	}
	err = s.d.Store.Read(ctx, func(tx Tx) error {
		l.Items, l.Total, err = tx.ListRecipients(orgID, f, after, windowOffset(after, pg), pg.Take+1)
		return err
	})
	if err == nil {
		trimPage(&l, pg.Take, scope, func(r Recipient) RecipientCursor {
			v := r.CreatedAt
			if f.SortField == "updated_at" {
				v = r.UpdatedAt
			}
			return RecipientCursor{Value: v.String(), ID: r.ID}
		})
	}
	return l, err
}

// RecipientEventInput is what a sending integration reports for one recipient.
type RecipientEventInput struct {
	Type      string `json:"type"`
	Reason    string `json:"reason"`
	MessageID string `json:"message_id"`
	At        Time   `json:"at"`
}

// RecordRecipientEvent sets the event's flag and timestamp once (a repeat changes nothing).
// bounced and complained suppress the address, unsubscribe the contact and fire their
// events; unsubscribed unsubscribes the contact; failed keeps the reason as error_message.
func (s *Service) RecordRecipientEvent(ctx context.Context, orgID, id string, in RecipientEventInput) (r Recipient, err error) {
	p := Problems{}
	if !slices.Contains([]string{"sent", "delivered", "bounced", "complained", "opened", "played", "failed", "unsubscribed"}, in.Type) {
		p.Add("type", "must be sent, delivered, bounced, complained, opened, played, failed or unsubscribed")
	}
	if CharCount(in.Reason) > 1000 {
		p.Add("reason", "must be at most 1000 characters")
	}
	if CharCount(in.MessageID) > 998 {
		p.Add("message_id", "must be at most 998 characters (the longest header line)")
	}
	if err := p.Err(); err != nil {
		return r, err
	}
	at := in.At
	if at.IsZero() {
		at = s.now()
	}
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if r, err = tx.GetRecipient(orgID, id); err != nil {
			return err
		}
		fresh, err := tx.SetRecipientFlag(r.ID, in.Type, at, s.now())
		if err != nil || !fresh {
			return err
		}
		if r.ContactID, err = tx.RecipientOwner(r); err != nil {
			return err
		}
		if err := s.applyRecipientEvent(tx, r, in); err != nil {
			return err
		}
		r, err = tx.GetRecipient(orgID, id)
		return err
	})
	return r, err
}

func (s *Service) applyRecipientEvent(tx Tx, r Recipient, in RecipientEventInput) error {
	now := s.now()
	msgID := r.ExternalMessageID
	if in.MessageID != "" {
		msgID = &in.MessageID
	}
	switch in.Type {
	case "sent", "delivered", "opened", "played":
		return s.settle(tx, r, msgID, nil, now)
	case "failed":
		reason := in.Reason
		if reason == "" {
			reason = "reported failed by the sending integration"
		}
		return s.settle(tx, r, msgID, &reason, now)
	case "unsubscribed": // the message reached the person: an outcome as much as opened
		if err := s.unsubscribeRecipient(tx, r, ReasonManual); err != nil {
			return err
		}
		return s.settle(tx, r, msgID, nil, now)
	}
	return s.bounceOrComplaint(tx, r, in, msgID, now)
}

// settle marks the recipient PROCESSED (once it has an outcome) and completes the broadcast.
func (s *Service) settle(tx Tx, r Recipient, msgID, errMsg *string, now Time) error {
	if r.Status == RecipientProcessed && errMsg == nil {
		return nil
	}
	if err := tx.FinishRecipient(r.ID, msgID, errMsg, now); err != nil {
		return err
	}
	return s.completeBroadcast(tx, r.OrgID, r.BroadcastID, now)
}

func (s *Service) bounceOrComplaint(tx Tx, r Recipient, in RecipientEventInput, msgID *string, now Time) error {
	reason, event := ReasonBounce, EventBroadcastBounced
	if in.Type == "complained" {
		reason, event = ReasonComplaint, EventBroadcastComplained
	}
	data := map[string]any{"email": r.Email, "message_id": msgID, "reason": in.Reason}
	if r.Email != nil {
		if _, err := tx.AddSuppression(newSuppression(r.OrgID, *r.Email, reason, now)); err != nil {
			return err
		}
	}
	if r.ContactID != "" {
		data["contact_id"] = r.ContactID
		if err := s.unsubscribeRecipient(tx, r, reason); err != nil {
			return err
		}
	}
	if event == EventBroadcastBounced {
		data["broadcast_id"] = r.BroadcastID
	}
	if _, err := s.Emit(tx, r.OrgID, event, data); err != nil {
		return err
	}
	return s.settle(tx, r, msgID, nil, now)
}

// unsubscribeRecipient opts the recipient's contact out and flags the recipient. r.ContactID
// is the address's owner now (RecipientOwner), not necessarily the contact it was sent to.
func (s *Service) unsubscribeRecipient(tx Tx, r Recipient, reason string) error {
	now := s.now()
	if _, err := tx.SetRecipientFlag(r.ID, "unsubscribed", now, now); err != nil {
		return err
	}
	if r.ContactID == "" {
		return nil
	}
	_, err := s.UnsubscribeContact(tx, r.OrgID, r.ContactID, reason)
	if IsNotFound(err) {
		return nil // the contact was deleted since
	}
	return err
}

// completeBroadcast ends a broadcast once no recipient is SENDING: FAILED (with its event)
// when every recipient failed, else SENT.
func (s *Service) completeBroadcast(tx Tx, orgID, id string, now Time) error {
	pending, failed, total, err := tx.RecipientProgress(id)
	if err != nil || pending > 0 {
		return err
	}
	b, err := tx.GetBroadcast(orgID, id)
	if err != nil || b.Status != BroadcastSending {
		return err
	}
	if total > 0 && failed == total {
		return s.failBroadcast(tx, orgID, id, now)
	}
	return tx.SetBroadcastStatus(orgID, id, BroadcastSent, now)
}

// UnsubscribeByToken handles an unsubscribe link: the recipient's contact opts out with
// reason unsubscribe_link. Repeats are harmless.
func (s *Service) UnsubscribeByToken(ctx context.Context, token string) error {
	id, ok := s.d.Tokens.Verify("unsubscribe", token)
	if !ok {
		return NotFound("link")
	}
	return s.d.Store.Write(ctx, func(tx Tx) error {
		r, err := tx.FindRecipient(id)
		if err != nil {
			return err
		}
		if r.ContactID, err = tx.RecipientOwner(r); err != nil {
			return err
		}
		return s.unsubscribeRecipient(tx, r, ReasonUnsubscribeLink)
	})
}

// CheckUnsubscribeToken tells whether an unsubscribe link names a recipient, changing
// nothing: the page behind GET only asks for confirmation, because mail scanners fetch links.
func (s *Service) CheckUnsubscribeToken(ctx context.Context, token string) error {
	id, ok := s.d.Tokens.Verify("unsubscribe", token)
	if !ok {
		return NotFound("link")
	}
	return s.d.Store.Read(ctx, func(tx Tx) error {
		_, err := tx.FindRecipient(id)
		return err
	})
}

// TrackOpen records an open from the tracking pixel.
func (s *Service) TrackOpen(ctx context.Context, token string) error {
	id, ok := s.d.Tokens.Verify("open", token)
	if !ok {
		return NotFound("link")
	}
	return s.d.Store.Write(ctx, func(tx Tx) error {
		now := s.now()
		_, err := tx.SetRecipientFlag(id, "opened", now, now)
		return err
	})
}

// TrackClick records a click and answers where to send the reader.
func (s *Service) TrackClick(ctx context.Context, token string) (string, error) {
	payload, ok := s.d.Tokens.Verify("click", token)
	id, target, found := strings.Cut(payload, "|")
	if !ok || !found {
		return "", NotFound("link")
	}
	err := s.d.Store.Write(ctx, func(tx Tx) error { return tx.RecordClick(id, s.now()) })
	return target, err
}

// TokenSigner signs the payloads of links mailed out (unsubscribe, tracking).
type TokenSigner interface {
	Sign(purpose, payload string) string
	Verify(purpose, token string) (string, bool)
}
