package mail_test

import (
	"context"
	"testing"

	"wsapi/app"
)

// panicMailer panics on the first message and sends nothing.
type panicMailer struct{}

func (panicMailer) Send(context.Context, app.OutboundEmail) error { panic("mailer bug") }

// TestPanickingSendFailsTheRecipient: a panic while sending to one recipient fails that
// recipient with a plain reason, the sender goes on with the others, and the broadcast
// completes.
func TestPanickingSendFailsTheRecipient(t *testing.T) {
	t.Parallel()
	s := newEmailSetupEdited(t, func(d *app.Deps) { d.Mailer = panicMailer{} })
	ann, bob := s.contact(t, "Ann", "ann@dest.test"), s.contact(t, "Bob", "bob@dest.test")
	b := s.broadcast(t, ann, bob)
	done := waitBroadcast(t, s.e, b.ID, app.BroadcastFailed)
	if done.Counts.Failed != 2 || done.Counts.Processed != 2 {
		t.Fatalf("counts %+v", done.Counts)
	}
	for _, to := range []string{"ann@dest.test", "bob@dest.test"} {
		r := recipientOf(t, s.e, b.ID, to)
		if r["status"] != "PROCESSED" || r["is_failed"] != true ||
			r["error_message"] != "could not send to this recipient: an internal error, reported in the server log" {
			t.Fatalf("recipient %v", r)
		}
	}
	s.e.Do("GET", "/healthz", "", nil).Expect(200)
}
