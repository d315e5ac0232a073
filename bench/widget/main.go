// Command widget measures the web widget against the built binary serving in a process of its
// own (`bin/app serve` on a fresh directory, its pprof listener on), so the server's memory is
// measured apart from the load generator's: an assistant that answers with builtin:retrieval,
// and visitors that use the widget's own API.
//
// Phase 1 (streams): -sessions visitors each start a session and write once (the integration
// disabled, so nothing answers); another process (this one re-executed, holder.go) holds
// their chats' SSE streams open. It reports the server's RSS (now and peak), its Go heap in
// use and its goroutines before and with the streams open, and the p99 of GET /orgs/c (an
// authenticated API call) in rounds alternating between no stream open and the streams open.
//
// Phase 2 (first token): the integration enabled, -rate visitor messages a second for
// -seconds, each on a session whose stream is open (beside phase 1's streams with -keep); it
// reports the time from sending the POST to reading the answer's first message.delta, minus
// assistants.debounce.
//
//	CGO_ENABLED=0 go build -o bin/app . && go run ./bench/widget -bin bin/app -sessions 5000 -rate 50 -seconds 10
//
// -profile DIR saves the server's heap and goroutine profiles with the streams open and a CPU
// profile of phase 2. See bench/widget/README.md.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

type options struct {
	bin, profile                                 string
	sessions, rate, seconds, apiCalls, apiRounds int
	debounce, tick                               time.Duration
	keep, verbose                                bool
}

func main() {
	if os.Getenv(holdEnv) == "1" {
		if err := holdStreams(); err != nil {
			fmt.Fprintln(os.Stderr, "holder:", err)
			os.Exit(1)
		}
		return
	}
	var o options
	flag.StringVar(&o.bin, "bin", "bin/app", "the built binary (CGO_ENABLED=0 go build -o bin/app .)")
	flag.StringVar(&o.profile, "profile", "", "a directory for the server's heap, goroutine and CPU profiles")
	flag.IntVar(&o.sessions, "sessions", 5000, "phase 1: visitors with an open stream")
	flag.IntVar(&o.rate, "rate", 50, "phase 2: visitor messages a second")
	flag.IntVar(&o.seconds, "seconds", 10, "phase 2: how long")
	flag.IntVar(&o.apiCalls, "api-calls", 2000, "GET /orgs/c calls per p99 measurement")
	flag.IntVar(&o.apiRounds, "api-rounds", 10, "rounds of -api-calls idle then with the streams open; the p99 is of all rounds' calls (a busy machine's bursts move a single round's)")
	flag.DurationVar(&o.debounce, "debounce", 100*time.Millisecond, "assistants.debounce")
	flag.DurationVar(&o.tick, "tick", 250*time.Millisecond, "assistants.tick (how often the run worker looks for runs whose debounce is over)")
	flag.BoolVar(&o.keep, "keep", true, "phase 2 runs with phase 1's streams still open")
	flag.BoolVar(&o.verbose, "v", false, "pass the server's log through")
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
	srv, err := startServer(o.bin, o)
	if err != nil {
		return err
	}
	defer srv.stop()
	b := &bench{base: srv.base, token: srv.token,
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxConnsPerHost: 0}}}
	if err := b.setUp(); err != nil {
		return err
	}
	rssIdle, _ := srv.rss()
	idle, err := srv.memStats()
	if err != nil {
		return err
	}
	tokens, err := b.sessions(o.sessions)
	if err != nil {
		return err
	}
	// A first pass warms the server (its caches, the client's connection, the set-up's
	// leftover work) and is not counted: the idle p99 was otherwise the higher one.
	if _, err := b.apiCalls(o.apiCalls); err != nil {
		return err
	}
	// Rounds alternate: calls with no stream open, then with the streams open (held by
	// another process), then the streams closed again; the p99s are of all the rounds' calls
	// together, so a burst of the machine's in one round moves them less.
	var lat [2][]time.Duration  // idle, open
	var p99s [2][]time.Duration // each round's
	var cpu [2]time.Duration
	var rssStreams, peak int64
	var open mem
	for r := range max(1, o.apiRounds) {
		var h *holder
		for k := range 2 {
			if k == 1 {
				if h, err = b.hold(tokens); err != nil {
					return err
				}
				time.Sleep(2 * time.Second) // let the server settle: the opening burst's garbage collected
				if r == 0 {
					rssStreams, peak = srv.rss()
					if open, err = srv.memStats(); err != nil {
						return err
					}
					if err := srv.profiles(o.profile); err != nil {
						return err
					}
				}
			}
			cpu0 := srv.cpu()
			d, err := b.apiCalls(o.apiCalls)
			if err != nil {
				return err
			}
			cpu[k] += srv.cpu() - cpu0
			lat[k] = append(lat[k], d...)
			slices.Sort(d)
			p99s[k] = append(p99s[k], pct(d, 99).Round(time.Microsecond))
		}
		h.stop()
		srv.settle(idle.goroutines)
		time.Sleep(2 * time.Second) // as after the opening: the closing's garbage collected, its memory returned
	}
	per := func(a, b int64) float64 { return float64(b-a) / 1024 / float64(max(1, len(tokens))) }
	fmt.Printf("phase 1: %d visitor streams open: server RSS %d -> %d MB (peak %d MB), Go heap in use %d -> %d MB, stacks %d -> %d MB, goroutines %d -> %d\n",
		len(tokens), rssIdle>>20, rssStreams>>20, peak>>20, idle.heap>>20, open.heap>>20, idle.stacks>>20, open.stacks>>20,
		idle.goroutines, open.goroutines)
	fmt.Printf("phase 1: per stream: RSS %.1f KB, heap %.1f KB, stacks %.1f KB, %.1f goroutines\n", per(rssIdle, rssStreams),
		per(idle.heap, open.heap), per(idle.stacks, open.stacks), float64(open.goroutines-idle.goroutines)/float64(max(1, len(tokens))))
	for k := range lat {
		slices.Sort(lat[k])
	}
	p99Idle, p99Streams := pct(lat[0], 99), pct(lat[1], 99)
	fmt.Printf("phase 1: GET /orgs/c p99 %v idle, %v with the streams open (%+.0f%%), over %d calls each in %d alternating rounds\n",
		p99Idle, p99Streams, change(p99Idle, p99Streams), len(lat[0]), len(p99s[0]))
	// A burst of the machine's moves the p99 of the round it falls in; the median of the
	// rounds' p99s is what most rounds saw.
	medIdle, medStreams := median(p99s[0]), median(p99s[1])
	fmt.Printf("phase 1: GET /orgs/c median of the rounds' p99s %v idle, %v with the streams open (%+.0f%%); each round's: idle %v; open %v\n",
		medIdle, medStreams, change(medIdle, medStreams), p99s[0], p99s[1])
	fmt.Printf("phase 1: GET /orgs/c p50 %v idle, %v with the streams open\n", pct(lat[0], 50), pct(lat[1], 50))
	// The server's CPU over the calls, all of it (the collector, heartbeats, anything the open
	// streams make it do): unlike a p99, a busy machine does not move it much.
	calls := time.Duration(len(lat[0]))
	fmt.Printf("phase 1: server CPU a GET /orgs/c (everything the server did meanwhile, by calls) %v idle, %v with the streams open\n",
		cpu[0]/calls, cpu[1]/calls)
	if o.keep {
		h, err := b.hold(tokens)
		if err != nil {
			return err
		}
		defer h.stop()
	}
	var stopCPU func() error = func() error { return nil }
	if o.profile != "" {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- srv.profile(ctx, fmt.Sprintf("profile?seconds=%d", o.seconds+1), filepath.Join(o.profile, "cpu.pb.gz"))
		}()
		stopCPU = func() error { err := <-done; cancel(); return err }
	}
	first, err := b.firstTokens(o)
	if err != nil {
		return err
	}
	if err := stopCPU(); err != nil {
		return err
	}
	slices.Sort(first)
	fmt.Printf("phase 2: %d visitor messages at %d/s (%d other streams open): POST to first token minus debounce (%v): p50 %v, p90 %v, p99 %v, max %v\n",
		len(first), o.rate, openCount(o, tokens), o.debounce, pct(first, 50), pct(first, 90), pct(first, 99), first[len(first)-1])
	return nil
}

