// Command contacts measures the bulk contact import through the real HTTP handler: the
// runtime `app serve` builds (cli.Build, a fresh SQLite file), 100,000 seeded contacts with
// one channel each, then a dry run of 50,000 channels (half matching existing channels, half
// new) and the real import of the same body. It prints the time of each request and the
// peak resident memory of the process (VmHWM).
//
//	go run ./bench/contacts
//
// See bench/contacts/README.md.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"wsapi/app"
	"wsapi/bench/internal/measure"
	"wsapi/cli"
)

type options struct {
	seed, items, chunk, segments int
	cpuprofile, memprofile       string
	keep                         bool
}

func main() {
	var o options
	flag.IntVar(&o.seed, "seed", 100000, "contacts (one channel each) in the database before the measured requests")
	flag.IntVar(&o.items, "items", 50000, "channels in the measured dry run and import; half match seeded channels")
	flag.IntVar(&o.chunk, "chunk", 50000, "items per svc.BulkImport call while seeding")
	flag.IntVar(&o.segments, "segments", 1, "segment_ids of the measured requests (every created and updated contact joins them)")
	flag.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the two measured requests to this file")
	flag.StringVar(&o.memprofile, "memprofile", "", "write a heap profile (after the import) to this file")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directory with the database")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "bench-contacts-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Println("directory:", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	cfg := cli.DefaultConfig()
	cfg.DB.Path = filepath.Join(dir, "bench.db")
	cfg.Secrets.KeyFile = filepath.Join(dir, "app.key")
	cfg.HTTP.RateLimitPerMinute = 100_000_000
	rt, err := cli.Build(ctx, cfg, cli.Options{Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	defer rt.Close()
	svc := rt.Service
	nk, _, err := svc.Bootstrap(ctx, "bench")
	if err != nil {
		return err
	}

	// Seed: every seeded channel has a user_id, an email and a phone.
	start := time.Now()
	for from := 0; from < o.seed; from += o.chunk {
		items := make([]app.BulkChannel, 0, o.chunk)
		for i := from; i < min(from+o.chunk, o.seed); i++ {
			items = append(items, seeded(i))
		}
		res, err := svc.BulkImport(ctx, nk.OrgID, app.BulkInput{Channels: items})
		if err != nil {
			return fmt.Errorf("seed: %w", err)
		}
		if len(res.Created) != len(items) {
			return fmt.Errorf("seed: %d of %d created", len(res.Created), len(items))
		}
	}
	fmt.Printf("seeded %d contacts in %s (svc.BulkImport, chunks of %d); VmHWM so far %s; load average %s\n",
		o.seed, time.Since(start).Round(time.Millisecond), o.chunk, vmHWM(), loadAvg())

	var segIDs []string
	for i := range o.segments {
		seg, err := svc.CreateSegment(ctx, nk.OrgID, app.SegmentInput{Name: ptr(fmt.Sprintf("bench %d", i))})
		if err != nil {
			return err
		}
		segIDs = append(segIDs, seg.ID)
	}
	body, err := json.Marshal(app.BulkInput{Channels: measured(o.items, o.seed), SegmentIDs: segIDs})
	if err != nil {
		return err
	}
	fmt.Printf("request body: %d channels, %d segment_ids, %.1f MB\n", o.items, len(segIDs), float64(len(body))/1e6)

	srv := httptest.NewServer(rt.Handler)
	defer srv.Close()
	stopProfile, err := measure.StartCPUProfile(o.cpuprofile)
	if err != nil {
		return err
	}
	defer stopProfile()
	runtime.GC()
	dry, dryTime, err := post(srv.URL+"/orgs/c/contacts/bulk/dry", nk.Token, body)
	if err != nil {
		return err
	}
	fmt.Printf("dry run:     %8s (CPU %s)  created %d, updated %d, invalid %d\n", dryTime.Round(time.Millisecond),
		lastCPU.Round(time.Millisecond), dry.created, dry.updated, dry.invalid)
	real, realTime, err := post(srv.URL+"/orgs/c/contacts/bulk", nk.Token, body)
	if err != nil {
		return err
	}
	fmt.Printf("real import: %8s (CPU %s)  created %d, updated %d, invalid %d\n", realTime.Round(time.Millisecond),
		lastCPU.Round(time.Millisecond), real.created, real.updated, real.invalid)
	if o.cpuprofile != "" {
		pprof.StopCPUProfile()
	}
	if o.memprofile != "" {
		f, err := os.Create(o.memprofile)
		if err != nil {
			return err
		}
		if err := pprof.WriteHeapProfile(f); err != nil {
			return err
		}
		f.Close()
	}

	// Check what the import did.
	var problems []string
	if dry != real { // the same lists, byte for byte
		problems = append(problems, "the import answered another classification than the dry run")
	}
	if half := o.items / 2; dry.updated != half || dry.created != o.items-half || dry.invalid != 0 {
		problems = append(problems, fmt.Sprintf("classification %d/%d/%d, want %d updated, %d created",
			dry.created, dry.updated, dry.invalid, half, o.items-half))
	}
	l, err := svc.ListContacts(ctx, nk.OrgID, app.ContactFilter{}, app.Page{Page: 1, Take: 1})
	if err != nil {
		return err
	}
	if want := o.seed + real.created; l.Total != want {
		problems = append(problems, fmt.Sprintf("%d contacts after the import, want %d", l.Total, want))
	}
	for _, id := range segIDs {
		seg, err := svc.GetSegment(ctx, nk.OrgID, id)
		if err != nil {
			return err
		}
		if seg.ContactsCount != o.items {
			problems = append(problems, fmt.Sprintf("segment has %d contacts, want %d", seg.ContactsCount, o.items))
		}
	}
	fmt.Printf("peak RSS (VmHWM): %s\n", vmHWM())
	// Issue 17's targets; the first ones were dry < 1 s, real < 5 s, RSS < 200 MB.
	fmt.Printf("targets (2 cores, issue 17): dry < 0.5s %s, real < 2.5s %s, RSS < 150 MB %s\n",
		verdict(dryTime < time.Second/2), verdict(realTime < 2500*time.Millisecond), verdict(hwmBytes() < 150<<20))
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

// seeded is the i-th seeded channel.
func seeded(i int) app.BulkChannel {
	return app.BulkChannel{UserID: fmt.Sprintf("crm-%07d", i), Name: fmt.Sprintf("Seeded %d", i),
		Email: fmt.Sprintf("seed%07d@example.com", i), Phone: fmt.Sprintf("+1 (555) %07d", i)}
}

// measured makes n items: the even ones match a seeded channel, a third each by user_id, by
// email in another case and by phone written differently; the odd ones are new. With
// n/2 <= seed, exactly half are updated.
func measured(n, seed int) []app.BulkChannel {
	items := make([]app.BulkChannel, n)
	for i := range items {
		if i%2 == 1 || seed == 0 {
			items[i] = app.BulkChannel{Name: fmt.Sprintf("New %d", i), Email: fmt.Sprintf("new%07d@example.org", i),
				Phone: fmt.Sprintf("+44 20 %08d", i)}
			continue
		}
		// j*7919 mod seed is one-to-one for j < seed (7919 is a prime that does not divide
		// the seed counts used), so no two items match the same seeded contact.
		s := (i / 2 * 7919) % seed
		switch (i / 2) % 3 {
		case 0:
			items[i] = app.BulkChannel{UserID: fmt.Sprintf("crm-%07d", s), Name: "Matched by user_id"}
		case 1:
			items[i] = app.BulkChannel{Email: fmt.Sprintf("SEED%07d@EXAMPLE.COM", s)}
		default:
			items[i] = app.BulkChannel{Phone: fmt.Sprintf("1555%07d", s)}
		}
	}
	return items
}

// answer is what the client keeps of a bulk answer: the size of each list and a hash of the
// bytes. The client runs in the same process as the server, so decoding the 50,000 items of
// each answer (and keeping the dry run's to compare) would add to the peak RSS the bench
// measures (20 MB at the end of the run); the answer streams through a hash and a counter.
type answer struct {
	created, updated, invalid int
	sum                       [sha256.Size]byte
}

func post(url, token string, body []byte) (answer, time.Duration, error) {
	var a answer
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return a, 0, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	start, cpu0 := time.Now(), measure.CPUTime()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return a, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return a, time.Since(start), fmt.Errorf("POST %s: %d %s", url, resp.StatusCode, data)
	}
	h, c := sha256.New(), &listCounter{}
	_, err = io.Copy(io.MultiWriter(h, c), resp.Body)
	took := time.Since(start)
	lastCPU = measure.CPUTime() - cpu0
	h.Sum(a.sum[:0])
	a.created, a.updated, a.invalid = c.n["created"], c.n["updated"], c.n["invalid"]
	return a, took, err
}

// listCounter counts the objects in each top-level list of a JSON object as its bytes go
// by (the items of a bulk answer are flat objects): a few states instead of a decoder, whose
// cost would count in the measured CPU time.
type listCounter struct {
	n              map[string]int
	depth          int
	inString, esc  bool
	str, key, list []byte
}

func (c *listCounter) Write(p []byte) (int, error) {
	if c.n == nil {
		c.n = map[string]int{}
	}
	for _, b := range p {
		switch {
		case c.esc:
			c.esc = false
		case c.inString && b == '\\':
			c.esc = true
		case c.inString && b == '"':
			c.inString = false
			if c.depth == 1 {
				c.key = append(c.key[:0], c.str...)
			}
		case c.inString:
			if c.depth == 1 {
				c.str = append(c.str, b)
			}
		case b == '"':
			c.inString, c.str = true, c.str[:0]
		case b == '{' || b == '[':
			c.depth++
			if c.depth == 2 {
				c.list = append(c.list[:0], c.key...)
			} else if c.depth == 3 && b == '{' {
				c.n[string(c.list)]++
			}
		case b == '}' || b == ']':
			c.depth--
		}
	}
	return len(p), nil
}

// lastCPU is the CPU time (user + system, all threads) the last post took.
var lastCPU time.Duration

// hwmBytes is the process's peak resident set size, from /proc/self/status.
func hwmBytes() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(v), "%d", &kb)
			return kb << 10
		}
	}
	return -1
}

func vmHWM() string {
	b := hwmBytes()
	if b < 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.0f MB", float64(b)/(1<<20))
}

// loadAvg is the 1-minute load average: other processes on the cores slow the run down.
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Fields(string(data))[0]
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

func ptr[T any](v T) *T { return &v }
