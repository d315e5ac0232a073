package cli_test

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// freeAddr is a loopback address with a port nobody listens on right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func fetch(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// TestServeMetricsListenerAndReadiness runs the real binary with metrics.addr and a drain
// delay: /metrics is on its own listener (not on the API's), counts the API's requests by
// route, and on SIGTERM /readyz turns 503 while requests are still served, before the
// process exits 0.
func TestServeMetricsListenerAndReadiness(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	metricsAddr := freeAddr(t)
	s := startServe(t, dir, filepath.Join(dir, "app.db"), "APP_METRICS_ADDR="+metricsAddr, "APP_HTTP_DRAIN_DELAY=2s")
	api := "http://" + s.addr

	for range 2 {
		if code, body := fetch(t, api+"/readyz"); code != 200 || !strings.Contains(body, `"ready"`) {
			t.Fatalf("readyz %d %s", code, body)
		}
	}
	if code, _ := fetch(t, api+"/metrics"); code != 404 {
		t.Fatalf("/metrics on the API listener without metrics.token: %d", code)
	}
	code, body := fetch(t, "http://"+metricsAddr+"/metrics")
	if code != 200 || !strings.Contains(body, `wsapi_http_requests_total{code="200",method="get",route="/readyz"} 2`) ||
		!strings.Contains(body, `wsapi_http_requests_total{code="404",method="get",route="(unmatched)"} 1`) ||
		!strings.Contains(body, "go_goroutines") {
		t.Fatalf("metrics listener: %d\n%s", code, body)
	}

	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		code, body := fetch(t, api+"/readyz")
		if code == 503 && strings.Contains(body, "not_ready") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("readyz still %d %s after SIGTERM", code, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code, _ := fetch(t, api+"/healthz"); code != 200 {
		t.Fatalf("requests are not served while draining: %d", code)
	}
	if exit := s.wait(); exit != 0 {
		t.Fatalf("exit %d\n%s", exit, s.log())
	}
	if !strings.Contains(s.log(), "draining: /readyz answers 503") {
		t.Errorf("no drain log line:\n%s", s.log())
	}
}

// TestBackupWritesKey: `app backup FILE` also writes FILE.key (0600), the secrets key the
// copy needs; a second backup to the same name refuses rather than overwrite.
func TestBackupWritesKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := newDatabase(t, dir)
	mustCLI(t, db, "keys", "create", "--name", "k")
	dst := filepath.Join(dir, "copy.db")
	out := mustCLI(t, db, "backup", dst)
	if !strings.Contains(out, dst+".key") {
		t.Errorf("output does not name the key copy: %q", out)
	}
	want, err := os.ReadFile(filepath.Join(dir, "app.key"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(dst + ".key")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("key copy %v differs or is missing", err)
	}
	if st, _ := os.Stat(dst + ".key"); st.Mode().Perm() != 0o600 {
		t.Errorf("key copy mode %v", st.Mode().Perm())
	}
	os.Remove(dst)
	if _, _, err := runCLI(t, db, "backup", dst); err == nil {
		t.Errorf("a backup over an existing key copy must fail")
	}
}

// TestServePprofOwnListener runs the real binary with debug.pprof_addr: /debug/pprof/ answers
// there (the index and a goroutine dump), and the API listener does not serve it.
func TestServePprofOwnListener(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pprofAddr := freeAddr(t)
	s := startServe(t, dir, filepath.Join(dir, "app.db"), "APP_DEBUG_PPROF_ADDR="+pprofAddr)
	code, body := fetch(t, "http://"+pprofAddr+"/debug/pprof/")
	if code != 200 || !strings.Contains(body, "goroutine") {
		t.Fatalf("pprof index on its listener: %d\n%s", code, body)
	}
	if code, body := fetch(t, "http://"+pprofAddr+"/debug/pprof/goroutine?debug=1"); code != 200 || !strings.Contains(body, "goroutine profile") {
		t.Fatalf("goroutine dump: %d\n%s", code, body)
	}
	for _, path := range []string{"/debug/pprof/", "/debug/pprof/goroutine?debug=1", "/debug/pprof/cmdline"} {
		if code, _ := fetch(t, "http://"+s.addr+path); code != 404 {
			t.Errorf("%s on the API listener: %d, want 404", path, code)
		}
	}
}

// TestServeWithoutPprof: by default no pprof listener is opened and the API has no pprof.
func TestServeWithoutPprof(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := startServe(t, dir, filepath.Join(dir, "app.db"))
	if code, _ := fetch(t, "http://"+s.addr+"/debug/pprof/"); code != 404 {
		t.Errorf("/debug/pprof/ on the API listener: %d, want 404", code)
	}
	if strings.Contains(s.log(), "serving pprof") {
		t.Errorf("pprof served without debug.pprof_addr:\n%s", s.log())
	}
}
