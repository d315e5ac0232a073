package email

import (
	"context"
	"errors"
	"fmt"

	"wsapi/app"
)

// Connector is the email integration's set-up check (app.Connector): its identity must exist
// and be VERIFIED (its domain's DKIM records published), since every reply is sent from it
// and signed with its domain's key. An integration that polls a mailbox is checked by
// MailboxCheck too, when set (package mailbox logs in).
type Connector struct {
	Service      *app.Service
	MailboxCheck func(ctx context.Context, d app.Deployment) error
}

var _ app.Connector = (*Connector)(nil)

// Verify checks the set-up; its error becomes the integration's FAILED reason.
func (c *Connector) Verify(ctx context.Context, d app.Deployment) error {
	identityID, _ := d.Config["identity_id"].(string)
	id, err := c.Service.GetIdentity(ctx, d.OrgID, identityID)
	if app.IsNotFound(err) {
		return errors.New("the email identity " + identityID + " does not exist")
	}
	if err != nil {
		return err
	}
	if id.Status != app.StatusVerified {
		return fmt.Errorf("the email identity %s is not verified: publish its domain's DKIM records and verify the domain", id.Email)
	}
	if inbound, _ := d.Config["inbound"].(string); inbound == "imap" && c.MailboxCheck != nil {
		return c.MailboxCheck(ctx, d)
	}
	return nil
}
