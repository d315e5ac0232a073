// Command broadcasts measures email broadcast throughput in-process: the runtime `app serve`
// builds (cli.Build, real clock, a fresh SQLite file), a local SMTP sink on loopback, a
// verified domain and identity, N contacts with email addresses in one segment, then one
// email broadcast to that segment. It prints messages per second until every recipient is
// PROCESSED.
//
//	go run ./bench/broadcasts -n 50000 -workers 8
//
// See bench/broadcasts/README.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-smtp"

	"wsapi/app"
	"wsapi/bench/internal/measure"
	"wsapi/cli"
)

func main() {
	n := flag.Int("n", 50000, "contacts (recipients) in the segment")
	workers := flag.Int("workers", 8, "email.workers")
	html := flag.Bool("html", true, "send an HTML part besides the text")
	wait := flag.Duration("wait", 30*time.Minute, "give up after this long")
	poll := flag.Duration("poll", time.Second, "how often to read the broadcast's counts")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the sending phase to this file")
	flag.Parse()
	if err := run(*n, *workers, *html, *wait, *poll, *cpuprofile); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// sink is a plain SMTP server on loopback that counts messages and their Message-IDs.
type sink struct {
	addr  string
	mu    sync.Mutex
	ids   map[string]int
	count int
	first time.Time
	last  time.Time
}

var messageID = regexp.MustCompile(`(?mi)^Message-ID:\s*(<[^>\r\n]+>)`)

func startSink() (*sink, func(), error) {
	s := &sink{ids: map[string]int{}}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{sink: s}, nil }))
	srv.Domain = "sink.bench"
	srv.AllowInsecureAuth = true
	srv.ReadTimeout, srv.WriteTimeout = time.Minute, time.Minute
	srv.MaxRecipients = 1
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	s.addr = ln.Addr().String()
	go srv.Serve(ln)
	return s, func() { srv.Close() }, nil
}

func (s *sink) snapshot() (count, distinct int, first, last time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count, len(s.ids), s.first, s.last
}

type session struct{ sink *sink }

func (*session) Reset()                                    {}
func (*session) Logout() error                             { return nil }
func (*session) Mail(string, *smtp.MailOptions) error      { return nil }
func (*session) Rcpt(to string, _ *smtp.RcptOptions) error { return nil }

func (s *session) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	id := ""
	if m := messageID.FindSubmatch(data); m != nil {
		id = string(m[1])
	}
	now := time.Now()
	s.sink.mu.Lock()
	if s.sink.count == 0 {
		s.sink.first = now
	}
	s.sink.count++
	s.sink.ids[id]++
	s.sink.last = now
	s.sink.mu.Unlock()
	return nil
}

// txtMap answers the TXT records the bench publishes (the service's dns.resolver seam).
type txtMap map[string][]string

