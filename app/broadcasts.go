package app

import (
	"context"
	"slices"
	"strings"
)

// Broadcast statuses.
const (
	BroadcastSending = "SENDING"
	BroadcastSent    = "SENT"
	BroadcastFailed  = "FAILED"
)

// BroadcastIntegrations are the integrations a broadcast can go out on.
var BroadcastIntegrations = []string{IntegrationEmail, IntegrationInternal, IntegrationCustom, "telegram", "whatsapp"}

// BroadcastCounts sums the recipients' outcomes.
type BroadcastCounts struct {
	Recipients   int `json:"recipients"`
	Processed    int `json:"processed"`
	Sent         int `json:"sent"`
	Delivered    int `json:"delivered"`
	Failed       int `json:"failed"`
	Skipped      int `json:"skipped"`
	Bounced      int `json:"bounced"`
	Complained   int `json:"complained"`
	Opened       int `json:"opened"`
	Unsubscribed int `json:"unsubscribed"`
}

// Broadcast is a campaign to the contacts of segments and explicit contacts.
type Broadcast struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	IntegrationID string   `json:"integration_id"`
	IdentityID    *string  `json:"identity_id"`
	Subject       string   `json:"subject"`
	Text          string   `json:"text"`
	HTML          string   `json:"html"`
	SegmentIDs    []string `json:"segment_ids"`
	ContactIDs    []string `json:"contact_ids"`
	Status        string   `json:"status"`
	// Error says why a FAILED broadcast failed (null otherwise). It is derived from the
	// status and counts when the broadcast is read (explain), not stored.
	Error  *string         `json:"error"`
	Counts BroadcastCounts `json:"counts"`
	// AssistantIntegrationID and Template: a broadcast on a messaging app goes out through
	// that integration, and on WhatsApp as that template (channelbroadcast.go).
	AssistantIntegrationID *string       `json:"assistant_integration_id"`
	Template               *TemplatePart `json:"template"`
	CreatedAt              Time          `json:"created_at"`
	UpdatedAt              Time          `json:"updated_at"`
	OrgID                  string        `json:"-"`
}

// BroadcastTx is the broadcasts part of a transaction.
type BroadcastTx interface {
	CreateBroadcast(b Broadcast) error
	GetBroadcast(orgID, id string) (Broadcast, error)
	// GetBroadcastContent reads a broadcast without its counts (zero).
	GetBroadcastContent(orgID, id string) (Broadcast, error)
	SetBroadcastStatus(orgID, id, status string, now Time) error
	ListBroadcasts(orgID string, p Page) ([]Broadcast, int, error)
	// CreateRecipients makes one recipient per target contact that has a channel of the
	// broadcast's integration and answers how many.
	CreateRecipients(b Broadcast, now Time) (int, error)
}

// BroadcastInput creates a broadcast.
type BroadcastInput struct {
	Name          string   `json:"name"`
	IntegrationID string   `json:"integration_id"`
	IdentityID    string   `json:"identity_id"`
	Subject       string   `json:"subject"`
	Text          string   `json:"text"`
	HTML          string   `json:"html"`
	SegmentIDs    []string `json:"segment_ids"`
	ContactIDs    []string `json:"contact_ids"`
	// AssistantIntegrationID and Template are for telegram and whatsapp broadcasts.
	AssistantIntegrationID string        `json:"assistant_integration_id"`
	Template               *TemplatePart `json:"template"`
}

func validateBroadcast(in BroadcastInput) error {
	p := Problems{}
	validateName(p, "name", in.Name, 255)
	if !slices.Contains(BroadcastIntegrations, in.IntegrationID) {
		p.Add("integration_id", "must be one of "+strings.Join(BroadcastIntegrations, ", "))
	}
	// 998 characters is the longest header line (RFC 5322); the bound holds for every
	// integration, since a custom one hands the subject to the customer's own mailer.
	if CharCount(in.Subject) > 998 {
		p.Add("subject", "must be at most 998 characters")
	}
	if in.IntegrationID == IntegrationEmail {
		if in.IdentityID == "" {
			p.Add("identity_id", "is required for an email broadcast")
		}
		if Blank(in.Subject) {
			p.Add("subject", "must not be blank for an email broadcast")
		}
		headerSafeProblem(p, "subject", in.Subject)
	}
	if Blank(in.Text) && Blank(in.HTML) && in.Template == nil {
		p.Add("text", "text or html is required")
	}
	validateChannelBroadcast(p, in)
	if len(in.SegmentIDs)+len(in.ContactIDs) == 0 {
		p.Add("segment_ids", "name at least one segment or contact")
	}
	if len(in.SegmentIDs) > 100 {
		p.Add("segment_ids", "must hold at most 100 items")
	}
	if len(in.ContactIDs) > 10000 {
		p.Add("contact_ids", "must hold at most 10000 items")
	}
	return p.Err()
}

