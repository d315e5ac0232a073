package cli_test

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"wsapi/cli"
)

// runAsApp, set in the environment of the processes the tests start, makes this test binary
// be `app` itself: TestMain hands its arguments to cli.Execute, the whole of main. The tests
// of the real process (serve, signals, backups, admin commands) then start in the time a
// fork takes instead of waiting for `go build` to link the full binary.
const runAsApp = "WSAPI_TEST_BINARY_RUNS_APP"

// The shipped binary, built once, for the one test of what only `go build` stamps.
var (
	binDir   string
	binOnce  sync.Once
	binPath  string
	binError error
)

func TestMain(m *testing.M) {
	if os.Getenv(runAsApp) == "1" {
		cli.Execute()
		os.Exit(0)
	}
	// Every process a test starts from appBinary runs as app; the variable means nothing to
	// any other program.
	os.Setenv(runAsApp, "1")
	var err error
	if binDir, err = os.MkdirTemp("", "wsapi-bin-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(binDir)
	os.Exit(code)
}

// appBinary is the program to start as `app`: this test binary (TestMain).
func appBinary(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// builtBinary builds `app` (cgo-free, as shipped) the first time a test asks for it.
func builtBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binPath = filepath.Join(binDir, "app")
		// -buildvcs=auto: stamp the commit as a plain `go build` does (GOFLAGS may turn it off).
		// No symbols or DWARF: the version stamp is all its one test reads, and linking them doubled the time.
		cmd := exec.Command("go", "build", "-buildvcs=auto", "-ldflags=-s -w", "-o", binPath, "wsapi")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			binError = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binError != nil {
		t.Fatal(binError)
	}
	return binPath
}

// serveProc is one `app serve` process, listening on addr.
type serveProc struct {
	proc
	addr string
}

var servingRE = regexp.MustCompile(`msg=serving addr=(\S+)`)

// startServer runs `app serve` on a free port against db, in dir, with extra environment,
// and waits until it listens.
func startServe(t *testing.T, dir, db string, env ...string) *serveProc {
	t.Helper()
	return startServeAt(t, dir, db, "127.0.0.1:0", env...)
}

// startServeAt is startServe on a chosen address (a restart that clients find again).
func startServeAt(t *testing.T, dir, db, listenAddr string, env ...string) *serveProc {
	t.Helper()
	cmd := binCmd(t, dir, env, "serve", "--addr", listenAddr, "--db", db)
	s := &serveProc{}
	addr := make(chan string, 1)
	s.start(t, "serve", cmd, cmd.StderrPipe, func(line string) {
		s.mu.Lock()
		s.stderr.WriteString(line + "\n")
		s.mu.Unlock()
		if m := servingRE.FindStringSubmatch(line); m != nil {
			addr <- m[1]
		}
	})
	select {
	case s.addr = <-addr:
	case <-s.done:
		t.Fatalf("serve exited early: %v\n%s", s.err, s.log())
	case <-time.After(20 * time.Second):
		t.Fatalf("serve did not start:\n%s", s.log())
	}
	return s
}

// stop sends SIGTERM and answers the exit code.
func (s *serveProc) stop() int { return s.signal(syscall.SIGTERM) }

var bannerTokenRE = regexp.MustCompile(`sk_[0-9A-Za-z]{43}`)

// TestServeBootstrapOnce: the first start prints one admin token in a banner (never through
// the logger), the second start none; SIGTERM exits 0.
func TestServeBootstrapOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "app.db")

	s := startServe(t, dir, db)
	tokens := map[string]bool{}
	for _, tok := range bannerTokenRE.FindAllString(s.log(), -1) {
		tokens[tok] = true
	}
	if len(tokens) != 1 || strings.Count(s.log(), "First start") != 1 {
		t.Fatalf("want one banner with one token, stderr:\n%s", s.log())
	}
	var token string
	for tok := range tokens {
		token = tok
	}
	for _, line := range strings.Split(s.log(), "\n") {
		if strings.HasPrefix(line, "time=") && strings.Contains(line, token) {
			t.Errorf("a log line carries the token: %s", line)
		}
	}
	if !strings.Contains(s.log(), "http://"+s.addr+"/orgs/c") {
		t.Errorf("the banner's example does not name the bound address %s:\n%s", s.addr, s.log())
	}
	status, org := call(t, "GET", "http://"+s.addr+"/orgs/c", token, nil)
	if status != 200 || org["name"] != "Default" {
		t.Fatalf("GET /orgs/c: %d %v", status, org)
	}
	if code := s.stop(); code != 0 {
		t.Fatalf("exit code %d after SIGTERM:\n%s", code, s.log())
	}
	if !strings.Contains(s.log(), "stopped") {
		t.Errorf("no clean stop in the log:\n%s", s.log())
	}
	if fi, err := os.Stat(filepath.Join(dir, "app.key")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("secrets key beside the database, 0600: %v %v", fi, err)
	}

	again := startServe(t, dir, db)
	if strings.Contains(again.log(), "sk_") || strings.Contains(again.log(), "First start") {
		t.Errorf("second start shows a token:\n%s", again.log())
	}
	if status, _ := call(t, "GET", "http://"+again.addr+"/orgs/c", token, nil); status != 200 {
		t.Errorf("the first token after a restart: %d", status)
	}
	if code := again.stop(); code != 0 {
		t.Fatalf("second exit code %d", code)
	}
}