func openCount(o options, tokens []string) int {
	if o.keep {
		return len(tokens)
	}
	return 0
}

func pct(d []time.Duration, p int) time.Duration { return d[min(len(d)-1, len(d)*p/100)] }

// median of durations (not sorted; not changed).
func median(d []time.Duration) time.Duration {
	s := slices.Sorted(slices.Values(d))
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

// change is b against a in percent.
func change(a, b time.Duration) float64 { return 100 * (float64(b)/float64(a) - 1) }

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

// sessions starts n visitor sessions, each writing once, 32 at a time: their tokens.
func (b *bench) sessions(n int) ([]string, error) {
	return parallel(n, func(int) (string, error) {
		tok, _, err := b.visitor("hello")
		return tok, err
	})
}

// parallel runs f for 0..n-1 on 32 goroutines and answers the results in order, with the
// first error met.
func parallel[T any](n int, f func(i int) (T, error)) ([]T, error) {
	out := make([]T, n)
	errs := make(chan error, n)
	work := make(chan int)
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for i := range work {
				v, err := f(i)
				if err != nil {
					errs <- err
				}
				out[i] = v
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	return out, <-errs
}

// apiCalls times n sequential authenticated GET /orgs/c.
func (b *bench) apiCalls(n int) ([]time.Duration, error) {
	d := make([]time.Duration, n)
	for i := range d {
		start := time.Now()
		if err := b.call("GET", "/orgs/c", b.token, nil, 200, nil); err != nil {
			return nil, err
		}
		d[i] = time.Since(start)
	}
	return d, nil
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
