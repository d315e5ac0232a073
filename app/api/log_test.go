package api_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"wsapi/app/apitest"
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
	e := apitest.NewLogged(t, &buf, nil)
	unknown := "sk_" + strings.Repeat("Z", 43)

	cases := []struct {
		name, method, path, key string
		body                    any
		status                  int
		want                    []string
	}{
		{"success", "GET", "/orgs/c", e.AdminKey, nil, 200,
			[]string{"method=GET", "route=/orgs/{org}", "status=200", "org=" + e.Org.ID}},
		{"parameter route with a query", "GET", "/orgs/c/members/" + e.Owner.ID + "?unsubscribe=s3cr3t", e.AdminKey, nil, 200,
			[]string{"route=/orgs/{org}/members/{id}", "status=200"}},
		{"created", "POST", "/orgs/" + e.Org.ID + "/members", e.AdminKey, map[string]any{"name": "n", "email": "n@example.com"}, 201,
			[]string{"method=POST", "route=/orgs/{org}/members", "status=201", "org=" + e.Org.ID}},
		{"invalid", "PATCH", "/orgs/c", e.AdminKey, map[string]any{"name": ""}, 400,
			[]string{"method=PATCH", "route=/orgs/{org}", "status=400"}},
		{"unknown token", "GET", "/orgs/c", unknown, nil, 401,
			[]string{"method=GET", "route=/orgs/{org}", "status=401"}},
		{"unmatched", "DELETE", "/nowhere", "", nil, 404,
			[]string{"method=DELETE", "route=(unmatched)", "status=404"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := len(buf.String())
			e.For(t).DoInvalid(tc.method, tc.path, tc.key, tc.body).Expect(tc.status)
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
	for _, secret := range []string{e.AdminKey, unknown, "sk_", "Bearer", "s3cr3t"} {
		if strings.Contains(out, secret) {
			t.Errorf("the log contains %q:\n%s", secret, out)
		}
	}
}
