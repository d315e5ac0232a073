// Command webapp measures the web app (/app/) on a large inbox: the server time of the
// inbox page with 100,000 chats, how long a change takes to reach an open tab's list, and
// the memory of 200 tabs connected live. It builds the runtime `app serve` builds
// (cli.Build over a SQLite file), seeds the file straight through SQL, signs the owner in
// through the set-up link, and drives the real handler over loopback HTTP.
//
//	go run ./bench/webapp                     # 100,000 chats in a fresh temp database
//	go run ./bench/webapp -chats 20000 -tabs 50 -duration 5s
//
// See bench/webapp/README.md.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"wsapi/app"
	"wsapi/bench/internal/measure"
	"wsapi/cli"
)

func main() {
	chats := flag.Int("chats", 100000, "chats to seed (one contact message each)")
	contacts := flag.Int("contacts", 20000, "contacts to seed")
	duration := flag.Duration("duration", 10*time.Second, "time of the page-render phase")
	clients := flag.Int("clients", 4, "concurrent page loads in the render phase")
	updates := flag.Int("updates", 50, "changes timed from commit to the open tab's redrawn list")
	tabs := flag.Int("tabs", 200, "live tabs connected in the memory phase")
	flag.StringVar(&cpuprofile, "cpuprofile", "", "write a CPU profile of the update phase to this file")
	flag.Parse()
	if err := run(*chats, *contacts, *duration, *clients, *updates, *tabs); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

var cpuprofile string

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

func run(chats, contacts int, duration time.Duration, clients, updates, tabs int) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "bench-webapp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cfg := cli.DefaultConfig()
	cfg.DB.Path = filepath.Join(dir, "app.db")
	cfg.Secrets.KeyFile = filepath.Join(dir, "app.key")
	rt, err := cli.Build(ctx, cfg, cli.Options{Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	defer rt.Close()
	nk, _, err := rt.Service.Bootstrap(ctx, "bench")
	if err != nil {
		return err
	}
	t0 := time.Now()
	if err := seed(ctx, cfg.DB.Path, nk.OrgID, nk.MemberID, contacts, chats); err != nil {
		return err
	}
	logf("seeded %d chats, %d contacts in %s", chats, contacts, time.Since(t0).Round(time.Millisecond))
	rt.Start()
	srv := httptest.NewServer(rt.Handler)
	defer srv.Close()
	tab, err := signIn(ctx, rt, srv.URL, nk.OrgID)
	if err != nil {
		return err
	}

	// 1. The inbox page, whole, as a page load asks for it.
	cpu := measure.CPUTime()
	lat, n := load(tab, srv.URL+"/app/", clients, duration)
	cpuPage := (measure.CPUTime() - cpu) / time.Duration(max(n, 1))
	logf("inbox page (GET /app/, %d chats, %d clients): %d pages, p50 %s p99 %s max %s", chats, clients, n,
		pct(lat, 50), pct(lat, 99), pct(lat, 100))
	logf("  CPU per page (server and client): %s", cpuPage.Round(10*time.Microsecond))
	lat, n = load(tab, srv.URL+"/app/", 1, duration/2)
	logf("inbox page, one client (server time): %d pages, p50 %s p99 %s max %s", n, pct(lat, 50), pct(lat, 99), pct(lat, 100))

	// 2. A change reaches an open tab: the tab's stream says so, and its list, fetched again
	// as app.js does, holds the new message.
	stop, err := measure.StartCPUProfile(cpuprofile)
	if err != nil {
		return err
	}
	cpu = measure.CPUTime()
	ups, evs, err := updateLatency(ctx, rt, nk.OrgID, tab, srv.URL, updates, chats)
	if err != nil {
		return err
	}
	logf("list update reaches an open tab (commit -> stream event -> list redrawn), %d changes: p50 %s p99 %s max %s",
		len(ups), pct(ups, 50), pct(ups, 99), pct(ups, 100))
	stop()
	logf("  of which commit -> stream event: p50 %s p99 %s; CPU per change, its write and the redraw: %s", pct(evs, 50), pct(evs, 99),
		((measure.CPUTime() - cpu) / time.Duration(max(len(ups), 1))).Round(10*time.Microsecond))

	// 3. Tabs connected live.
	runtime.GC()
	before := rss()
	streams, err := openTabs(tab, srv.URL, tabs)
	if err != nil {
		return err
	}
	time.Sleep(time.Second)
	runtime.GC()
	after := rss()
	logf("%d live tabs: RSS %d MiB before, %d MiB after (+%d MiB, %d KiB a tab; server and clients in one process)",
		tabs, before>>20, after>>20, (after-before)>>20, (after-before)/int64(max(tabs, 1))>>10)
	fan, err := fanOut(ctx, rt, nk.OrgID, streams)
	if err != nil {
		return err
	}
	logf("one change reaches all %d tabs' streams in %s", tabs, fan.Round(time.Millisecond))
	for _, s := range streams {
		s.Close()
	}
	return nil
}

// signIn sets the owner's password through the set-up link and answers its signed-in client.
func signIn(ctx context.Context, rt *cli.Runtime, base, orgID string) (*http.Client, error) {
	token, _, err := rt.SignIn.OwnerSetupLink(ctx, orgID)
	if err != nil {
		return nil, err
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	form := url.Values{"token": {token}, "password": {"bench password"}, "password_again": {"bench password"}}
	req, _ := http.NewRequest("POST", base+"/app/setup", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	res, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	res.Body.Close()
	if res.StatusCode != 200 { // the redirect to /app/ was followed
		return nil, fmt.Errorf("sign in: %s", res.Status)
	}
	return c, nil
}

func get(c *http.Client, u string, headers ...string) (string, error) {
	req, _ := http.NewRequest("GET", u, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		return "", fmt.Errorf("GET %s: %s", u, res.Status)
	}
	return string(b), err
}

// load runs closed-loop clients for d and answers every latency.
func load(c *http.Client, u string, clients int, d time.Duration) ([]time.Duration, int) {
	var mu sync.Mutex
	var all []time.Duration
	end := time.Now().Add(d)
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				t := time.Now()
				if _, err := get(c, u); err != nil {
					logf("%v", err)
					return
				}
				mu.Lock()
				all = append(all, time.Since(t))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return all, len(all)
}

func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := min(len(s)-1, (len(s)*p+99)/100-1)
	return s[max(i, 0)].Round(10 * time.Microsecond)
}

// stream is one tab's live connection.
type stream struct {
	res   *http.Response
	lines *bufio.Reader
}

func (s *stream) Close() { s.res.Body.Close() }

func openStream(c *http.Client, base string) (*stream, error) {
	req, _ := http.NewRequest("GET", base+"/app/events", nil)
	res, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != 200 {
		res.Body.Close()
		return nil, fmt.Errorf("stream: %s", res.Status)
	}
	s := &stream{res: res, lines: bufio.NewReader(res.Body)}
	return s, s.until("event: hello")
}

// until reads lines until one starts with prefix.
func (s *stream) until(prefix string) error {
	for {
		line, err := s.lines.ReadString('\n')
		if err != nil {
			return err
		}
		if strings.HasPrefix(line, prefix) {
			return nil
		}
	}
}

func contactMessage(ctx context.Context, rt *cli.Runtime, orgID, chatID, text string) error {
	in := app.MessageInput{Role: "user", Messages: []app.Turn{{Role: "user", Parts: []app.Part{{Type: "text", Text: text}}}}}
	_, err := rt.Service.AddMessage(ctx, app.Caller{OrgID: orgID}, chatID, in)
	return err
}

// updateLatency posts a contact message into a random chat and times it until the tab's
// stream has said so and the list fetched again shows it at the top.
func updateLatency(ctx context.Context, rt *cli.Runtime, orgID string, c *http.Client, base string, n, chats int) (out, events []time.Duration, err error) {
	s, err := openStream(c, base)
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	for i := range n {
		chatID := fmt.Sprintf("chat_seed_%08d", 1+(i*7919)%chats)
		text := fmt.Sprintf("update %d at %d", i, time.Now().UnixNano())
		t := time.Now()
		if err := contactMessage(ctx, rt, orgID, chatID, text); err != nil {
			return nil, nil, err
		}
		if err := s.until("event: change"); err != nil {
			return nil, nil, err
		}
		events = append(events, time.Since(t))
		list, err := get(c, base+"/app/", "HX-Request", "true", "HX-Target", "list-body")
		if err != nil {
			return nil, nil, err
		}
		out = append(out, time.Since(t))
		if !strings.Contains(list, text) {
			return nil, nil, fmt.Errorf("the redrawn list lacks the change %q", text)
		}
	}
	return out, events, nil
}

func openTabs(c *http.Client, base string, n int) ([]*stream, error) {
	var out []*stream
	for range n {
		s, err := openStream(c, base)
		if err != nil {
			return out, err
		}
		out = append(out, s)
	}
	return out, nil
}

// fanOut times one change until every tab's stream has carried it.
func fanOut(ctx context.Context, rt *cli.Runtime, orgID string, streams []*stream) (time.Duration, error) {
	t := time.Now()
	if err := contactMessage(ctx, rt, orgID, "chat_seed_00000001", "to every tab"); err != nil {
		return 0, err
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(streams))
	for _, s := range streams {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- s.until("event: change") }()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return time.Since(t), nil
}

// rss is the process's resident memory now, from /proc (0 where there is none).
func rss() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return kb << 10
		}
	}
	return 0
}
