// Command email measures the email channel's SMTP listener in the built server, run as its own
// process: a sustained rate of inbound mail (mixed sizes, some with attachments, some replies
// that must thread into their chat) with the acceptance latency of each, then the server's RSS
// while one 25 MB mail arrives. See README.md.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	bin := flag.String("bin", "", "the server binary (default: go build . into a temp dir)")
	rate := flag.Int("rate", 100, "mails a second")
	seconds := flag.Int("seconds", 10, "seconds of sustained load")
	bigMB := flag.Int("big", 25, "size of the big mail in MB (0: skip)")
	profiles := flag.String("profile", "", "a directory: the server's heap profiles around the big mail and its CPU profile of the sustained phase are written there")
	serverLog := flag.String("serverlog", "", "a file: the server's standard error is copied there (with GODEBUG=gctrace=1, its GC trace)")
	flag.Parse()
	dir, err := os.MkdirTemp("", "bench-email-")
	check(err)
	defer os.RemoveAll(dir)
	if *bin == "" {
		*bin = filepath.Join(dir, "app")
		out, err := exec.Command("go", "build", "-o", *bin, ".").CombinedOutput()
		if err != nil {
			log.Fatalf("go build: %v\n%s", err, out)
		}
	}
	srv := start(*bin, dir, *profiles != "", *serverLog)
	defer srv.stop()
	api := &client{base: srv.http, token: srv.token}
	setup(api)
	fmt.Printf("load average before: %s\n", loadavg())
	if *bigMB > 0 {
		srv.heapProfile(*profiles, "heap-before-big.pb.gz")
		bigMail(srv, api, *bigMB)
		srv.heapProfile(*profiles, "heap-after-big.pb.gz")
	}
	cpu := srv.cpuProfile(*profiles, "cpu-sustained.pb.gz", *seconds+1)
	sustained(srv, api, *rate, *seconds)
	cpu()
	fmt.Printf("load average after: %s\n", loadavg())
}

// server is the running `app serve`.
type server struct {
	cmd        *exec.Cmd
	http, smtp string
	token      string
	pprof      string // the server's debug.pprof_addr, "" when not profiling
}

func start(bin, dir string, profile bool, serverLog string) *server {
	httpPort, smtpPort := freePort(), freePort()
	pprofAddr := ""
	if profile {
		pprofAddr = fmt.Sprintf("127.0.0.1:%d", freePort())
	}
	cfg := fmt.Sprintf(`db:
  path: %s
http:
  addr: 127.0.0.1:%d
  rate_limit_per_minute: 0
log:
  level: warn
dns:
  resolver: %s
assistants:
  debounce: 8760h   # no runs: the listener, parsing and threading are measured, not the assistant
email:
  inbound:
    addr: 127.0.0.1:%d
    max_connections_per_ip: 0
    messages_per_minute_per_ip: 0
debug:
  pprof_addr: "%s"
`, filepath.Join(dir, "app.db"), httpPort, startDNS(), smtpPort, pprofAddr)
	path := filepath.Join(dir, "config.yaml")
	check(os.WriteFile(path, []byte(cfg), 0o600))
	cmd := exec.Command(bin, "serve", "--config", path)
	stderr, err := cmd.StderrPipe()
	check(err)
	check(cmd.Start())
	s := &server{cmd: cmd, http: fmt.Sprintf("http://127.0.0.1:%d", httpPort), smtp: fmt.Sprintf("127.0.0.1:%d", smtpPort), pprof: pprofAddr}
	copyTo := io.Discard
	if serverLog != "" {
		f, err := os.OpenFile(serverLog, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
		check(err)
		copyTo = f
	}
	tokens := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		next := false
		for sc.Scan() {
			fmt.Fprintln(copyTo, sc.Text())
			line := strings.TrimSpace(sc.Text())
			if next && line != "" {
				tokens <- line
				next = false
			}
			next = next || strings.Contains(line, "API admin token")
		}
	}()
	select {
	case s.token = <-tokens:
	case <-time.After(60 * time.Second):
		log.Fatal("the server printed no admin token")
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", s.smtp); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			log.Fatal("the SMTP listener did not open")
		}
	}
	return s
}

func (s *server) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	s.cmd.Wait()
}

// rss is the server's resident set (VmRSS) in bytes.
func (s *server) rss() int64 { return procKB(s.cmd.Process.Pid, "VmRSS:") * 1024 }

func procKB(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	check(err)
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, field) {
			n, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			return n
		}
	}
	return 0
}

