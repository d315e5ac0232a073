// Command runs measures assistant runs end to end, in-process: the runtime `app serve`
// builds (cli.Build, real clock, a fresh SQLite file) behind a real HTTP server, with a local
// OpenAI-compatible fake as the model provider that answers at once. Contact messages are
// posted through the API and answers watched over the SSE routes. It measures throughput
// (runs per second, many chats in parallel, one run each), first token (how long the service
// adds between the fake flushing its first chunk and a chat stream client reading the first
// delta, one run at a time) and fan-out (many clients watching one chat, each must get every
// delta; the lag from the fake flushing a chunk to each client reading it).
//
//	go run ./bench/runs -runs 1000 -latency-runs 200 -fanout-runs 10
//
// See bench/runs/README.md.
package main

import (
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
	"slices"
	"sync"
	"time"

	"wsapi/bench/internal/measure"
	"wsapi/cli"
)

type options struct {
	runs, workers, posters, tokens int
	latencyRuns, watchers, fanRuns int
	gap, flush                     time.Duration
	cpuprofile, fanprofile         string
}

func main() {
	var o options
	flag.IntVar(&o.runs, "runs", 2000, "throughput phase: chats, one contact message (one run) each")
	flag.IntVar(&o.workers, "workers", 32, "assistants.workers (runs at once)")
	flag.IntVar(&o.posters, "posters", 16, "clients posting contact messages in parallel")
	flag.IntVar(&o.tokens, "tokens", 50, "content chunks (tokens) per answer")
	flag.IntVar(&o.latencyRuns, "latency-runs", 200, "first-token phase: runs, one at a time")
	flag.IntVar(&o.watchers, "watchers", 100, "fan-out phase: SSE clients watching one chat")
	flag.IntVar(&o.fanRuns, "fanout-runs", 10, "fan-out phase: runs in the watched chat")
	flag.DurationVar(&o.gap, "gap", 0, "pause of the fake between chunks (0: it answers at once)")
	flag.DurationVar(&o.flush, "flush", 250*time.Millisecond, "assistants.flush_interval")
	flag.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the throughput phase to this file")
	flag.StringVar(&o.fanprofile, "fanprofile", "", "write a CPU profile of the fan-out phase to this file")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// bench is the running service and a client of its API.
type bench struct {
	o      options
	base   string // the API's URL
	token  string
	client *http.Client
	fake   *fakeOpenAI
	asst   string
}

func run(o options) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "bench-runs-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fake := &fakeOpenAI{tokens: o.tokens, gap: o.gap, sent: map[string][]time.Time{}}
	provider := httptest.NewServer(fake)
	defer provider.Close()

	cfg := cli.DefaultConfig()
	cfg.DB.Path = filepath.Join(dir, "bench.db")
	cfg.Secrets.KeyFile = filepath.Join(dir, "app.key")
	cfg.HTTP.RateLimitPerMinute = 1 << 30
	// Every watcher of the fan-out phase streams with one key, past that key's default cap.
	cfg.Events.MaxStreamsPerKey = max(cfg.Events.MaxStreamsPerKey, o.watchers)
	cfg.Events.MaxStreamsPerMember = max(cfg.Events.MaxStreamsPerMember, o.watchers)
	cfg.Events.MaxStreamsPerIP = max(cfg.Events.MaxStreamsPerIP, o.watchers)
	cfg.Models.Default = "fake:bench-model"
	cfg.Models.Providers = map[string]cli.ModelProvider{"fake": {Type: "openai", BaseURL: provider.URL + "/v1",
		APIKey: "sk-bench", Timeout: 30 * time.Second}}
	cfg.Assistants.Workers = o.workers
	cfg.Assistants.Debounce = 0 // every message is a run of its own chat: nothing to merge
	cfg.Assistants.FlushInterval = o.flush
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

	b := &bench{o: o, base: srv.URL + "/orgs/c", token: nk.Token, fake: fake,
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 512}}}
	var a struct{ ID string }
	if err := b.call("POST", "/assistants", map[string]any{"name": "Bench"}, 201, &a); err != nil {
		return err
	}
	b.asst = a.ID
	chats, err := b.makeChats(max(o.runs, o.latencyRuns) + 1)
	if err != nil {
		return err
	}

	stop, err := measure.StartCPUProfile(o.cpuprofile)
	if err != nil {
		return err
	}
	tp, err := b.throughput(chats[:o.runs])
	stop()
	if err != nil {
		return err
	}
	first, err := b.firstToken(chats[:o.latencyRuns])
	if err != nil {
		return err
	}
	if stop, err = measure.StartCPUProfile(o.fanprofile); err != nil {
		return err
	}
	fan, err := b.fanOut(chats[len(chats)-1])
	stop()
	if err != nil {
		return err
	}
	b.report(tp, first, fan)
	return nil
}

