package api_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"wsapi/app/apitest"
	"wsapi/cli"
)

// lockedBuffer is a log sink the server's goroutines and the test can share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRequestLog: one line per request with method, route pattern, status and organization;
// never a token, and never the query string.
func TestRequestLog(t *testing.T) {
	t.Parallel()
	var buf lockedBuffer
	cfg := cli.DefaultConfig()
	cfg.DB.Path = filepath.Join(t.TempDir(), "log.db")
	cfg.Secrets.KeyFile = filepath.Join(filepath.Dir(cfg.DB.Path), "app.key")
	rt, err := cli.Build(context.Background(), cfg, cli.Options{Log: slog.New(slog.NewTextHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	nk, _, err := rt.Service.Bootstrap(context.Background(), "log test")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rt.Handler)
	t.Cleanup(func() {
		srv.Close()
		rt.Close()
	})
	e := &apitest.Env{T: t, Runtime: rt, Server: srv, AdminKey: nk.Token}
	unknown := "sk_" + strings.Repeat("Z", 43)

	cases := []struct {
		name, method, path, key string
		body                    any
		status                  int
		want                    []string
	}{
		{"success", "GET", "/orgs/c", nk.Token, nil, 200,
			[]string{"method=GET", "route=/orgs/{org}", "status=200", "org=" + nk.OrgID}},
		{"parameter route with a query", "GET", "/orgs/c/members/" + nk.MemberID + "?unsubscribe=s3cr3t", nk.Token, nil, 200,
			[]string{"route=/orgs/{org}/members/{id}", "status=200"}},
		{"created", "POST", "/orgs/" + nk.OrgID + "/members", nk.Token, map[string]any{"name": "n", "email": "n@example.com"}, 201,
			[]string{"method=POST", "route=/orgs/{org}/members", "status=201", "org=" + nk.OrgID}},
		{"invalid", "PATCH", "/orgs/c", nk.Token, map[string]any{"name": ""}, 400,
			[]string{"method=PATCH", "route=/orgs/{org}", "status=400"}},
		{"unknown token", "GET", "/orgs/c", unknown, nil, 401,
			[]string{"method=GET", "route=/orgs/{org}", "status=401"}},
		{"unmatched", "DELETE", "/nowhere", "", nil, 404,
			[]string{"method=DELETE", "route=(unmatched)", "status=404"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := len(buf.String())
			e.For(t).Do(tc.method, tc.path, tc.key, tc.body).Expect(tc.status)
			lines := strings.Split(strings.TrimSpace(buf.String()[before:]), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], "msg=request") {
				t.Fatalf("want one request line, got %q", lines)
			}
			for _, w := range tc.want {
				if !strings.Contains(lines[0], w) {
					t.Errorf("log line %q lacks %q", lines[0], w)
				}
			}
		})
	}
	out := buf.String()
	for _, secret := range []string{nk.Token, unknown, "sk_", "Bearer", "s3cr3t"} {
		if strings.Contains(out, secret) {
			t.Errorf("the log contains %q:\n%s", secret, out)
		}
	}
}
