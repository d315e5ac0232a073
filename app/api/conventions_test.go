package api_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"wsapi/app/apitest"
	"wsapi/cli"
)

// TestErrorBodyShape: every error is {"error": {"code", "message", "fields"}} as JSON, and
// nothing else; fields is {} when no field is at fault.
func TestErrorBodyShape(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	weak := e.RoleKey(e.Org.ID, "org:read")
	cases := []struct {
		name, method, path, key string
		body                    any
		status                  int
		code                    string
		fields                  []string
	}{
		{"invalid argument", "POST", "/orgs/c/members", e.AdminKey, map[string]any{"email": "x@example.com"}, 400, "invalid_argument", []string{"name"}},
		{"invalid json", "POST", "/orgs/c/members", e.AdminKey, `{"name":`, 400, "invalid_json", nil},
		{"unauthenticated", "GET", "/orgs/c", "", nil, 401, "unauthenticated", nil},
		{"permission denied", "GET", "/orgs/c/members", weak, nil, 403, "permission_denied", nil},
		{"unknown organization", "GET", "/orgs/org_AAAAAAAAAAAAAAAAAAAA", e.AdminKey, nil, 404, "not_found", nil},
		{"unknown route", "GET", "/nope", "", nil, 404, "not_found", nil},
		{"unknown nested route", "GET", "/orgs/c/members/x/y", e.AdminKey, nil, 404, "not_found", nil},
		{"wrong method", "PUT", "/orgs/c", e.AdminKey, nil, 405, "method_not_allowed", nil},
		{"conflict", "DELETE", "/orgs/c/members/" + e.Owner.ID, e.AdminKey, nil, 409, "conflict", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := e.For(t).DoInvalid(tc.method, tc.path, tc.key, tc.body).ExpectError(tc.status, tc.code, tc.fields...)
			if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q", ct)
			}
			var raw map[string]map[string]json.RawMessage
			if err := json.Unmarshal(res.Body, &raw); err != nil || len(raw) != 1 || raw["error"] == nil {
				t.Fatalf("body %s is not {\"error\": {...}}", res.Body)
			}
			var msg string
			if err := json.Unmarshal(raw["error"]["message"], &msg); err != nil || msg == "" {
				t.Errorf("message missing in %s", res.Body)
			}
			for k := range raw["error"] {
				if k != "code" && k != "message" && k != "fields" {
					t.Errorf("unexpected error member %q", k)
				}
			}
			var fields map[string]string
			if err := json.Unmarshal(raw["error"]["fields"], &fields); err != nil || fields == nil || (len(fields) == 0) != (len(tc.fields) == 0) {
				t.Errorf("fields %s: want an object of strings, {} when no field is named", raw["error"]["fields"])
			}
		})
	}
	if allow := e.DoInvalid("PUT", "/orgs/c", e.AdminKey, nil).Header.Get("Allow"); !strings.Contains(allow, "GET") || !strings.Contains(allow, "PATCH") {
		t.Errorf("405 Allow header %q", allow)
	}
}

// TestJSONDecoding: each kind of bad body gets its own clear 400.
func TestJSONDecoding(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	post := func(name string, body any, code string, fields ...string) apitest.Scenario {
		return apitest.Scenario{Name: name, Method: "POST", URL: "/orgs/c/members", Key: e.AdminKey, Body: body, Status: 400, Invalid: true, Code: code, Fields: fields}
	}
	e.Run(t, []apitest.Scenario{
		post("unknown field", `{"name":"a","email":"a@example.com","nickname":"x"}`, "invalid_argument", "nickname"),
		post("malformed", `{"name":`, "invalid_json"),
		post("unquoted key", `{name: "a"}`, "invalid_json"),
		post("wrong type string", `{"name": 5, "email":"a@example.com"}`, "invalid_argument", "name"),
		post("wrong type bool", `{"name": "a", "email": true}`, "invalid_argument", "email"),
		post("every bad member named at once", `{"name": 5, "email": true, "nickname": "x", "role": []}`,
			"invalid_argument", "name", "email", "nickname", "role"),
		post("member names match case-insensitively", `{"Name": 5, "EMAIL": "a@example.com"}`, "invalid_argument", "Name"),
		post("array body", `[]`, "invalid_json"),
		post("string body", `"hello"`, "invalid_json"),
		post("two objects", `{"name":"a","email":"a@example.com"} {}`, "invalid_json"),
		post("trailing garbage", `{"name":"a","email":"a@example.com"}x`, "invalid_json"),
		post("empty body validates", "", "invalid_argument", "name", "email"),
		post("null body validates", "null", "invalid_argument", "name", "email"),
		{Name: "wrong nested type", Invalid: true, Method: "PATCH", URL: "/orgs/c", Key: e.AdminKey,
			Body: `{"config": {"email": 5}}`, Status: 400, Code: "invalid_argument", Fields: []string{"config.email"}},
		{Name: "trailing whitespace is fine", Method: "POST", URL: "/orgs/c/members", Key: e.AdminKey,
			Body: "{\"name\":\"a\",\"email\":\"a@example.com\"}\n\n  ", Status: 201},
		{Name: "nested and top-level problems together", Invalid: true, Method: "PATCH", URL: "/orgs/c", Key: e.AdminKey,
			Body: `{"config": {"email": 5}, "name": false, "shoe_size": 9}`, Status: 400, Code: "invalid_argument",
			Fields: []string{"config.email", "name", "shoe_size"}},
	})
}

