package app

import (
	"context"
	"fmt"
	"time"
)

// OutboundEmail is one broadcast email ready to compose, sign and send.
type OutboundEmail struct {
	FromEmail      string
	FromName       string
	To             string
	Subject        string
	Text           string
	HTML           string
	MessageID      string // without angle brackets; stable per recipient ("": a new one on the sender's domain)
	UnsubscribeURL string
	OpenPixelURL   string                     // empty: no open tracking
	ClickURL       func(target string) string // nil: no click tracking
	DKIMDomain     string
	DKIMSelector   string
	DKIMKeyPEM     string
}

// Mailer sends an email (SMTP with DKIM, see app/mail).
type Mailer interface {
	Send(ctx context.Context, e OutboundEmail) error
}

// RecipientLease is how long a claimed recipient stays with its worker; a crashed process's
// claims are taken again after it, so only the messages in flight at a crash can go twice.
const RecipientLease = 2 * time.Minute

// ClaimRecipients leases due recipients for the sender worker (looking on a reader first, so
// an idle sender does not take the writer).
func (s *Service) ClaimRecipients(ctx context.Context, room ClaimRoom) (rs []Recipient, err error) {
	now := s.now()
	if due, err := s.anyDue(ctx, room, func(tx Tx) (bool, error) { return tx.AnyRecipientDue(now) }); !due {
		return nil, err
	}
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		rs, err = tx.ClaimRecipients(now, At(now.Add(RecipientLease)), room)
		return err
	})
	return rs, err
}

// sendPlan is what to do with one recipient.
type sendPlan struct {
	skip       string // skipSuppressed, skipOptedOut or ""
	failure    string
	email      *OutboundEmail
	broadcast  Broadcast
	internalCh string // the contact's internal channel
}

// ProcessRecipient gives a recipient its outcome: skipped (suppressed address, with
// broadcast.suppressed; or contact unsubscribed or blocked), sent, or failed. The email goes
// out between two transactions, never inside one.
func (s *Service) ProcessRecipient(ctx context.Context, r Recipient) error {
	plan, err := s.planRecipient(ctx, r)
	if err != nil {
		return err
	}
	switch {
	case plan.skip != "":
		return s.skipRecipient(ctx, r, plan.skip)
	case plan.failure != "":
		return s.recordSend(ctx, r, nil, plan.failure)
	case plan.email != nil:
		if s.d.Mailer == nil {
			return s.recordSend(ctx, r, nil, "email.smtp_url is not configured: this server cannot send email")
		}
		if err := s.d.Mailer.Send(ctx, *plan.email); err != nil {
			if ctx.Err() != nil {
				return ctx.Err() // shutdown: the lease brings it back
			}
			return s.recordSend(ctx, r, nil, err.Error())
		}
		// The relay has the message: record it even when a shutdown began meanwhile, or the
		// next start would send it again.
		id := "<" + plan.email.MessageID + ">"
		return s.recordSend(context.WithoutCancel(ctx), r, &id, "")
	case r.IntegrationID == "telegram" || r.IntegrationID == "whatsapp":
		return s.sendOnChannel(ctx, r, plan.broadcast)
	}
	return s.sendInternal(ctx, r, plan)
}

func (s *Service) planRecipient(ctx context.Context, r Recipient) (p sendPlan, err error) {
	err = s.d.Store.Read(ctx, func(tx Tx) error {
		if p.broadcast, err = tx.GetBroadcastContent(r.OrgID, r.BroadcastID); err != nil {
			return err
		}
		if p.skip, err = skipReason(tx, r); err != nil || p.skip != "" {
			return err
		}
		switch r.IntegrationID {
		case IntegrationEmail:
			return s.planEmail(tx, r, &p)
		case IntegrationInternal:
			c, err := tx.GetContact(r.OrgID, r.ContactID)
			if err != nil {
				return err
			}
			for _, ch := range c.Channels {
				if ch.Type == IntegrationInternal {
					p.internalCh = ch.ID
				}
			}
		}
		return nil
	})
	return p, err
}

func (s *Service) planEmail(tx Tx, r Recipient, p *sendPlan) error {
	b := p.broadcast
	if b.IdentityID == nil || r.Email == nil {
		p.failure = "no sender identity or address"
		return nil
	}
	id, err := tx.GetIdentity(r.OrgID, *b.IdentityID)
	if IsNotFound(err) {
		p.failure = "the sender identity was deleted"
		return nil
	}
	if err != nil {
		return err
	}
	if id.Status != StatusVerified {
		p.failure = "the sender identity " + id.Email + " is not verified (verify its domain's DNS records)"
		return nil
	}
	d, err := tx.GetDomain(r.OrgID, id.DomainID)
	if err != nil {
		return err
	}
	p.email = s.composeFor(r, b, id, d)
	return nil
}

func (s *Service) composeFor(r Recipient, b Broadcast, id EmailIdentity, d Domain) *OutboundEmail {
	e := &OutboundEmail{FromEmail: id.Email, To: *r.Email, Subject: b.Subject, Text: b.Text, HTML: b.HTML,
		MessageID:      r.ID + "@" + d.Domain,
		UnsubscribeURL: s.d.Links.Unsubscribe(s.d.Tokens.Sign("unsubscribe", r.ID)),
		DKIMDomain:     d.Domain, DKIMSelector: d.Selector, DKIMKeyPEM: d.PrivateKeyPEM}
	if id.Name != nil {
		e.FromName = *id.Name
	}
	if id.OpenTracking {
		e.OpenPixelURL = s.d.Links.TrackOpen(s.d.Tokens.Sign("open", r.ID))
	}
	if id.ClickTracking {
		e.ClickURL = func(target string) string { return s.d.Links.TrackClick(s.d.Tokens.Sign("click", r.ID+"|"+target)) }
	}
	return e
}

