package webhook_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// panicSender fails every attempt by panicking, as a bug in signing or the client would.
type panicSender struct{ calls atomic.Int32 }

func (p *panicSender) Send(context.Context, app.Job) app.Attempt {
	p.calls.Add(1)
	panic("sender bug")
}

// TestPanickingAttemptIsAFailedAttempt: a panic while sending fails that attempt with a plain
// reason (the last attempt here, so the delivery ends FAILED), the server keeps answering,
// and the next delivery is attempted too.
func TestPanickingAttemptIsAFailedAttempt(t *testing.T) {
	sender := &panicSender{}
	e := apitest.NewPrepared(t, func(rt *cli.Runtime) { rt.Dispatcher.Sender = sender },
		func(c *cli.Config) { c.Webhooks.RetrySchedule = nil }) // one attempt in all
	rcv := apitest.NewReceiver(t)
	w := e.Webhook(e.AdminKey, "c", rcv.URL, app.EventContactBlocked)
	e.Emit(e.Org.ID, app.EventContactBlocked, map[string]string{"id": "ct_1"})
	d := settled(e, w.ID, 1)
	a := d.Attempts[0]
	if d.Status != app.DeliveryFailed || a.Status != app.AttemptFailed || a.Error == nil ||
		*a.Error != "could not send this delivery: an internal error, reported in the server log" {
		t.Fatalf("delivery %+v, attempt %+v", d, a)
	}
	e.Do("GET", "/healthz", "", nil).Expect(200)
	e.Emit(e.Org.ID, app.EventContactBlocked, map[string]string{"id": "ct_2"})
	e.Eventually(5*time.Second, "the second delivery is attempted", func() bool { return sender.calls.Load() == 2 })
}