// TestServeDrainsInFlightRequests: a request whose body is still arriving when SIGTERM comes
// is finished, then the process exits 0.
func TestServeDrainsInFlightRequests(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServe(t, dir, filepath.Join(dir, "app.db"))
	token := bannerTokenRE.FindString(s.log())

	body := `{"name":"Slow Sender","email":"slow@example.com"}`
	conn, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := fmt.Sprintf("POST /orgs/c/members HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n", s.addr, token, len(body))
	if _, err := io.WriteString(conn, head+body[:len(body)/2]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the server has read the headers and waits for the body
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	select {
	case <-s.done:
		t.Fatalf("exited with a request in flight:\n%s", s.log())
	default:
	}
	if _, err := io.WriteString(conn, body[len(body)/2:]); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the response: %v\n%s", err, s.log())
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode != 201 || !strings.Contains(string(data), "slow@example.com") {
		t.Fatalf("in-flight request answered %d %s", res.StatusCode, data)
	}
	if code := s.wait(); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, s.log())
	}
	// Request lines are written in batches; the drained request's line is not lost at exit.
	if !regexp.MustCompile(`msg=request .*method=POST route=/orgs/\{org\}/members status=201`).MatchString(s.log()) {
		t.Errorf("no request line for the drained request:\n%s", s.log())
	}
	// New connections are refused once the server is gone.
	if c, err := net.DialTimeout("tcp", s.addr, time.Second); err == nil {
		c.Close()
		t.Error("still accepting connections after exit")
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key, and answers their paths and a
// pool trusting the certificate.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "wsapi test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		IsCA:                  true,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile, pool
}

// TestServeHTTPS: http.tls.cert_file and key_file, given as APP_* variables, serve HTTPS.
func TestServeHTTPS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	certFile, keyFile, pool := selfSigned(t, dir)
	s := startServe(t, dir, filepath.Join(dir, "app.db"),
		"APP_HTTP_TLS_CERT_FILE="+certFile, "APP_HTTP_TLS_KEY_FILE="+keyFile)
	if !strings.Contains(s.log(), "https://") {
		t.Errorf("the banner should show an https address:\n%s", s.log())
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	status, body := callWith(t, client, "GET", "https://"+s.addr+"/healthz", "", nil)
	if status != 200 || body["status"] != "ok" {
		t.Fatalf("GET /healthz over TLS: %d %v", status, body)
	}
	// Plain HTTP on the TLS port gets no API answer.
	if res, err := http.Get("http://" + s.addr + "/healthz"); err == nil {
		res.Body.Close()
		if res.StatusCode == 200 {
			t.Error("plain HTTP answered 200 on the TLS listener")
		}
	}
	if code := s.stop(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

// TestBinaryErrors: failures print a message for people and exit 1, including those cobra
// and the configuration raise before a command runs.
func TestBinaryErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("http: {trusted_proxies: [nonsense]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	db := newDatabase(t, dir) // the domain error needs one: admin commands refuse without
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"missing required flag", []string{"keys", "create", "--db", db}, `"name"`},
		{"unknown command", []string{"frobnicate"}, "frobnicate"},
		{"unknown flag", []string{"keys", "list", "--nope", "--db", db}, "--nope"},
		{"wrong argument count", []string{"keys", "rotate", "--db", db}, "arg"},
		{"bad configuration", []string{"keys", "list", "--config", bad, "--db", db}, "trusted_proxies"},
		{"domain error", []string{"keys", "delete", "key_nope", "--db", db}, "not found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(appBinary(t), tc.args...)
			cmd.Dir = dir
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("exit %v, want 1", err)
			}
			if !strings.Contains(stderr.String(), "error:") || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr %q: want an error naming %q", stderr.String(), tc.want)
			}
			if n := strings.Count(stderr.String(), "error:"); n != 1 {
				t.Errorf("the error is printed %d times", n)
			}
		})
	}
}
