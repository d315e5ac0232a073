// Command webhooks measures end-to-end webhook delivery in-process: the runtime `app serve`
// builds (cli.Build, real clock, a fresh SQLite file), local HTTPS receivers answering 200,
// and N events emitted through the outbox. It prints deliveries per second and the latency
// from emit (commit) to receipt.
//
//	go run ./bench/webhooks -n 20000 -receivers 1 -workers 16
//
// See bench/webhooks/README.md.
package main

import (
	"context"
	"encoding/pem"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"wsapi/app"
	"wsapi/bench/internal/measure"
	"wsapi/cli"
)

func main() {
	n := flag.Int("n", 20000, "events to emit (one delivery each)")
	receivers := flag.Int("receivers", 1, "local HTTPS receivers, one endpoint (in its own organization) each")
	workers := flag.Int("workers", 16, "webhooks.workers")
	batch := flag.Int("batch", 100, "events per emitting transaction")
	tick := flag.Duration("tick", time.Second, "webhooks.tick")
	wait := flag.Duration("wait", 10*time.Minute, "give up after this long")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.Parse()
	if err := run(*n, *receivers, *workers, *batch, *tick, *wait, *cpuprofile); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// sink records the first receipt of each event id.
type sink struct {
	mu       sync.Mutex
	got      map[string]time.Time
	dups     int
	want     int
	complete chan struct{}
}

func (s *sink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	id := r.Header.Get("x-webhook-id")
	s.mu.Lock()
	if _, seen := s.got[id]; seen {
		s.dups++
	} else {
		s.got[id] = now
		if len(s.got) == s.want {
			close(s.complete)
		}
	}
	s.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func (s *sink) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.got)
}

func run(n, receivers, workers, batch int, tick, wait time.Duration, cpuprofile string) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "bench-webhooks-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	recv := &sink{got: make(map[string]time.Time, n), want: n, complete: make(chan struct{})}
	var pemData []byte
	var urls []string
	for i := 0; i < receivers; i++ {
		srv := httptest.NewTLSServer(recv)
		defer srv.Close()
		srv.Config.ErrorLog = nil
		pemData = append(pemData, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})...)
		urls = append(urls, srv.URL+"/hook")
	}
	caFile := filepath.Join(dir, "receivers-ca.pem")
	if err := os.WriteFile(caFile, pemData, 0o600); err != nil {
		return err
	}

	cfg := cli.DefaultConfig()
	cfg.DB.Path = filepath.Join(dir, "bench.db")
	cfg.Secrets.KeyFile = filepath.Join(dir, "app.key")
	cfg.Webhooks.Workers = workers
	cfg.Webhooks.Tick = tick
	cfg.Webhooks.AllowPrivateTargets = true
	cfg.Webhooks.CAFile = caFile
	rt, err := cli.Build(ctx, cfg, cli.Options{Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return err
	}
	defer rt.Close()
	svc := rt.Service

	// One organization per receiver, each with one endpoint, so that every event makes
	// exactly one delivery and the load spreads over the endpoints.
	var orgs []string
	for i, u := range urls {
		org, err := svc.CreateOrg(ctx, app.OrgInput{Name: fmt.Sprintf("bench %d", i)}, "")
		if err != nil {
			return err
		}
		if _, err := svc.CreateWebhook(ctx, org.ID, app.WebhookInput{Name: "bench", URL: u,
			Events: []string{app.EventContactBlocked}}); err != nil {
			return err
		}
		orgs = append(orgs, org.ID)
	}

	stopProfile, err := measure.StartCPUProfile(cpuprofile)
	if err != nil {
		return err
	}
	defer stopProfile()
	cpu0 := measure.CPUTime()
	rt.Start()

	emitted := make(map[string]time.Time, n)
	firstEmit := time.Now()
	for done := 0; done < n; {
		size := min(batch, n-done)
		ids := make([]string, 0, size)
		err := svc.Store().Write(ctx, func(tx app.Tx) error {
			for i := 0; i < size; i++ {
				evt, err := svc.Emit(tx, orgs[(done+i)%len(orgs)], app.EventContactBlocked, map[string]any{"contact_id": fmt.Sprintf("ct_%d", done+i)})
				if err != nil {
					return err
				}
				ids = append(ids, evt.ID)
			}
			return nil
		})
		if err != nil {
			return err
		}
		at := time.Now() // committed: the events exist from here on
		for _, id := range ids {
			emitted[id] = at
		}
		done += size
	}
	emitDone := time.Now()

	progress := time.NewTicker(5 * time.Second)
	defer progress.Stop()
	deadline := time.After(wait)
wait:
	for {
		select {
		case <-recv.complete:
			break wait
		case <-progress.C:
			fmt.Fprintf(os.Stderr, "  %d/%d received after %s\n", recv.count(), n, time.Since(firstEmit).Round(time.Millisecond))
		case <-deadline:
			return fmt.Errorf("only %d of %d events received within %s", recv.count(), n, wait)
		}
	}

	recv.mu.Lock()
	var last time.Time
	lat := make([]time.Duration, 0, n)
	for id, at := range recv.got {
		if at.After(last) {
			last = at
		}
		lat = append(lat, at.Sub(emitted[id]))
	}
	dups := recv.dups
	recv.mu.Unlock()
	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		return lat[min(len(lat)-1, int(p*float64(len(lat))))].Round(time.Millisecond)
	}
	span := last.Sub(firstEmit)

	// Let the last attempts be recorded, then check the store agrees.
	settle := time.Now()
	for {
		l, err := svc.ListDeliveries(ctx, "", "", app.DeliverySucceeded, app.Page{Page: 1, Take: 1})
		if err != nil {
			return err
		}
		if l.Total >= n {
			break
		}
		if time.Since(settle) > time.Minute {
			return fmt.Errorf("only %d of %d deliveries recorded SUCCEEDED", l.Total, n)
		}
		time.Sleep(20 * time.Millisecond)
	}

	fmt.Printf("events %d, receivers %d, workers %d, batch %d per transaction, tick %s\n", n, receivers, workers, batch, tick)
	fmt.Printf("emitting took %s (%.0f events/s)\n", emitDone.Sub(firstEmit).Round(time.Millisecond),
		float64(n)/emitDone.Sub(firstEmit).Seconds())
	fmt.Printf("first emit to last receipt %s: %.0f deliveries/s\n", span.Round(time.Millisecond), float64(n)/span.Seconds())
	fmt.Printf("latency emit (commit) -> receipt: p50 %s, p99 %s, max %s\n", pct(0.50), pct(0.99), lat[len(lat)-1].Round(time.Millisecond))
	cpu := measure.CPUTime() - cpu0
	fmt.Printf("CPU (whole process: emitting, workers, receivers) %s, %.0f µs per delivery\n", cpu.Round(time.Millisecond),
		float64(cpu.Microseconds())/float64(n))
	fmt.Printf("duplicates %d; all %d recorded SUCCEEDED %s after the last receipt\n", dups, n, time.Since(last).Round(time.Millisecond))
	return nil
}