// TestBodyLimit: http.max_body_bytes holds, whether the length is declared or chunked.
func TestBodyLimit(t *testing.T) {
	t.Parallel()
	const limit = 256
	e := apitest.New(t, func(c *cli.Config) { c.HTTP.MaxBodyBytes = limit })
	sized := func(n int) string { // a valid member body padded with spaces to n bytes
		b := `{"name":"n","email":"` + strconv.Itoa(n) + `@example.com"}`
		return b + strings.Repeat(" ", n-len(b))
	}
	cases := []struct {
		name    string
		body    string
		chunked bool
		status  int
	}{
		{"at the limit", sized(limit), false, 201},
		{"one past the limit", sized(limit + 1), false, 413},
		{"far past the limit", sized(10 * limit), false, 413},
		{"chunked at the limit", sized(limit - 1), true, 201},
		{"chunked past the limit", sized(4 * limit), true, 413},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := e.For(t)
			var rd io.Reader = strings.NewReader(tc.body)
			if tc.chunked {
				rd = io.MultiReader(rd) // no length known: sent chunked
			}
			req, err := http.NewRequest("POST", e.Server.URL+"/orgs/c/members", rd)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+e.AdminKey)
			req.Header.Set("Content-Type", "application/json")
			res := e.Send(req)
			if tc.status == 413 {
				res.ExpectError(413, "payload_too_large")
			} else {
				res.Expect(tc.status)
			}
		})
	}
}

// TestRateLimit: with time frozen, the 501st request of a minute is refused, and tokens come
// back as the clock moves.
func TestRateLimit(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	for i := 1; i <= 500; i++ {
		res := e.Do("GET", "/healthz", "", nil)
		if res.Status != 200 {
			t.Fatalf("request %d: status %d", i, res.Status)
		}
		if got, want := res.Header.Get("RateLimit-Remaining"), strconv.Itoa(500-i); got != want {
			t.Fatalf("request %d: RateLimit-Remaining %s, want %s", i, got, want)
		}
	}
	res := e.Do("GET", "/healthz", "", nil).ExpectError(429, "rate_limited")
	if ra, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || ra < 1 {
		t.Errorf("Retry-After %q", res.Header.Get("Retry-After"))
	}
	if res.Header.Get("RateLimit-Remaining") != "0" || res.Header.Get("RateLimit-Limit") != "500" {
		t.Errorf("headers on 429: %v", res.Header)
	}
	// The limit comes before authentication: a valid key is refused too.
	e.Do("GET", "/orgs/c", e.AdminKey, nil).ExpectError(429, "rate_limited")

	// 500 per minute is one token every 120 ms.
	e.Clock.Advance(120 * time.Millisecond)
	e.Do("GET", "/orgs/c", e.AdminKey, nil).Expect(200)
	e.Do("GET", "/orgs/c", e.AdminKey, nil).ExpectError(429, "rate_limited")

	e.Clock.Advance(time.Minute)
	res = e.Do("GET", "/orgs/c", e.AdminKey, nil).Expect(200)
	if res.Header.Get("RateLimit-Remaining") != "499" {
		t.Errorf("after a minute RateLimit-Remaining %s, want 499", res.Header.Get("RateLimit-Remaining"))
	}
}

// TestRateLimitHeadersEverywhere: success, errors, unmatched routes and public routes alike.
// http.rate_limit_per_minute 0 turns the limit off: no refusals and no RateLimit headers.
func TestRateLimitZeroIsOff(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, func(c *cli.Config) { c.HTTP.RateLimitPerMinute = 0 })
	for i := 1; i <= 600; i++ {
		res := e.Do("GET", "/healthz", "", nil).Expect(200)
		if res.Header.Get("RateLimit-Limit") != "" {
			t.Fatalf("request %d: RateLimit-Limit %q with the limit off", i, res.Header.Get("RateLimit-Limit"))
		}
	}
}