// CreateBroadcast records a broadcast and its recipients; the sender worker takes it from
// there. Recipients are the target contacts with a channel of the integration (for email: an
// email channel, else any channel carrying an address).
func (s *Service) CreateBroadcast(ctx context.Context, orgID string, in BroadcastInput) (b Broadcast, err error) {
	if err := validateBroadcast(in); err != nil {
		return b, err
	}
	now := s.now()
	b = Broadcast{ID: NewID("bc"), OrgID: orgID, Name: strings.TrimSpace(in.Name), IntegrationID: in.IntegrationID,
		Subject: in.Subject, Text: in.Text, HTML: in.HTML, SegmentIDs: orEmpty(in.SegmentIDs), ContactIDs: orEmpty(in.ContactIDs),
		Status: BroadcastSending, CreatedAt: now, UpdatedAt: now}
	if in.IdentityID != "" {
		b.IdentityID = &in.IdentityID
	}
	if in.AssistantIntegrationID != "" {
		b.AssistantIntegrationID, b.Template = &in.AssistantIntegrationID, in.Template
	}
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if err := s.checkBroadcastRefs(tx, b); err != nil {
			return err
		}
		if err := tx.CreateBroadcast(b); err != nil {
			return err
		}
		n, err := tx.CreateRecipients(b, now)
		if err != nil {
			return err
		}
		if n == 0 { // nobody to send to: it fails as a whole, and says so
			if err := s.failBroadcast(tx, orgID, b.ID, now); err != nil {
				return err
			}
		} else if b.IntegrationID == IntegrationCustom {
			if err := s.skipAtHandOver(tx, b); err != nil {
				return err
			}
		}
		b, err = tx.GetBroadcast(orgID, b.ID)
		b.explain()
		return err
	})
	return b, err
}

// failBroadcast marks a broadcast FAILED and emits broadcast.failed with it.
func (s *Service) failBroadcast(tx Tx, orgID, id string, now Time) error {
	if err := tx.SetBroadcastStatus(orgID, id, BroadcastFailed, now); err != nil {
		return err
	}
	b, err := tx.GetBroadcast(orgID, id)
	if err != nil {
		return err
	}
	b.explain()
	_, err = s.Emit(tx, orgID, EventBroadcastFailed, b)
	return err
}

// explain fills Error of a FAILED broadcast: with no recipient at all, no target contact
// had a channel of its integration (so nothing was sent, rather than a SENT with zero);
// otherwise every recipient failed, each saying why in its error_message.
func (b *Broadcast) explain() {
	if b.Status != BroadcastFailed {
		b.Error = nil
		return
	}
	why := "every recipient failed: see the recipients' error_message"
	if b.Counts.Recipients == 0 {
		why = "no recipient: none of the target contacts has a channel of the " + b.IntegrationID + " integration"
	}
	b.Error = &why
}

func (s *Service) checkBroadcastRefs(tx Tx, b Broadcast) error {
	if b.IdentityID != nil {
		if _, err := tx.GetIdentity(b.OrgID, *b.IdentityID); err != nil {
			return err
		}
	}
	if err := checkBroadcastDeployment(tx, b); err != nil {
		return err
	}
	if err := checkSegments(tx, b.OrgID, b.SegmentIDs, "segment_ids"); err != nil {
		return err
	}
	missing, err := tx.MissingContacts(b.OrgID, b.ContactIDs)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return NotFound("contact " + missing[0])
	}
	return nil
}

func orEmpty(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// GetBroadcast reads a broadcast with its counts.
func (s *Service) GetBroadcast(ctx context.Context, orgID, id string) (Broadcast, error) {
	return readOne(ctx, s.d.Store, func(tx Tx) (b Broadcast, err error) {
		b, err = tx.GetBroadcast(orgID, id)
		b.explain()
		return b, err
	})
}

// ListBroadcasts lists broadcasts, newest first.
func (s *Service) ListBroadcasts(ctx context.Context, orgID string, pg Page) (List[Broadcast], error) {
	return readPage(ctx, s.d.Store, func(tx Tx) ([]Broadcast, int, error) {
		bs, n, err := tx.ListBroadcasts(orgID, pg)
		for i := range bs {
			bs[i].explain()
		}
		return bs, n, err
	})
}