// call sends a JSON request to the organization's API and decodes the answer into out.
func (b *bench) call(method, path string, body any, want int, out any) error {
	var rd io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	req, _ := http.NewRequest(method, b.base+path, rd)
	req.Header.Set("Authorization", "Bearer "+b.token)
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

// parallel runs fn(i) for i < n on k goroutines and answers the first error.
func parallel(n, k int, fn func(i int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  int
	)
	for range k {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				stop := first != nil
				mu.Unlock()
				if i >= n || stop {
					return
				}
				if err := fn(i); err != nil {
					mu.Lock()
					first = cmp(first, err)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return first
}

func cmp(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// makeChats makes n contacts, each with a chat with the assistant, and answers the chat ids.
func (b *bench) makeChats(n int) ([]string, error) {
	chats := make([]string, n)
	err := parallel(n, 8, func(i int) error {
		var c, ch struct{ ID string }
		if err := b.call("POST", "/contacts", map[string]any{"name": fmt.Sprintf("Contact %d", i),
			"channels": []map[string]any{{"type": "custom", "user_id": fmt.Sprintf("bench-%d", i)}}}, 201, &c); err != nil {
			return err
		}
		if err := b.call("POST", "/chats", map[string]any{"contact_id": c.ID, "assistant_id": b.asst}, 201, &ch); err != nil {
			return err
		}
		chats[i] = ch.ID
		return nil
	})
	return chats, err
}

// say posts a contact message carrying marker to a chat.
func (b *bench) say(chat, marker string) error {
	text := "What do you know about @k=" + marker + "@?"
	return b.call("POST", "/chats/"+chat+"/messages", map[string]any{"role": "user",
		"messages": []map[string]any{{"role": "user", "parts": []map[string]any{{"type": "text", "text": text}}}}}, 201, nil)
}

// runMessage is what the bench reads of a message event.
type runMessage struct {
	ID, Role, Status string
	ChatID           string `json:"chat_id"`
}

func (m runMessage) final() bool {
	return m.Role == "assistant" && m.Status != "RUNNING"
}

// pct is the p-th quantile of sorted durations.
func pct(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[min(len(d)-1, int(p*float64(len(d))))]
}

// tally is a set of latencies and what they are of.
type tally struct {
	what string
	lat  []time.Duration
	cpu  time.Duration // the process's CPU time over the phase, the bench's clients included
}

// timeCPU starts counting the CPU time of a phase; call what it answers at the end.
func (t *tally) timeCPU() func() {
	start := measure.CPUTime()
	return func() { t.cpu = measure.CPUTime() - start }
}

func (t tally) row() string {
	slices.Sort(t.lat)
	return fmt.Sprintf("| %s | %d | %s | %s | %s | %s | %s |", t.what, len(t.lat), pct(t.lat, 0.5).Round(time.Microsecond),
		pct(t.lat, 0.99).Round(time.Microsecond), t.lat[len(t.lat)-1].Round(time.Microsecond), mean(t.lat).Round(time.Microsecond),
		(t.cpu / time.Duration(max(1, len(t.lat)))).Round(time.Microsecond))
}

func mean(d []time.Duration) time.Duration {
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return sum / time.Duration(max(1, len(d)))
}
