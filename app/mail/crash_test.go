package mail_test

import (
	"context"
	"database/sql"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

const crashWorkers = 4

var messageIDHeader = regexp.MustCompile(`(?mi)^Message-ID:\s*(<[^>\r\n]+>)`)

// messageIDs counts the Message-IDs the sink received.
func messageIDs(t *testing.T, mails []apitest.Mail) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, m := range mails {
		id := messageIDHeader.FindSubmatch(m.Data)
		if id == nil {
			t.Fatalf("message without Message-ID: %s", m.Data)
		}
		out[string(id[1])]++
	}
	return out
}

// slowSink is an SMTP sink that takes a while over each recipient.
func slowSink(t *testing.T) *apitest.SMTPSink {
	sink := apitest.NewSMTPSink(t)
	sink.Reject = func(string) bool { time.Sleep(20 * time.Millisecond); return false }
	return sink
}

// crashFiles are what a crashed process and its restart share: the files in dir, a DNS
// server and a slow relay; configure points an environment at them.
type crashFiles struct {
	dir       string
	dnsSrv    *apitest.DNSServer
	sink      *apitest.SMTPSink
	configure func(*cli.Config)
}

func newCrashFiles(t *testing.T) crashFiles {
	f := crashFiles{dir: t.TempDir(), dnsSrv: apitest.NewDNSServer(t), sink: slowSink(t)}
	f.configure = crashConfig(f.dir, f.dnsSrv, f.sink)
	return f
}

// sendBroadcast starts a harness on the files and a broadcast to n new contacts through its
// API, and returns once started messages have reached the relay.
func (f crashFiles) sendBroadcast(t *testing.T, name string, n, started int) (*apitest.Env, app.Broadcast) {
	t.Helper()
	a := apitest.New(t, f.configure)
	id, contacts := prepare(t, a.Runtime.Service, a.Org.ID, f.dnsSrv, n)
	var b app.Broadcast
	a.Do("POST", "/orgs/c/broadcasts", a.AdminKey, map[string]any{"name": name, "integration_id": "email", "identity_id": id.ID,
		"subject": "S", "text": "T", "contact_ids": contacts}).Expect(201).JSON(&b)
	f.sink.Wait(t, started, 20*time.Second)
	return a, b
}

// crashConfig points an environment at shared files, a DNS server and a sink.
func crashConfig(dir string, dnsSrv *apitest.DNSServer, sink *apitest.SMTPSink) func(*cli.Config) {
	return func(c *cli.Config) {
		apitest.FilesIn(dir)(c)
		c.DNS.Resolver = dnsSrv.Addr
		c.Email.SMTPURL = sink.URL()
		c.Email.Workers = crashWorkers
		c.HTTP.RateLimitPerMinute = 100000
	}
}

