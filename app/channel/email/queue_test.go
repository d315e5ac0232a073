package email_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/app/channel/email"
	"wsapi/app/channel/inbound"
	"wsapi/cli"
)

// queued tells whether the inbound queue holds an update due now.
func queued(t *testing.T, e *apitest.Env) bool {
	t.Helper()
	due := false
	err := e.Runtime.Service.Store().Read(context.Background(), func(tx app.Tx) (err error) {
		due, err = tx.(inbound.Tx).AnyUpdateQueued(app.At(e.Clock.Now()))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return due
}

// TestEmailAcceptedMailOutlivesARestart: the listener's 250 means the mail is stored, not
// that it was taken in. With the server's workers stopped, a mail is accepted and waits in
// the spool (no chat yet), and one past 1 MiB in the store's queue; the next process on the
// same files takes both in, threaded and checked as ever (DKIM, SPF and DMARC pass).
func TestEmailAcceptedMailOutlivesARestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := apitest.FilesIn(dir)
	m := newMailEnv(t, files)
	rt := m.e.Runtime
	if err := rt.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	l := &email.Listener{Receiver: rt.Email, Spool: rt.Spool, Config: email.ListenerConfig{Addr: "127.0.0.1:0"}}
	if err := l.Listen(); err != nil {
		t.Fatal(err)
	}
	go l.Serve()
	defer l.Shutdown(context.Background())
	mail := &letter{from: "ann@customer.test", to: helpAddr, subject: "Still there?", body: "Hello after the restart"}
	// Past 1 MiB a mail is queued in the store itself, not copied through the spool.
	big := &letter{from: "bob@customer.test", to: helpAddr, subject: "The long one", body: strings.Repeat("All the details, once more.\n", 40<<10)}
	for _, lt := range []*letter{mail, big} {
		c, err := smtp.Dial(l.Addr())
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SendMail(lt.from, []string{helpAddr}, bytes.NewReader(m.signed(t, lt))); err != nil {
			t.Fatalf("send: %v", err)
		}
		c.Close()
	}
	kept, err := rt.Spool.Take(context.Background(), 10, 1<<30)
	if n := len(m.chats(t)); n != 0 || err != nil || len(kept) != 1 || kept[0].IntegrationID != app.IntegrationEmail || !queued(t, m.e) {
		t.Fatalf("after the 250s: %d chats, kept %+v (%v), queued %v; want none, the small mail in the spool, the big one queued",
			n, kept, err, queued(t, m.e))
	}
	next := apitest.New(t, files, func(c *cli.Config) { c.DNS.Resolver = m.dns.Addr })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := next.Runtime.Inbound.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	m.e = next
	chats := m.chats(t)
	if len(chats) != 2 || queued(t, next) {
		t.Fatalf("after the restart: %d chats, queued %v", len(chats), queued(t, next))
	}
	slices.SortFunc(chats, func(a, b map[string]any) int { return strings.Compare(a["title"].(string), b["title"].(string)) })
	msgs := m.messages(t, chats[0]["id"].(string))
	em := emailMeta(t, msgs[0])
	if em["message_id"] != mail.id || em["dkim"] != "pass" || em["spf"] != "pass" || em["dmarc"] != "pass" {
		t.Fatalf("the queued mail taken in as %v", em)
	}
}

// TestEmailQueuedMailNoRetryCanTake: a mail the listener accepts but the worker can never take
// in (a report without From that is no DSN) leaves the queue at once, and the mails after it
// are taken in.
func TestEmailQueuedMailNoRetryCanTake(t *testing.T) {
	t.Parallel()
	m := newMailEnv(t)
	report := &letter{to: helpAddr, subject: "Report", raw: "Content-Type: multipart/report; report-type=delivery-status; boundary=\"r\"\n\n" +
		"--r\nContent-Type: text/plain\n\nNothing failed.\n--r--\n"}
	raw := bytes.Replace(report.compose(), []byte("From: \r\n"), nil, 1)
	m.mustSend(t, "", []string{helpAddr}, raw)
	if queued(t, m.e) || len(m.chats(t)) != 0 {
		t.Fatalf("the unreadable mail: queued %v, %d chats", queued(t, m.e), len(m.chats(t)))
	}
	m.mustSend(t, "ann@customer.test", []string{helpAddr}, m.signed(t, &letter{from: "ann@customer.test", to: helpAddr,
		subject: "After it", body: "Hello"}))
	if n := len(m.chats(t)); n != 1 {
		t.Fatalf("%d chats after the next mail", n)
	}
}

// TestEmailRepliesKeepTheirOrder: each of many senders sends a mail and, on the same
// connection right after its 250, a reply to it; the worker takes several mails at once, and
// still every reply joins its first mail's chat (order.go), one chat per sender.
func TestEmailRepliesKeepTheirOrder(t *testing.T) {
	t.Parallel()
	m := newMailEnv(t, func(c *cli.Config) {
		c.Email.Inbound.MaxConnectionsPerIP, c.Email.Inbound.MessagesPerMinutePerIP = 0, 0
	})
	const senders = 16
	var wg sync.WaitGroup
	errs := make(chan error, senders)
	for i := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			from := fmt.Sprintf("s%02d@customer.test", i)
			first := &letter{from: from, to: helpAddr, subject: "Order", body: "First", id: fmt.Sprintf("first.%d@customer.test", i)}
			reply := &letter{from: from, to: helpAddr, subject: "Re: Order", body: "Second",
				headers: []string{"In-Reply-To: " + bracketed(first.id), "References: " + bracketed(first.id)}}
			c, err := smtp.Dial(m.smtpAddr())
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			for _, l := range []*letter{first, reply} {
				if err := c.SendMail(from, []string{helpAddr}, bytes.NewReader(l.compose())); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("send: %v", err)
	}
	m.settle(t)
	chats := m.chats(t)
	if len(chats) != senders {
		t.Fatalf("%d chats for %d senders", len(chats), senders)
	}
	for _, c := range chats {
		if n := len(m.messages(t, c["id"].(string))); n != 2 {
			t.Fatalf("chat %v holds %d messages, want the mail and its reply", c["id"], n)
		}
	}
}
