// Command widget measures the web widget in-process: the runtime `app serve` builds
// (cli.Build, real clock, a fresh SQLite file) behind a real HTTP server, an assistant that
// answers with builtin:retrieval, and visitors that use the widget's own API.
//
// Phase 1 (streams): -sessions visitors each start a session, write once (the integration
// disabled, so nothing answers) and keep the chat's SSE stream open; it reports the process's
// peak RSS and Go heap before and with the streams open, and the p99 of GET /orgs/c (an
// authenticated API call) before and while they are connected.
//
// Phase 2 (first token): the integration enabled, -rate visitor messages a second for
// -seconds, each on a session whose stream is open; it reports the time from sending the POST
// to reading the answer's first message.delta, minus assistants.debounce.
//
//	go run ./bench/widget -sessions 5000 -rate 50 -seconds 10
//
// Clients and server share the process, so the RSS includes the clients' side of every
// stream: an upper bound of the server's. See bench/widget/README.md.
package main

import (
	"bufio"
	"bytes"
	"context"
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
	"slices"
	"strings"
	"sync"
	"time"

	"wsapi/bench/internal/measure"
	"wsapi/cli"
)

type options struct {
	sessions, rate, seconds, apiCalls int
	debounce, tick                    time.Duration
}

func main() {
	var o options
	flag.IntVar(&o.sessions, "sessions", 5000, "phase 1: visitors with an open stream")
	flag.IntVar(&o.rate, "rate", 50, "phase 2: visitor messages a second")
	flag.IntVar(&o.seconds, "seconds", 10, "phase 2: how long")
	flag.IntVar(&o.apiCalls, "api-calls", 2000, "GET /orgs/c calls per p99 measurement")
	flag.DurationVar(&o.debounce, "debounce", 100*time.Millisecond, "assistants.debounce")
	flag.DurationVar(&o.tick, "tick", 250*time.Millisecond, "assistants.tick (how often the run worker looks for runs whose debounce is over)")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type bench struct {
	base, token, asst, asi string
	client                 *http.Client
}

func run(o options) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "bench-widget-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cfg := cli.DefaultConfig()
	cfg.DB.Path = filepath.Join(dir, "bench.db")
	cfg.Secrets.KeyFile = filepath.Join(dir, "app.key")
	cfg.HTTP.RateLimitPerMinute = 1 << 30
	cfg.Assistants.Debounce = o.debounce
	cfg.Assistants.Tick = o.tick
	cfg.Channels.Widget = cli.WidgetConfig{} // no visitor limits: one address plays every visitor
	rt, err := cli.Build(ctx, cfg, cli.Options{Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return err
	}
	defer rt.Close()
	nk, _, err := rt.Service.Bootstrap(ctx, "bench")
	if err != nil {
		return err
	}
	srv := httptest.NewServer(rt.Handler)
	defer srv.Close()
	rt.Start()
	b := &bench{base: srv.URL, token: nk.Token,
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxConnsPerHost: 0}}}
	if err := b.setUp(); err != nil {
		return err
	}
	rssIdle, heapIdle := measure.PeakRSS(), heap()
	p99Idle, err := b.apiP99(o.apiCalls)
	if err != nil {
		return err
	}
	streams, err := b.openStreams(o.sessions)
	if err != nil {
		return err
	}
	rssStreams, heapStreams := measure.PeakRSS(), heap()
	p99Streams, err := b.apiP99(o.apiCalls)
	if err != nil {
		return err
	}
	fmt.Printf("phase 1: %d visitor streams open: peak RSS %d -> %d MB, Go heap in use %d -> %d MB\n",
		len(streams), rssIdle>>20, rssStreams>>20, heapIdle>>20, heapStreams>>20)
	fmt.Printf("phase 1: GET /orgs/c p99 %v idle, %v with the streams open (%+.0f%%)\n",
		p99Idle, p99Streams, 100*(float64(p99Streams)/float64(p99Idle)-1))
	for _, s := range streams {
		s.Close()
	}
	lat, err := b.firstTokens(o)
	if err != nil {
		return err
	}
	slices.Sort(lat)
	fmt.Printf("phase 2: %d visitor messages at %d/s: POST to first token minus debounce (%v): p50 %v, p99 %v, max %v\n",
		len(lat), o.rate, o.debounce, pct(lat, 50), pct(lat, 99), lat[len(lat)-1])
	return nil
}

func heap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}

func pct(d []time.Duration, p int) time.Duration { return d[min(len(d)-1, len(d)*p/100)] }