// Skip reasons.
const (
	skipSuppressed = "suppressed"
	skipOptedOut   = "opted out"
)

// skipReason applies the rules that keep a recipient from being sent to, the same for every
// integration: the address is on the suppression list, or the contact is unsubscribed,
// blocked or gone. "" means send.
func skipReason(tx Tx, r Recipient) (string, error) {
	if r.Email != nil {
		suppressed, err := tx.IsSuppressed(r.OrgID, *r.Email)
		if err != nil || suppressed {
			return skipSuppressed, err
		}
	}
	optedOut, err := tx.ContactOptedOut(r.OrgID, r.ContactID)
	if err != nil || optedOut {
		return skipOptedOut, err
	}
	return "", nil
}

func (s *Service) skipRecipient(ctx context.Context, r Recipient, reason string) (err error) {
	defer func() { s.countSend(r, "skipped", err) }()
	return s.d.Store.Write(ctx, func(tx Tx) error { return s.skipIn(tx, r, reason) })
}

// skipIn gives a recipient the outcome skipped; a suppressed address fires
// broadcast.suppressed, naming the contact that owns the address now, if any.
func (s *Service) skipIn(tx Tx, r Recipient, reason string) error {
	now := s.now()
	if _, err := tx.SetRecipientFlag(r.ID, "skipped", now, now); err != nil {
		return err
	}
	if reason == skipSuppressed {
		data := map[string]any{"email": r.Email, "message_id": nil, "reason": "suppressed"}
		owner, err := tx.RecipientOwner(r)
		if err != nil {
			return err
		}
		if owner != "" {
			data["contact_id"] = owner
		}
		if _, err := s.Emit(tx, r.OrgID, EventBroadcastSuppressed, data); err != nil {
			return err
		}
	}
	return s.settle(tx, r, nil, nil, now)
}

// skipAtHandOver applies the skip rules to a broadcast whose sending integration is the
// customer's own (custom): the moment it is created is the moment it is handed over, so the
// recipients left SENDING are exactly those the customer's system may send to.
func (s *Service) skipAtHandOver(tx Tx, b Broadcast) error {
	rs, err := tx.SkipCandidates(b.ID)
	if err != nil {
		return err
	}
	for _, r := range rs {
		reason, err := skipReason(tx, r)
		if err == nil && reason != "" {
			err = s.skipIn(tx, r, reason)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// FailRecipient settles a claimed recipient as failed with reason (the sender uses it when
// processing the recipient broke off unexpectedly).
func (s *Service) FailRecipient(ctx context.Context, r Recipient, reason string) error {
	return s.recordSend(ctx, r, nil, reason)
}

// recordSend stores the outcome of a send: sent with its Message-ID, or failed with why.
func (s *Service) recordSend(ctx context.Context, r Recipient, msgID *string, failure string) (err error) {
	outcome := "sent"
	if failure != "" {
		outcome = "failed"
		s.d.Log.Warn("broadcasts: recipient failed", "org", r.OrgID, "broadcast", r.BroadcastID, "recipient", r.ID,
			"integration", r.IntegrationID, "err", failure)
	}
	defer func() { s.countSend(r, outcome, err) }()
	return s.d.Store.Write(ctx, func(tx Tx) error {
		now := s.now()
		flag := "sent"
		var errMsg *string
		if failure != "" {
			flag, errMsg = "failed", &failure
		}
		if _, err := tx.SetRecipientFlag(r.ID, flag, now, now); err != nil {
			return err
		}
		return s.settle(tx, r, msgID, errMsg, now)
	})
}

// sendInternal appends the broadcast to the contact's chat on its internal channel.
func (s *Service) sendInternal(ctx context.Context, r Recipient, p sendPlan) (err error) {
	if p.internalCh == "" {
		return s.recordSend(ctx, r, nil, "the contact has no internal channel")
	}
	defer func() { s.countSend(r, "sent", err) }()
	return s.d.Store.Write(ctx, func(tx Tx) error {
		chatID, err := s.internalChat(tx, r.OrgID, p.internalCh)
		if err != nil {
			return err
		}
		bid := p.broadcast.ID
		text := p.broadcast.Text
		if text == "" {
			text = p.broadcast.HTML
		}
		m, _, err := s.addMessage(tx, r.OrgID, "", chatID, MessageInput{Role: "assistant", Status: "COMPLETED",
			Messages: []Turn{{Role: "assistant", Parts: []Part{{Type: "text", Text: text}}}}, BroadcastID: &bid,
			IsBroadcastMessage: true})
		if err != nil {
			return fmt.Errorf("app: internal broadcast message: %w", err)
		}
		now := s.now()
		if _, err := tx.SetRecipientFlag(r.ID, "sent", now, now); err != nil {
			return err
		}
		return s.settle(tx, r, &m.ID, nil, now)
	})
}

func (s *Service) internalChat(tx Tx, orgID, channelID string) (string, error) {
	id, err := tx.ChatOnChannel(orgID, channelID)
	if err == nil || !IsNotFound(err) {
		return id, err
	}
	now := s.now()
	chat := Chat{ID: NewID("chat"), OrgID: orgID, Model: AutoModel, Visibility: "PRIVATE", Status: "COMPLETED",
		CreatedAt: now, UpdatedAt: now, Tools: []Tool{}}
	if err := s.attachConversation(tx, &chat, ChatInput{ContactChannelID: channelID}); err != nil {
		return "", err
	}
	if err := tx.CreateChat(chat, ChatMember{}); err != nil {
		return "", err
	}
	created, err := tx.GetChat(orgID, chat.ID)
	if err != nil {
		return "", err
	}
	return chat.ID, s.EmitStream(tx, orgID, chat.ID, StreamChatCreated, created)
}
