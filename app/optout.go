package app

// Unsubscribe reasons the service sets itself.
const (
	ReasonManual          = "manual"
	ReasonUnsubscribeLink = "unsubscribe_link"
	ReasonBounce          = "bounce"
	ReasonComplaint       = "complaint"
)

// applyOptOuts changes the opt-out flags, saves the contact and emits what turned on.
func (s *Service) applyOptOuts(tx Tx, c Contact, in ContactPatch) (Contact, error) {
	now := s.now()
	blockedNow, unsubNow := false, false
	if in.Blocked != nil && *in.Blocked != c.Blocked {
		c.Blocked, blockedNow = *in.Blocked, *in.Blocked
		c.BlockedAt = Time{}
		if c.Blocked {
			c.BlockedAt = now
		}
	}
	if in.Unsubscribed != nil && *in.Unsubscribed != c.Unsubscribed {
		c.Unsubscribed, unsubNow = *in.Unsubscribed, *in.Unsubscribed
		c.UnsubscribedAt, c.UnsubscribeReason, c.UnsubscribeFeedback = Time{}, nil, nil
		if c.Unsubscribed {
			reason := ReasonManual
			c.UnsubscribedAt, c.UnsubscribeReason = now, &reason
		}
	}
	if c.Unsubscribed && in.UnsubscribeReason != nil {
		c.UnsubscribeReason = in.UnsubscribeReason
	}
	if c.Unsubscribed && in.UnsubscribeFeedback != nil {
		c.UnsubscribeFeedback = in.UnsubscribeFeedback
	}
	c.UpdatedAt = now
	if err := tx.UpdateContact(c); err != nil {
		return c, err
	}
	if err := s.emitOptOuts(tx, c, blockedNow, unsubNow); err != nil {
		return c, err
	}
	return c, s.EmitStream(tx, c.OrgID, "", StreamContactUpdated, c)
}

func (s *Service) emitOptOuts(tx Tx, c Contact, blocked, unsubscribed bool) error {
	if blocked {
		if _, err := s.Emit(tx, c.OrgID, EventContactBlocked, c); err != nil {
			return err
		}
	}
	if unsubscribed {
		if _, err := s.Emit(tx, c.OrgID, EventContactUnsubscribed, c); err != nil {
			return err
		}
	}
	return nil
}

// UnsubscribeContact opts a contact out for a reason (a link, a bounce, a complaint); it is
// a no-op for a contact already unsubscribed.
func (s *Service) UnsubscribeContact(tx Tx, orgID, id, reason string) (Contact, error) {
	c, err := tx.GetContact(orgID, id)
	if err != nil || c.Unsubscribed {
		return c, err
	}
	yes := true
	return s.applyOptOuts(tx, c, ContactPatch{Unsubscribed: &yes, UnsubscribeReason: &reason})
}