func TestRateLimitHeadersEverywhere(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	cases := []struct {
		name, method, path, key string
		status                  int
	}{
		{"healthz", "GET", "/healthz", "", 200},
		{"openapi", "GET", "/openapi.json", "", 200},
		{"authenticated", "GET", "/orgs/c", e.AdminKey, 200},
		{"list", "GET", "/orgs/c/members", e.AdminKey, 200},
		{"unknown route", "GET", "/nope", "", 404},
		{"unknown org", "GET", "/orgs/org_AAAAAAAAAAAAAAAAAAAA", e.AdminKey, 404},
		{"unauthenticated", "GET", "/orgs/c", "", 401},
		{"wrong method", "DELETE", "/healthz", "", 405},
		{"invalid", "POST", "/orgs/c/members", e.AdminKey, 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := e.For(t).DoInvalid(tc.method, tc.path, tc.key, nil).Expect(tc.status)
			if res.Header.Get("RateLimit-Limit") != "500" {
				t.Errorf("RateLimit-Limit %q", res.Header.Get("RateLimit-Limit"))
			}
			for _, h := range []string{"RateLimit-Remaining", "RateLimit-Reset"} {
				if n, err := strconv.Atoi(res.Header.Get(h)); err != nil || n < 0 {
					t.Errorf("%s %q", h, res.Header.Get(h))
				}
			}
		})
	}
}

// TestForwardedFor: X-Forwarded-For picks the bucket only when the peer is a trusted proxy.
func TestForwardedFor(t *testing.T) {
	t.Parallel()
	remaining := func(e *apitest.Env, xff string) string {
		e.T.Helper()
		req, err := http.NewRequest("GET", e.Server.URL+"/healthz", nil)
		if err != nil {
			e.T.Fatal(err)
		}
		if xff != "" {
			req.Header.Set("X-Forwarded-For", xff)
		}
		return e.Send(req).Expect(200).Header.Get("RateLimit-Remaining")
	}
	type step struct{ xff, want string }
	cases := []struct {
		name    string
		trusted []string
		steps   []step
	}{
		{"trusted proxy: one bucket per forwarded client", []string{"127.0.0.1/32"}, []step{
			{"203.0.113.1", "499"},
			{"203.0.113.2", "499"},
			{"203.0.113.1", "498"},
			{"", "499"},                          // the proxy's own bucket
			{"198.51.100.7, 203.0.113.2", "498"}, // the nearest untrusted hop counts; the rest may be forged
			{"203.0.113.1, 127.0.0.1", "497"},    // trusted hops are skipped
			{"not-an-ip", "498"},                 // unreadable: the peer
		}},
		{"trusted as a bare address", []string{"127.0.0.1"}, []step{
			{"203.0.113.1", "499"},
			{"203.0.113.2", "499"},
			{"203.0.113.1:5123", "498"},  // a hop with a port is the same client
			{"[2001:db8::1]:443", "499"}, // IPv6 with a port
		}},
		{"untrusted peer: the header is ignored", nil, []step{
			{"203.0.113.1", "499"},
			{"203.0.113.2", "498"},
			{"", "497"},
		}},
		{"other proxy trusted: the header is ignored", []string{"10.0.0.0/8"}, []step{
			{"203.0.113.1", "499"},
			{"203.0.113.2", "498"},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := apitest.New(t, func(c *cli.Config) { c.HTTP.TrustedProxies = tc.trusted })
			for i, s := range tc.steps {
				if got := remaining(e, s.xff); got != s.want {
					t.Errorf("step %d (X-Forwarded-For %q): remaining %s, want %s", i, s.xff, got, s.want)
				}
			}
		})
	}
}

