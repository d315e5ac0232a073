// Command channels measures the messaging apps' channel with the server in its own process:
// this program starts a local Telegram Bot API server (app/channel/telegram/telegramtest),
// then runs `app serve` (this very binary, re-executed) on a fresh SQLite file with
// channels.telegram.api_url pointing at it, and 10 organizations with a bot each.
//
// Phase 1 (inbound): -in-rate updates a second for -seconds, posted as Telegram does to
// /hooks/telegram/{asi} (secret header, JSON Update), spread over the 10 bots and 50 users of
// each; it reports the acknowledgement's p50/p99 and how long the inbound worker took to
// take every update in (all chats and messages in the inbox).
//
// Phase 2 (outbound): -out-rate member replies a second for -seconds through the JSON API;
// the delivery worker sends them to the Bot API server; it reports the time from the API's
// answer to the sendMessage arriving, p50/p99 overall and per organization.
//
//	go run ./bench/channels -in-rate 500 -out-rate 200 -seconds 10
//
// See bench/channels/README.md.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"wsapi/app/channel/telegram/telegramtest"
	"wsapi/cli"
)

const orgs = 10

type options struct {
	inRate, outRate, seconds int
}

func main() {
	if os.Getenv("BENCH_CHANNELS_APP") == "1" { // the re-executed server and admin commands
		cli.Execute()
		return
	}
	// The client stands in for the providers' servers, which run elsewhere: with a Go
	// processor per core its goroutine reading an answer waited for one behind those writing
	// the next requests, which counted in the server's latency. It runs with as many
	// processors as serve does (cli/procs.go).
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(max(4, runtime.GOMAXPROCS(0)))
	}
	var o options
	flag.IntVar(&o.inRate, "in-rate", 500, "phase 1: updates a second")
	flag.IntVar(&o.outRate, "out-rate", 200, "phase 2: member replies a second")
	flag.IntVar(&o.seconds, "seconds", 10, "length of each phase")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// tenant is one organization: its key, bot and integration.
type tenant struct {
	key, token, asi, asst string
	chats                 []string
}

func run(o options) error {
	dir, err := os.MkdirTemp("", "bench-channels")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	tg := telegramtest.Start()
	defer tg.Close()
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	metricsAddr, err := freeAddr()
	if err != nil {
		return err
	}
	env := append(os.Environ(), "BENCH_CHANNELS_APP=1", "APP_DB_PATH="+filepath.Join(dir, "app.db"),
		"APP_HTTP_ADDR="+addr, "APP_HTTP_PUBLIC_URL=http://"+addr, "APP_HTTP_RATE_LIMIT_PER_MINUTE=0",
		"APP_CHANNELS_TELEGRAM_API_URL="+tg.URL, "APP_CHANNELS_TELEGRAM_RATE_PER_SECOND=0",
		"APP_CHANNELS_DELIVERY_WORKERS=16", "APP_LOG_LEVEL=warn",
		"APP_METRICS_ADDR="+metricsAddr)
	if _, err := admin(env, "migrate", "up"); err != nil {
		return err
	}
	ts := make([]*tenant, orgs)
	for i := range ts {
		if ts[i], err = newTenant(env, i); err != nil {
			return err
		}
		tg.AddBot(ts[i].token, fmt.Sprintf("bench%d_bot", i))
	}
	srv, err := serve(env, addr)
	if err != nil {
		return err
	}
	defer srv.stop()
	base := "http://" + addr
	for _, t := range ts {
		if err := t.setUp(base, tg); err != nil {
			return err
		}
	}
	fmt.Printf("server pid %d at %s, Bot API at %s; load average %s\n", srv.cmd.Process.Pid, base, tg.URL, loadavg())
	if err := inbound(o, base, metricsAddr, tg, ts); err != nil {
		return err
	}
	fmt.Printf("load average %s\n", loadavg())
	if err := outbound(o, base, tg, ts); err != nil {
		return err
	}
	fmt.Printf("load average %s\n", loadavg())
	return nil
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// admin runs an admin command of the binary and answers its output.
func admin(env []string, args ...string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	cmd := exec.Command(self, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

var orgID, token = regexp.MustCompile(`org_[A-Za-z0-9]+`), regexp.MustCompile(`sk_[A-Za-z0-9]+`)

func newTenant(env []string, i int) (*tenant, error) {
	out, err := admin(env, "orgs", "create", "--name", fmt.Sprintf("Org %d", i))
	if err != nil {
		return nil, err
	}
	out, err = admin(env, "keys", "create", "--name", "bench", "--org", orgID.FindString(out))
	if err != nil {
		return nil, err
	}
	return &tenant{key: token.FindString(out), token: fmt.Sprintf("%d:AAH-bench", 7000+i)}, nil
}

// server is the `app serve` child process.
type server struct{ cmd *exec.Cmd }

func serve(env []string, addr string) (*server, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "serve")
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	for start := time.Now(); time.Since(start) < 60*time.Second; time.Sleep(50 * time.Millisecond) {
		if res, err := http.Get("http://" + addr + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return &server{cmd: cmd}, nil
			}
		}
	}
	cmd.Process.Kill()
	return nil, fmt.Errorf("the server did not get ready")
}

func (s *server) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
	}
}

var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 512}, Timeout: 30 * time.Second}

// call makes one API call and decodes its answer into out (nil: ignored).
func call(method, url, key string, body, out any, header ...string) (int, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, url, rd)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if out != nil && res.StatusCode < 300 {
		return res.StatusCode, json.Unmarshal(data, out)
	}
	if res.StatusCode >= 300 {
		return res.StatusCode, fmt.Errorf("%s %s: %d %s", method, url, res.StatusCode, data)
	}
	return res.StatusCode, nil
}

// setUp makes the tenant's assistant and its bot's integration, disabled: contacts' messages
// land in the inbox and nothing answers (the outbound phase sends members' replies).
func (t *tenant) setUp(base string, tg *telegramtest.Server) error {
	var a, d map[string]any
	if _, err := call("POST", base+"/orgs/c/assistants", t.key, map[string]any{"name": "Bench"}, &a); err != nil {
		return err
	}
	t.asst = a["id"].(string)
	if _, err := call("POST", base+"/orgs/c/assistants/"+t.asst+"/integrations", t.key, map[string]any{
		"integration_id": "telegram", "name": "bot", "enabled": false, "secrets": map[string]string{"bot_token": t.token}}, &d); err != nil {
		return err
	}
	if d["status"] != "ACTIVE" {
		return fmt.Errorf("integration %v", d)
	}
	t.asi = d["id"].(string)
	return nil
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:3], " ")
}

// quantile of sorted durations.
func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[min(len(d)-1, int(q*float64(len(d))))]
}

// paced calls f n times at rate a second, each on its own goroutine, and waits for all.
func paced(rate, n int, f func(i int)) {
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		if wait := time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(rate))); wait > 0 {
			time.Sleep(wait)
		}
		wg.Add(1)
		go func() { defer wg.Done(); f(i) }()
	}
	wg.Wait()
}
