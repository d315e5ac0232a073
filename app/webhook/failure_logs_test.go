package webhook_test

import (
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// TestFailedDeliveryAttemptsAreLogged: an endpoint answering 500 gets a WARN line per failed
// attempt naming the organization, endpoint, delivery and status, never the URL; a refused
// connection's line carries its error.
func TestFailedDeliveryAttemptsAreLogged(t *testing.T) {
	t.Parallel()
	var log apitest.LogBuffer
	e := apitest.NewLogged(t, &log, nil, func(c *cli.Config) { c.Webhooks.RetrySchedule = nil })
	rcv := apitest.NewReceiver(t)
	rcv.Status(500)
	w := e.Webhook(e.AdminKey, "c", rcv.URL+"/hook?token=s3cret", app.EventContactBlocked)
	e.Emit(e.Org.ID, app.EventContactBlocked, map[string]int{"n": 1})
	rcv.Wait(t, 1, 10*time.Second)
	l := log.Line(5*time.Second, "level=WARN", `msg="webhooks: delivery attempt failed"`, "org="+e.Org.ID, "webhook="+w.ID,
		"delivery=", "event="+app.EventContactBlocked, "attempt=1", "status=500")
	if l == "" {
		t.Fatalf("no WARN line for the failed attempt:\n%s", log.String())
	}
	// A connection that fails: the client's error, which quotes the URL, is logged without it.
	rcv.Close()
	e.Emit(e.Org.ID, app.EventContactBlocked, map[string]int{"n": 2})
	if l := log.Line(10*time.Second, "level=WARN", `msg="webhooks: delivery attempt failed"`, "webhook="+w.ID, "<endpoint url>"); l == "" {
		t.Fatalf("no WARN line for the refused connection:\n%s", log.String())
	}
	if log.Line(0, "s3cret") != "" {
		t.Errorf("the log shows the endpoint's URL:\n%s", log.String())
	}
}