// setup makes a domain, the identity help@bench.example, an assistant and its email
// integration (inbound smtp). The identity stays unverified (no DNS here): the integration is
// FAILED for replies, and the listener still takes its mail.
func setup(c *client) {
	c.do("POST", "/orgs/c/domains", map[string]any{"domain": "bench.example"}, nil)
	var id, asst map[string]any
	c.do("POST", "/orgs/c/emails/identities", map[string]any{"email": "help@bench.example"}, &id)
	c.do("POST", "/orgs/c/assistants", map[string]any{"name": "Bench"}, &asst)
	c.do("POST", "/orgs/c/assistants/"+asst["id"].(string)+"/integrations", map[string]any{"integration_id": "email",
		"name": "help", "config": map[string]any{"identity_id": id["id"], "inbound": "smtp"}}, nil)
}

type client struct{ base, token string }

func (c *client) do(method, path string, body, out any) http.Header {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.base+path, r)
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	check(err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		log.Fatalf("%s %s: %d %s", method, path, res.StatusCode, b)
	}
	if out != nil {
		check(json.Unmarshal(b, out))
	}
	return res.Header
}

// send delivers one mail over a fresh SMTP connection and answers how long until the 250
// after the data. It speaks SMTP itself (net/textproto for the replies) and writes the data
// dot-stuffed in one write, as a relay does: go-smtp's client stuffs it a byte at a time
// (6.5 ns a byte, 9 ms of the two cores for a mail of 1.4 MB), which counted in the server's
// latency.
func send(addr, from string, mail []byte) (time.Duration, error) {
	start := time.Now()
	conn, err := net.Dial("tcp", addr) // plain: the listener has no certificate here
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	c := textproto.NewConn(conn)
	step := func(code int, format string, args ...any) error {
		if format != "" {
			if err := c.PrintfLine(format, args...); err != nil {
				return err
			}
		}
		_, _, err := c.ReadResponse(code)
		return err
	}
	for _, s := range []struct {
		code int
		cmd  string
		arg  string
	}{{220, "", ""}, {250, "EHLO %s", "bench.client"}, {250, "MAIL FROM:<%s>", from},
		{250, "RCPT TO:<%s>", "help@bench.example"}, {354, "DATA%s", ""}} {
		if s.cmd == "" {
			err = step(s.code, "")
		} else {
			err = step(s.code, s.cmd, s.arg)
		}
		if err != nil {
			return 0, err
		}
	}
	data := bytes.ReplaceAll(mail, []byte("\r\n."), []byte("\r\n.."))
	if bytes.HasPrefix(data, []byte(".")) {
		data = append([]byte("."), data...)
	}
	if !bytes.HasSuffix(data, []byte("\r\n")) {
		data = append(data, "\r\n"...)
	}
	if _, err := conn.Write(append(data, ".\r\n"...)); err != nil {
		return 0, err
	}
	if err := step(250, ""); err != nil {
		return 0, err
	}
	took := time.Since(start)
	return took, step(221, "QUIT")
}

func freePort() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

// heapProfile saves the server's heap profile (allocations since it started included: the
// difference of two shows what one phase allocated) into dir; nothing without -profile.
func (s *server) heapProfile(dir, name string) {
	if s.pprof == "" || dir == "" {
		return
	}
	s.saveProfile("http://"+s.pprof+"/debug/pprof/heap?gc=1", filepath.Join(dir, name))
}

// cpuProfile starts a CPU profile of seconds and answers a wait for it to be saved.
func (s *server) cpuProfile(dir, name string, seconds int) (wait func()) {
	if s.pprof == "" || dir == "" {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.saveProfile(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", s.pprof, seconds), filepath.Join(dir, name))
	}()
	time.Sleep(100 * time.Millisecond) // the profile runs before the first mail
	return func() { <-done }
}

func (s *server) saveProfile(url, path string) {
	res, err := http.Get(url)
	check(err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	check(err)
	check(os.MkdirAll(filepath.Dir(path), 0o700))
	check(os.WriteFile(path, b, 0o600))
}

// schedstat sums the server's threads' time on a CPU and time runnable but waiting for one
// (/proc/PID/task/*/schedstat): on a shared machine the second says how much of a latency
// was other processes' doing.
func (s *server) schedstat() (run, wait time.Duration) {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", s.cmd.Process.Pid))
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) < 2 {
			continue
		}
		r, _ := strconv.ParseInt(f[0], 10, 64)
		w, _ := strconv.ParseInt(f[1], 10, 64)
		run, wait = run+time.Duration(r), wait+time.Duration(w)
	}
	return run, wait
}