// call sends a JSON request; key "" sends none, a "wst_" key goes as X-Session-Token.
func (b *bench) call(method, path, key string, body any, want int, out any) error {
	var rd io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	req, _ := http.NewRequest(method, b.base+path, rd)
	switch {
	case strings.HasPrefix(key, "wst_"):
		req.Header.Set("X-Session-Token", key)
	case key != "":
		req.Header.Set("Authorization", "Bearer "+key)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := b.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		return fmt.Errorf("%s %s: status %d: %s", method, path, res.StatusCode, data)
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

// setUp makes the assistant with its knowledge and its widget, disabled for phase 1.
func (b *bench) setUp() error {
	var a, k, d struct{ ID, Status string }
	if err := b.call("POST", "/orgs/c/assistants", b.token, map[string]any{"name": "Bench"}, 201, &a); err != nil {
		return err
	}
	b.asst = a.ID
	if err := b.call("POST", "/orgs/c/assistants/"+a.ID+"/knowledge/contents", b.token, map[string]any{"title": "Hours",
		"content": map[string]any{"type": "TEXT", "text": "Our opening hours are nine to five, Monday to Friday."}}, 201, &k); err != nil {
		return err
	}
	for k.Status != "PROCESSED" {
		time.Sleep(50 * time.Millisecond)
		if err := b.call("GET", "/orgs/c/assistants/"+a.ID+"/knowledge/contents/"+k.ID, b.token, nil, 200, &k); err != nil {
			return err
		}
	}
	if err := b.call("POST", "/orgs/c/assistants/"+a.ID+"/integrations", b.token, map[string]any{"integration_id": "internal",
		"name": "Bench", "enabled": false}, 201, &d); err != nil {
		return err
	}
	b.asi = d.ID
	return nil
}

// visitor starts a session and writes once: the chat its stream follows.
func (b *bench) visitor(text string) (token, chat string, err error) {
	var s struct{ Token string }
	if err := b.call("POST", "/widget/"+b.asi+"/api/session", "", map[string]any{}, 201, &s); err != nil {
		return "", "", err
	}
	var sent struct{ Chat struct{ ID string } }
	err = b.call("POST", "/widget/"+b.asi+"/api/messages", s.Token, map[string]any{"text": text}, 201, &sent)
	return s.Token, sent.Chat.ID, err
}

// stream is an open visitor stream; deltas get the arrival of its first message.delta.
type stream struct {
	body   io.ReadCloser
	first  chan time.Time
	cancel context.CancelFunc
}

func (s *stream) Close() { s.cancel(); s.body.Close() }

func (b *bench) open(token string) (*stream, error) {
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", b.base+"/widget/"+b.asi+"/api/stream?token="+token, nil)
	res, err := b.client.Do(req)
	if err != nil {
		cancel()
		return nil, err
	}
	if res.StatusCode != 200 {
		cancel()
		res.Body.Close()
		return nil, fmt.Errorf("stream: status %d", res.StatusCode)
	}
	s := &stream{body: res.Body, first: make(chan time.Time, 1), cancel: cancel}
	go func() {
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if sc.Text() == "event: message.delta" {
				select {
				case s.first <- time.Now():
				default:
				}
			}
		}
	}()
	return s, nil
}

func (b *bench) openStreams(n int) ([]*stream, error) {
	out := make([]*stream, n)
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	next := 0
	for range 32 {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= n {
					return
				}
				tok, _, err := b.visitor("hello")
				var s *stream
				if err == nil {
					s, err = b.open(tok)
				}
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				out[i] = s
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return out, first
}

// apiP99 is the p99 of n sequential authenticated GET /orgs/c.
func (b *bench) apiP99(n int) (time.Duration, error) {
	d := make([]time.Duration, n)
	for i := range d {
		start := time.Now()
		if err := b.call("GET", "/orgs/c", b.token, nil, 200, nil); err != nil {
			return 0, err
		}
		d[i] = time.Since(start)
	}
	slices.Sort(d)
	return pct(d, 99), nil
}

// firstTokens enables the widget and sends rate messages a second, each from a visitor whose
// stream is open, timing POST to first delta.
func (b *bench) firstTokens(o options) ([]time.Duration, error) {
	n := o.rate * o.seconds
	type visitor struct {
		token string
		s     *stream
	}
	vs := make([]visitor, n)
	for i := range vs {
		tok, _, err := b.visitor("hello")
		if err != nil {
			return nil, err
		}
		s, err := b.open(tok)
		if err != nil {
			return nil, err
		}
		defer s.Close()
		vs[i] = visitor{tok, s}
	}
	if err := b.call("PATCH", "/orgs/c/assistants/"+b.asst+"/integrations/"+b.asi, b.token, map[string]any{"enabled": true}, 200, nil); err != nil {
		return nil, err
	}
	lat := make([]time.Duration, n)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	tick := time.NewTicker(time.Second / time.Duration(o.rate))
	defer tick.Stop()
	for i := range vs {
		<-tick.C
		wg.Go(func() {
			start := time.Now()
			if err := b.call("POST", "/widget/"+b.asi+"/api/messages", vs[i].token,
				map[string]any{"text": "What are your opening hours?"}, 201, nil); err != nil {
				errs <- err
				return
			}
			select {
			case at := <-vs[i].s.first:
				lat[i] = at.Sub(start) - o.debounce
			case <-time.After(30 * time.Second):
				errs <- fmt.Errorf("visitor %d: no token within 30 s", i)
			}
		})
	}
	wg.Wait()
	close(errs)
	return lat, <-errs
}
