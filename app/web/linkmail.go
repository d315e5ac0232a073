package web

import (
	"context"
	"fmt"
	"time"

	"wsapi/app"
	"wsapi/app/signin"
)

// linkMailTimeout bounds the relay's answer while the admin's page waits for it.
const linkMailTimeout = 15 * time.Second

// mailLink sends a member their one-time set-password link through the relay when the server
// has a sender of its own (email.from); the page shows the link either way, and says whether
// it went. The answer is "" when it went or no mail was tried, else why it did not.
func (s *Server) mailLink(rq *Request, m app.Member, link, purpose string) (sent bool, failure string) {
	if s.cfg.Mailer == nil || s.cfg.MailFrom == nil {
		return false, ""
	}
	org, err := s.svc.GetOrg(rq.Ctx(), rq.Org())
	if err != nil {
		return false, "the organization could not be read"
	}
	subject, text := linkMail(org.Name, link, purpose)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(rq.Ctx()), linkMailTimeout)
	defer cancel()
	err = s.cfg.Mailer.Send(ctx, app.OutboundEmail{FromEmail: s.cfg.MailFrom.Address, FromName: s.cfg.MailFrom.Name,
		To: m.Email, Subject: subject, Text: text})
	if err != nil {
		s.log.Warn("web: mailing a set-password link failed", "member", m.ID, "purpose", purpose, "error", err)
		return false, "the mail relay refused it or could not be reached"
	}
	return true, ""
}

// linkMail is the subject and text of a member's set-password link.
func linkMail(orgName, link, purpose string) (subject, text string) {
	if purpose == signin.PurposeInvite {
		return fmt.Sprintf("You are invited to %s", orgName), fmt.Sprintf("Hello,\n\nyou are invited to %s. Choose your password here "+
			"(the link works once, for 7 days):\n\n%s\n\nIf you did not expect this, ignore this mail.\n", orgName, link)
	}
	return fmt.Sprintf("Your new password link for %s", orgName), fmt.Sprintf("Hello,\n\nan admin of %s made you a link to set a new "+
		"password (it works once, for one hour; earlier links no longer work):\n\n%s\n\nIf you did not expect this, tell your admin.\n", orgName, link)
}