// TestPagination: page and take out of range are 400, never silently cut.
func TestPagination(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	cases := []struct {
		query  string
		status int
		fields []string
		page   string
		take   string
	}{
		{"", 200, nil, "1", "100"},
		{"?take=100", 200, nil, "1", "100"},
		{"?take=1", 200, nil, "1", "1"},
		{"?page=2&take=1", 200, nil, "2", "1"},
		{"?page=50", 200, nil, "50", "100"},
		{"?page=2147483647", 200, nil, "2147483647", "100"},
		{"?page=2147483648", 400, []string{"page"}, "", ""},
		{"?page=184467440737095517", 400, []string{"page"}, "", ""}, // (page-1)*take would wrap round to page 1
		{"?take=101", 400, []string{"take"}, "", ""},
		{"?take=0", 400, []string{"take"}, "", ""},
		{"?take=-1", 400, []string{"take"}, "", ""},
		{"?take=abc", 400, []string{"take"}, "", ""},
		{"?take=1.5", 400, []string{"take"}, "", ""},
		{"?page=0", 400, []string{"page"}, "", ""},
		{"?page=-2", 400, []string{"page"}, "", ""},
		{"?page=x", 400, []string{"page"}, "", ""},
		{"?page=0&take=101", 400, []string{"page", "take"}, "", ""},
	}
	for _, path := range []string{"/orgs/c/members", "/orgs/c/sub-orgs", "/orgs/c/keys"} {
		for _, tc := range cases {
			t.Run(path+tc.query, func(t *testing.T) {
				do := e.For(t).Do
				if tc.status == 400 {
					do = e.For(t).DoInvalid
				}
				res := do("GET", path+tc.query, e.AdminKey, nil)
				if tc.status == 400 {
					res.ExpectError(400, "invalid_argument", tc.fields...)
					return
				}
				res.Expect(200)
				for _, h := range []string{"pagination-count", "pagination-page", "pagination-take", "pagination-next"} {
					if _, ok := res.Header[http.CanonicalHeaderKey(h)]; !ok {
						t.Errorf("header %s missing", h)
					}
				}
				if res.Header.Get("pagination-page") != tc.page || res.Header.Get("pagination-take") != tc.take {
					t.Errorf("page %q take %q, want %s %s", res.Header.Get("pagination-page"), res.Header.Get("pagination-take"), tc.page, tc.take)
				}
				if res.Header.Get("pagination-next") != "" {
					t.Errorf("pagination-next %q on a page-numbered list", res.Header.Get("pagination-next"))
				}
				if !strings.HasPrefix(string(res.Body), "[") {
					t.Errorf("body %s: want an array", res.Body)
				}
			})
		}
	}
}

// TestIDsAndTimestamps: ids carry their type prefix and 20 random characters; timestamps are
// RFC 3339 UTC with milliseconds.
func TestIDsAndTimestamps(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	e.Clock.Advance(1234567 * time.Microsecond) // a time with a sub-millisecond part
	org := e.Do("POST", "/orgs/c/sub-orgs", e.AdminKey, map[string]any{"name": "S"}).Expect(201).Map()
	member := e.Do("POST", "/orgs/c/members", e.AdminKey, map[string]any{"name": "M", "email": "m@example.com"}).Expect(201).Map()
	role := e.Do("POST", "/orgs/c/roles", e.AdminKey, map[string]any{"name": "R", "permissions": []string{}}).Expect(201).Map()
	key := e.Do("POST", "/orgs/c/keys", e.AdminKey, map[string]any{"name": "K"}).Expect(201).Map()
	rotated := e.Do("POST", "/orgs/c/keys/"+key["id"].(string)+"/rotate", e.AdminKey, nil).Expect(200).Map()
	cases := []struct {
		name   string
		obj    map[string]any
		prefix string
		times  []string
	}{
		{"org", org, "org", []string{"created_at", "updated_at"}},
		{"member", member, "mem", []string{"created_at", "updated_at"}},
		{"role", role, "role", []string{"created_at", "updated_at"}},
		{"key", key, "key", []string{"created_at"}},
		{"rotated key", rotated, "key", []string{"created_at", "rotated_at"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			apitest.CheckID(t, tc.obj["id"], tc.prefix)
			checkTimestamps(t, tc.obj, tc.times...)
			if got := tc.obj["created_at"]; got != "2026-01-02T03:04:06.234Z" {
				t.Errorf("created_at %v, want the clock's time truncated to the millisecond", got)
			}
		})
	}
	// Stored and read back, the form is the same.
	got := e.Do("GET", "/orgs/c/members/"+member["id"].(string), e.AdminKey, nil).Expect(200).Map()
	if got["created_at"] != member["created_at"] {
		t.Errorf("read back %v, created %v", got["created_at"], member["created_at"])
	}
}

func TestPublicRoutes(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	health := e.Do("GET", "/healthz", "", nil).Expect(200).Map()
	if health["status"] != "ok" {
		t.Errorf("healthz %v", health)
	}
	var doc map[string]any
	e.Do("GET", "/openapi.json", "", nil).Expect(200).JSON(&doc) // its content is openapi_test.go's
	// A credential that does not work does not spoil a public route.
	e.Do("GET", "/healthz", "sk_nope", nil).Expect(200)
}

func TestHealthzAnswersHEAD(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	res := e.Do("HEAD", "/healthz", "", nil).Expect(200)
	if len(res.Body) != 0 || res.Header.Get("RateLimit-Limit") == "" {
		t.Fatalf("HEAD /healthz: body %q, headers %v", res.Body, res.Header)
	}
}
