package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// server is the built binary serving in a process of its own, on a fresh directory.
type server struct {
	cmd   *exec.Cmd
	dir   string
	base  string // the API's address
	pprof string // its pprof listener
	token string // the first-start admin token
}

// freeAddr answers a loopback address nothing listens on.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

var bannerToken = regexp.MustCompile(`Bearer (\S+)" `)

// startServer runs `bin serve` with the bench's settings (env: the configuration's APP_*
// variables) and waits for its first-start banner and /healthz.
func startServer(bin string, o options) (*server, error) {
	dir, err := os.MkdirTemp("", "bench-widget-")
	if err != nil {
		return nil, err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	paddr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		return nil, err
	}
	s := &server{dir: dir, base: "http://" + addr, pprof: "http://" + paddr}
	s.cmd = exec.Command(abs, "serve")
	s.cmd.Dir = dir
	s.cmd.Env = append(os.Environ(),
		"APP_HTTP_ADDR="+addr, "APP_DEBUG_PPROF_ADDR="+paddr, "APP_LOG_LEVEL=warn",
		"APP_HTTP_RATE_LIMIT_PER_MINUTE=0", // one address plays every visitor
		"APP_EVENTS_MAX_STREAMS_PER_IP=10000",
		"APP_ASSISTANTS_DEBOUNCE="+o.debounce.String(), "APP_ASSISTANTS_TICK="+o.tick.String(),
		"APP_CHANNELS_WIDGET_SESSIONS_PER_MINUTE_PER_IP=0", "APP_CHANNELS_WIDGET_MESSAGES_PER_MINUTE_PER_SESSION=0",
		"APP_CHANNELS_WIDGET_MESSAGES_PER_MINUTE_PER_IP=0", "APP_CHANNELS_WIDGET_MESSAGES_PER_MINUTE_PER_INTEGRATION=0",
		"APP_CHANNELS_WIDGET_STREAMS_PER_IP=0", "APP_CHANNELS_WIDGET_STREAMS_PER_INTEGRATION=0")
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	tokens := make(chan string, 1)
	go func() { // the banner's token; the rest of the log goes on to our stderr
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := bannerToken.FindStringSubmatch(sc.Text()); m != nil {
				tokens <- m[1]
			} else if o.verbose {
				fmt.Fprintln(os.Stderr, "server:", sc.Text())
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	select {
	case s.token = <-tokens:
	case <-time.After(60 * time.Second):
		s.stop()
		return nil, fmt.Errorf("no first-start banner from %s within 60 s", bin)
	}
	for range 600 {
		if res, err := http.Get(s.base + "/healthz"); err == nil {
			res.Body.Close()
			return s, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.stop()
	return nil, fmt.Errorf("%s does not answer /healthz", bin)
}

// stop ends the server (SIGINT: its graceful drain) and removes its directory.
func (s *server) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
	os.RemoveAll(s.dir)
}

// rss answers the server's resident memory now and its peak so far, in bytes (Linux).
func (s *server) rss() (now, peak int64) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(s.cmd.Process.Pid) + "/status")
	if err != nil {
		return 0, 0
	}
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			now = kb << 10
		case "VmHWM:":
			peak = kb << 10
		}
	}
	return now, peak
}

// cpu is the CPU time the server has used (user and system), from /proc/PID/stat; 0 when
// it cannot be read. Its unit is the clock tick, which Linux fixes at 10 ms for this file.
func (s *server) cpu() time.Duration {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(s.cmd.Process.Pid) + "/stat")
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses and may hold spaces.
	_, rest, ok := strings.Cut(string(data), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// mem is the server's memory as its runtime sees it.
type mem struct {
	heap, stacks int64 // heap in use, goroutine stacks in use
	goroutines   int
}

// memStats runs a collection in the server and answers its Go heap and stacks in use and its
// goroutines, from its pprof listener.
func (s *server) memStats() (m mem, err error) {
	res, err := http.Get(s.pprof + "/debug/pprof/heap?debug=1&gc=1")
	if err != nil {
		return m, err
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "# HeapInuse = "); ok {
			m.heap, _ = strconv.ParseInt(v, 10, 64)
		}
		if v, ok := strings.CutPrefix(sc.Text(), "# Stack = "); ok { // "in use / from the system"
			inuse, _, _ := strings.Cut(v, " ")
			m.stacks, _ = strconv.ParseInt(inuse, 10, 64)
		}
	}
	res2, err := http.Get(s.pprof + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		return m, err
	}
	defer res2.Body.Close()
	first, _ := bufio.NewReader(res2.Body).ReadString('\n') // "goroutine profile: total N"
	m.goroutines, _ = strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(first, "goroutine profile: total ")))
	return m, nil
}

// profile saves the server's profile kind (heap, goroutine, profile?seconds=N) under path.
func (s *server) profile(ctx context.Context, kind, path string) error {
	req, _ := http.NewRequestWithContext(ctx, "GET", s.pprof+"/debug/pprof/"+kind, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(f, res.Body)
	return err
}

// profiles saves the server's heap and goroutine profiles into dir ("" saves none).
func (s *server) profiles(dir string) error {
	if dir == "" {
		return nil
	}
	for _, kind := range []string{"heap", "goroutine"} {
		if err := s.profile(context.Background(), kind, filepath.Join(dir, kind+".pb.gz")); err != nil {
			return err
		}
	}
	return nil
}