func (m txtMap) LookupTXT(_ context.Context, name string) ([]string, error) {
	if v, ok := m[strings.ToLower(strings.TrimSuffix(name, "."))]; ok {
		return v, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

func run(n, workers int, withHTML bool, wait, poll time.Duration, cpuprofile string) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "bench-broadcasts-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	sk, stopSink, err := startSink()
	if err != nil {
		return err
	}
	defer stopSink()

	cfg := cli.DefaultConfig()
	cfg.DB.Path = filepath.Join(dir, "bench.db")
	cfg.Secrets.KeyFile = filepath.Join(dir, "app.key")
	cfg.Email.SMTPURL = "smtp://" + sk.addr // loopback: plain SMTP is accepted
	cfg.Email.Workers = workers
	dns := txtMap{}
	rt, err := cli.Build(ctx, cfg, cli.Options{Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		EditDeps: func(d *app.Deps) { d.DNS = dns }})
	if err != nil {
		return err
	}
	defer rt.Close()
	svc := rt.Service

	nk, _, err := svc.Bootstrap(ctx, "bench")
	if err != nil {
		return err
	}
	org := nk.OrgID
	d, err := svc.CreateDomain(ctx, org, app.DomainInput{Domain: "mail.bench.test"})
	if err != nil {
		return err
	}
	for _, rec := range append([]app.DNSRecord{d.VerificationRecord}, d.DKIMTokens...) {
		dns[rec.Name] = []string{rec.Value}
	}
	if d, err = svc.VerifyDomain(ctx, org, d.ID); err != nil || d.DKIMStatus != app.StatusVerified {
		return fmt.Errorf("verify domain: %v %v", err, d.VerifyError)
	}
	name := "Bench News"
	identity, err := svc.CreateIdentity(ctx, org, app.IdentityInput{Email: "news@mail.bench.test", Name: &name})
	if err != nil {
		return err
	}
	seg, err := svc.CreateSegment(ctx, org, app.SegmentInput{Name: &name})
	if err != nil {
		return err
	}
	seedStart := time.Now()
	for done := 0; done < n; {
		size := min(app.MaxBulkChannels, n-done)
		items := make([]app.BulkChannel, size)
		for i := range items {
			items[i] = app.BulkChannel{Name: fmt.Sprintf("Reader %d", done+i), Email: fmt.Sprintf("reader%06d@dest.bench.test", done+i)}
		}
		res, err := svc.BulkImport(ctx, org, app.BulkInput{Channels: items, SegmentIDs: []string{seg.ID}})
		if err != nil {
			return err
		}
		if len(res.Created) != size {
			return fmt.Errorf("bulk import created %d of %d", len(res.Created), size)
		}
		done += size
	}
	fmt.Printf("seeded %d contacts in %s\n", n, time.Since(seedStart).Round(time.Millisecond))

	stopProfile, err := measure.StartCPUProfile(cpuprofile)
	if err != nil {
		return err
	}
	defer stopProfile()
	rt.Start()
	in := app.BroadcastInput{Name: "Bench", IntegrationID: app.IntegrationEmail, IdentityID: identity.ID,
		Subject: "Our news", Text: "Hello,\n\nhere is what is new this month.\n\nThe team", SegmentIDs: []string{seg.ID}}
	if withHTML {
		in.HTML = `<html><body><h1>News</h1><p>Hello, here is <a href="https://example.com/news">what is new</a> this month.</p></body></html>`
	}
	cpuStart := measure.CPUTime()
	start := time.Now()
	b, err := svc.CreateBroadcast(ctx, org, in)
	if err != nil {
		return err
	}
	created := time.Since(start)
	fmt.Printf("broadcast %s created with %d recipients in %s (GOMAXPROCS %d, email.workers %d)\n", b.ID,
		b.Counts.Recipients, created.Round(time.Millisecond), runtime.GOMAXPROCS(0), workers)

	// Each poll counts over every recipient (the counts of GET /broadcasts/{id}), so it polls
	// once a second and reports what the polls cost.
	deadline := time.Now().Add(wait)
	lastReport := time.Now()
	var polls int
	var polling time.Duration
	for b.Counts.Processed < b.Counts.Recipients {
		if time.Now().After(deadline) {
			return fmt.Errorf("only %d of %d processed within %s", b.Counts.Processed, b.Counts.Recipients, wait)
		}
		time.Sleep(poll)
		t0 := time.Now()
		if b, err = svc.GetBroadcast(ctx, org, b.ID); err != nil {
			return err
		}
		polls, polling = polls+1, polling+time.Since(t0)
		if time.Since(lastReport) >= 5*time.Second {
			lastReport = time.Now()
			fmt.Fprintf(os.Stderr, "  %d/%d processed after %s\n", b.Counts.Processed, b.Counts.Recipients, time.Since(start).Round(time.Second))
		}
	}
	cpu := measure.CPUTime() - cpuStart
	// The broadcast's updated_at is the moment it became SENT (the service runs on the real
	// clock), so the total does not depend on the polling interval.
	total := b.UpdatedAt.Sub(start)
	count, distinct, first, last := sk.snapshot()
	sending := last.Sub(first)
	fmt.Printf("status %s: processed %d, sent %d, failed %d, skipped %d\n", b.Status, b.Counts.Processed, b.Counts.Sent,
		b.Counts.Failed, b.Counts.Skipped)
	fmt.Printf("sink: %d messages, %d distinct Message-IDs\n", count, distinct)
	fmt.Printf("total (create + send + record, until SENT): %s -> %.0f messages/s\n", total.Round(time.Millisecond), float64(n)/total.Seconds())
	fmt.Printf("sending only (first to last message at the sink): %s -> %.0f messages/s\n", sending.Round(time.Millisecond),
		float64(count)/sending.Seconds())
	fmt.Printf("progress polls (GetBroadcast with counts): %d, %s in all\n", polls, polling.Round(time.Millisecond))
	fmt.Printf("process CPU: %s (%.2f cores busy on average) = %.2f ms per message, sink included\n", cpu.Round(time.Millisecond),
		cpu.Seconds()/time.Since(start).Seconds(), float64(cpu.Microseconds())/1000/float64(n))
	if b.Status != app.BroadcastSent || count != n || distinct != n {
		return fmt.Errorf("not every recipient got exactly one message")
	}
	return nil
}
