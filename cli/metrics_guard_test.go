package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"wsapi/cli"
)

// serveWithConfig runs `app serve` in-process on a fresh database with the YAML config until
// ctx ends, and answers its error and stderr.
func serveWithConfig(ctx context.Context, t *testing.T, yaml string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(conf, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := cli.NewRootCmd()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs([]string{"serve", "--config", conf, "--addr", "127.0.0.1:0", "--db", filepath.Join(dir, "app.db")})
	err := cmd.ExecuteContext(ctx)
	return errOut.String(), err
}

// TestServeRefusesOpenMetricsWithoutToken: metrics.addr on any address but loopback, with
// no metrics.token, stops serve before it opens anything, naming both keys and the way out;
// on loopback it starts as before.
func TestServeRefusesOpenMetricsWithoutToken(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.10:9090"} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		stderr, err := serveWithConfig(ctx, t, fmt.Sprintf("metrics:\n  addr: %q\n", addr))
		cancel()
		if err == nil || !strings.Contains(stderr, "metrics.addr "+addr+" is not a loopback address and metrics.token is empty") ||
			!strings.Contains(stderr, "bind metrics.addr to 127.0.0.1") || strings.Contains(stderr, "serving") {
			t.Errorf("metrics.addr %s without a token: err %v\n%s", addr, err, stderr)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if stderr, err := serveWithConfig(ctx, t, "metrics:\n  addr: \"127.0.0.1:0\"\n"); err != nil || !strings.Contains(stderr, "serving metrics") {
		t.Errorf("metrics on loopback without a token: %v\n%s", err, stderr)
	}
}

// TestServeOpenMetricsAskForTheToken: with metrics.token set, a metrics listener on every
// interface answers 401 without the bearer token or with a wrong one, 200 with it.
func TestServeOpenMetricsAskForTheToken(t *testing.T) {
	t.Parallel()
	port := freeAddr(t)[len("127.0.0.1:"):]
	const token = "metrics-token-for-the-test-0123456789"
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan string, 1)
	go func() {
		stderr, _ := serveWithConfig(ctx, t, fmt.Sprintf("metrics:\n  addr: \"0.0.0.0:%s\"\n  token: %q\n", port, token))
		done <- stderr
	}()
	defer func() { cancel(); <-done }()
	get := func(auth string) int {
		req, _ := http.NewRequest("GET", "http://127.0.0.1:"+port+"/metrics", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0
		}
		res.Body.Close()
		return res.StatusCode
	}
	for end := time.Now().Add(30 * time.Second); get("") == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the metrics listener never opened")
		}
	}
	for auth, want := range map[string]int{"": 401, "Bearer wrong": 401, "Bearer " + token: 200} {
		if got := get(auth); got != want {
			t.Errorf("GET /metrics with %q: %d, want %d", auth, got, want)
		}
	}
}