// prepare makes a verified identity and n contacts through the service; it answers the
// identity and the contacts' ids.
func prepare(t *testing.T, svc *app.Service, orgID string, dnsSrv *apitest.DNSServer, n int) (app.EmailIdentity, []string) {
	t.Helper()
	ctx := context.Background()
	d, err := svc.CreateDomain(ctx, orgID, app.DomainInput{Domain: "mail.example.test"})
	if err != nil {
		t.Fatal(err)
	}
	publish(dnsSrv, d)
	if d, err = svc.VerifyDomain(ctx, orgID, d.ID); err != nil || d.DKIMStatus != app.StatusVerified {
		t.Fatalf("verify: %v %+v", err, d)
	}
	id, err := svc.CreateIdentity(ctx, orgID, app.IdentityInput{Email: "news@mail.example.test"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range n {
		c, err := svc.CreateContact(ctx, orgID, app.ContactInput{Name: fmt.Sprintf("C%02d", i),
			Channels: []app.ChannelInput{{ChannelProfile: app.ChannelProfile{Type: "email", Email: fmt.Sprintf("c%02d@dest.test", i)}}}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	return id, ids
}

// leased answers the recipients still SENDING under a lease, read from the file as the next
// process finds it.
func leased(t *testing.T, path string) map[string]bool {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT id FROM broadcast_recipients WHERE status = 'SENDING' AND lease_until IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		rows.Scan(&id)
		out["<"+id+"@mail.example.test>"] = true
	}
	return out
}

// restartAndCheck starts a second process on the files, lets the leases expire, and checks
// that every recipient was reached with duplicates only among the claimed ones.
func restartAndCheck(t *testing.T, cfg func(*cli.Config), sink *apitest.SMTPSink, broadcastID string, claimed map[string]bool, n int) int {
	t.Helper()
	before := messageIDs(t, sink.Mails())
	e := apitest.New(t, cfg)
	// Everything not claimed goes at once; the claimed ones wait for their lease.
	sink.Wait(t, len(sink.Mails())+n-len(before)-len(claimed)+countIn(before, claimed), 20*time.Second)
	// ... and are recorded before the clock moves (else their own leases would run out).
	e.Eventually(20*time.Second, "unclaimed recipients processed", func() bool {
		var b app.Broadcast
		e.Do("GET", "/orgs/c/broadcasts/"+broadcastID, e.AdminKey, nil).Expect(200).JSON(&b)
		return b.Counts.Processed == n-len(claimed)
	})
	e.WaitIdle()
	for id := range claimed {
		if messageIDs(t, sink.Mails())[id] != before[id] {
			t.Fatalf("%s sent again before its lease ran out", id)
		}
	}
	e.Clock.Advance(app.RecipientLease + time.Second)
	b := waitBroadcast(t, e, broadcastID, app.BroadcastSent)
	if b.Counts.Sent != n || b.Counts.Processed != n || b.Counts.Failed != 0 {
		t.Fatalf("counts %+v", b.Counts)
	}
	got := messageIDs(t, sink.Mails())
	dups := 0
	for _, r := range recipients(t, e, "broadcast_id="+broadcastID) {
		id := str(r, "external_message_id")
		if got[id] == 0 {
			t.Fatalf("recipient %s never reached (%v)", id, r)
		}
		if got[id] > 1 {
			dups++
			if !claimed[id] || got[id] > 2 {
				t.Fatalf("%s arrived %d times; claimed at the crash: %v", id, got[id], claimed[id])
			}
		}
	}
	if len(got) != n || dups > crashWorkers {
		t.Fatalf("%d distinct messages, %d duplicates", len(got), dups)
	}
	t.Logf("%d recipients, %d claimed at the crash, %d sent twice", n, len(claimed), dups)
	return dups
}

func countIn(m map[string]int, set map[string]bool) int {
	n := 0
	for id := range set {
		if m[id] > 0 {
			n++
		}
	}
	return n
}

// testCA writes the certificate of httptest's TLS servers, which the SMTP sink presents.
func testCA(t *testing.T) string {
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.StartTLS()
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// dieAfterSends is a mailer that hands each message over, waits until all of want have
// been, then "dies": the database closes under the process, so no outcome is written.
type dieAfterSends struct {
	inner app.Mailer
	sent  *sync.WaitGroup
	once  *sync.Once
	die   func()
}

func (m dieAfterSends) Send(ctx context.Context, e app.OutboundEmail) error {
	err := m.inner.Send(ctx, e)
	m.sent.Done()
	m.sent.Wait()
	m.once.Do(m.die)
	return err
}

// TestCrashWithClaimedRecipients claims recipients in a process that is never started, sends
// two of them without recording it, and closes the database: a killed process.
func TestCrashWithClaimedRecipients(t *testing.T) {
	t.Parallel()
	f := newCrashFiles(t)
	cfg := cli.DefaultConfig()
	f.configure(&cfg)
	cfg.Email.CAFile = testCA(t) // what apitest.New sets for its sinks
	// DKIM keys as apitest.New sets them (no fresh 2048-bit key under -race); the mailer in a
	// slot the test swaps before it sends.
	slot := &mailerSlot{}
	rt, err := cli.Build(context.Background(), cfg, cli.Options{Clock: app.NewManualClock(apitest.Start),
		EditDeps: func(d *app.Deps) { d.DKIMKeys, slot.Mailer, d.Mailer = apitest.DKIMKeys(), d.Mailer, slot }})
	if err != nil {
		t.Fatal(err)
	}
	svc := rt.Service
	ctx := context.Background()
	nk, _, err := svc.Bootstrap(ctx, "crash")
	if err != nil {
		t.Fatal(err)
	}
	// Six rounds of the workers: enough to hold claimed, sent-unrecorded and never-claimed
	// recipients (it was 60; each message is a TLS session and a DKIM signature, slow under -race).
	const n = 6 * crashWorkers
	id, contacts := prepare(t, svc, nk.OrgID, f.dnsSrv, n)
	b, err := svc.CreateBroadcast(ctx, nk.OrgID, app.BroadcastInput{Name: "Crash", IntegrationID: "email", IdentityID: id.ID,
		Subject: "S", Text: "T", ContactIDs: contacts})
	if err != nil || b.Counts.Recipients != n {
		t.Fatalf("broadcast %v %+v", err, b.Counts)
	}
	rs, err := svc.ClaimRecipients(ctx, app.ClaimRoom{Limit: crashWorkers})
	if err != nil || len(rs) != crashWorkers {
		t.Fatalf("claim: %v, %d", err, len(rs))
	}
	// Two of the claimed messages reach the relay, then the process dies before recording them.
	var sent sync.WaitGroup
	sent.Add(2)
	slot.Mailer = dieAfterSends{inner: slot.Mailer, sent: &sent, once: &sync.Once{}, die: func() { rt.DB.Close() }}
	errs := make(chan error, 2)
	for _, r := range rs[:2] {
		go func() { errs <- svc.ProcessRecipient(ctx, r) }()
	}
	for range 2 {
		if err := <-errs; err == nil {
			t.Fatalf("an outcome was recorded after the crash")
		}
	}
	if got := len(f.sink.Mails()); got != 2 {
		t.Fatalf("%d messages before the crash", got)
	}
	claimed := leased(t, cfg.DB.Path)
	if len(claimed) != crashWorkers {
		t.Fatalf("%d leased recipients in the file", len(claimed))
	}
	restartAndCheck(t, f.configure, f.sink, b.ID, claimed, n)
}

// TestCrashMidBroadcast kills a running sender (its database goes away under it) while a
// broadcast is half sent to a slow relay, then restarts on the same files.
func TestCrashMidBroadcast(t *testing.T) {
	t.Parallel()
	f := newCrashFiles(t)
	const n = 8 * crashWorkers // the crash comes after 10: most are left to the restart
	a, b := f.sendBroadcast(t, "Crash", n, 10)
	a.Runtime.DB.Close() // the process dies: nothing more reaches the file
	a.Runtime.Close()    // its sends under way finish at the relay, unrecorded
	// Claimed and unrecorded: the sends under way, plus any the dying process claimed after
	// its reads had already failed (those never reached the relay).
	claimed := leased(t, filepath.Join(f.dir, "app.db"))
	if len(f.sink.Mails()) >= n {
		t.Fatalf("the broadcast finished before the crash")
	}
	// An hour's tick: the restarted process claims what was left because its start nudges
	// the sender, not because a tick came round.
	restartAndCheck(t, func(c *cli.Config) { f.configure(c); c.Email.Tick = time.Hour }, f.sink, b.ID, claimed, n)
}

// TestGracefulStopRecordsSendsUnderWay stops a sender mid-broadcast the way `serve` does on
// SIGTERM: the messages it already handed to the relay are recorded, so a restart sends
// nothing twice.
func TestGracefulStopRecordsSendsUnderWay(t *testing.T) {
	t.Parallel()
	f := newCrashFiles(t)
	const n = 6 * crashWorkers
	a, b := f.sendBroadcast(t, "Stop", n, 6)
	a.Server.Close()
	a.Runtime.Close()
	// A recipient may stay claimed when the stop came before its send began; none was sent.
	claimed := leased(t, filepath.Join(f.dir, "app.db"))
	if dups := restartAndCheck(t, f.configure, f.sink, b.ID, claimed, n); dups != 0 {
		t.Fatalf("%d messages sent twice after a graceful stop", dups)
	}
}

// mailerSlot is the service's mailer, which a test replaces before any mail is sent.
type mailerSlot struct{ app.Mailer }
