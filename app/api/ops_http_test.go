package api_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"wsapi/app/apitest"
	"wsapi/cli"
)

// TestRequestIDs: every answer carries X-Request-Id, the client's when sane, else a new one.
func TestRequestIDs(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	send := func(id string) string {
		req := withAuthorization(t, e, "GET", "/healthz", "")
		if id != "" {
			req.Header.Set("X-Request-Id", id)
		}
		return e.Send(req).Expect(200).Header.Get("X-Request-Id")
	}
	a, b := send(""), send("")
	if !regexp.MustCompile(`^[A-Za-z0-9]{20}$`).MatchString(a) || a == b {
		t.Fatalf("generated ids %q, %q", a, b)
	}
	for _, sane := range []string{"x", "trace-1:span.2_A", strings.Repeat("a", 128)} {
		if got := send(sane); got != sane {
			t.Errorf("sane id %q answered as %q", sane, got)
		}
	}
	for _, bad := range []string{strings.Repeat("a", 129), "has space", "<script>", "ünïcode"} {
		if got := send(bad); got == bad || len(got) != 20 {
			t.Errorf("insane id %q answered as %q", bad, got)
		}
	}
	// Errors and refusals carry it too.
	if e.Do("GET", "/orgs/c", "", nil).Expect(401).Header.Get("X-Request-Id") == "" {
		t.Errorf("401 without X-Request-Id")
	}
}

// TestRequestIDInLogsAndInternalErrors: the request line and the error line of a request
// carry its id and the request line the client IP (after trusted proxies); a 500 body
// carries the id for the user to quote.
func TestRequestIDInLogsAndInternalErrors(t *testing.T) {
	t.Parallel()
	var buf lockedBuffer
	cfg := cli.DefaultConfig()
	cfg.DB.Path = filepath.Join(t.TempDir(), "ids.db")
	cfg.Secrets.KeyFile = filepath.Join(filepath.Dir(cfg.DB.Path), "app.key")
	cfg.HTTP.TrustedProxies = []string{"127.0.0.1/32"}
	rt, err := cli.Build(context.Background(), cfg, cli.Options{Log: slog.New(slog.NewTextHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	nk, _, err := rt.Service.Bootstrap(context.Background(), "ids")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rt.Handler)
	defer srv.Close()
	e := &apitest.Env{T: t, Runtime: rt, Server: srv, AdminKey: nk.Token}

	req := withAuthorization(t, e, "GET", "/orgs/c", "Bearer "+nk.Token)
	req.Header.Set("X-Request-Id", "client-id-1")
	req.Header.Set("X-Forwarded-For", "203.0.113.9")
	e.Send(req).Expect(200)
	if !regexp.MustCompile(`msg=request request_id=client-id-1 .*status=200 .*client_ip=203\.0\.113\.9`).MatchString(buf.String()) {
		t.Fatalf("request line without id or client ip:\n%s", buf.String())
	}

	rt.DB.Close() // every authenticated request now fails inside: a 500
	req = withAuthorization(t, e, "GET", "/orgs/c", "Bearer "+nk.Token)
	req.Header.Set("X-Request-Id", "client-id-500")
	r := e.Send(req).ExpectError(500, "internal")
	var body struct {
		Error struct {
			RequestID string `json:"request_id"`
		} `json:"error"`
	}
	r.JSON(&body)
	if body.Error.RequestID != "client-id-500" {
		t.Fatalf("500 body %s lacks the request id", r.Body)
	}
	for _, want := range []string{`msg="request failed" request_id=client-id-500`, `msg=request request_id=client-id-500 `} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, buf.String())
		}
	}
	// 4xx bodies do not carry it (it is in the header).
	if bytes.Contains(e.Do("GET", "/orgs/c", "", nil).Expect(401).Body, []byte("request_id")) {
		t.Errorf("401 body carries request_id")
	}
}

// TestCORS: preflights are answered before routing, with the CORS headers for an allowed
// origin only; answers expose pagination, rate limit and request id headers; "*" never
// allows credentials; without origins configured OPTIONS stays a 405.
func TestCORS(t *testing.T) {
	t.Parallel()
	const allowed = "https://app.example.com"
	e := apitest.New(t, func(c *cli.Config) { c.HTTP.CORS.AllowedOrigins = []string{allowed} })
	preflight := func(e *apitest.Env, origin string) *apitest.Response {
		req := withAuthorization(t, e, "OPTIONS", "/orgs/c/contacts", "")
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization,content-type,idempotency-key")
		return e.Send(apitest.Invalid(req)) // a preflight is no operation of the document
	}
	ok := preflight(e, allowed)
	if ok.Status != 204 || ok.Header.Get("Access-Control-Allow-Origin") != allowed ||
		!strings.Contains(ok.Header.Get("Access-Control-Allow-Methods"), "POST") ||
		!strings.Contains(strings.ToLower(ok.Header.Get("Access-Control-Allow-Headers")), "idempotency-key") ||
		ok.Header.Get("Access-Control-Allow-Credentials") != "true" {
		t.Fatalf("allowed preflight: %d %v", ok.Status, ok.Header)
	}
	refused := preflight(e, "https://evil.example.net")
	if refused.Header.Get("Access-Control-Allow-Origin") != "" || refused.Header.Get("Access-Control-Allow-Methods") != "" {
		t.Fatalf("refused origin got CORS headers: %v", refused.Header)
	}

	req := withAuthorization(t, e, "GET", "/orgs/c/contacts", "Bearer "+e.AdminKey)
	req.Header.Set("Origin", allowed)
	res := e.Send(req).Expect(200)
	exposed := strings.ToLower(res.Header.Get("Access-Control-Expose-Headers"))
	for _, h := range []string{"pagination-count", "pagination-next", "ratelimit-remaining", "x-request-id"} {
		if !strings.Contains(exposed, h) {
			t.Errorf("%s not exposed: %q", h, exposed)
		}
	}
	if res.Header.Get("Access-Control-Allow-Origin") != allowed {
		t.Errorf("simple request: Allow-Origin %q", res.Header.Get("Access-Control-Allow-Origin"))
	}

	any := apitest.New(t, func(c *cli.Config) { c.HTTP.CORS.AllowedOrigins = []string{"*"} })
	star := preflight(any, "https://whoever.example.org")
	if star.Header.Get("Access-Control-Allow-Origin") != "*" || star.Header.Get("Access-Control-Allow-Credentials") != "" {
		t.Fatalf("wildcard preflight: %v", star.Header)
	}

	off := apitest.New(t)
	if r := preflight(off, allowed); r.Status != 405 || r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("CORS off: %d %v", r.Status, r.Header)
	}
}

// TestCompression: JSON over 1 KiB in gzip or zstd as the client accepts; small answers
// and clients that accept neither get it plain; http.compress false turns it off.
func TestCompression(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	plain := e.Do("GET", "/openapi.json", "", nil).Expect(200).Body
	get := func(e *apitest.Env, path, accept string) *apitest.Response {
		req := withAuthorization(t, e, "GET", path, "")
		req.Header.Set("Accept-Encoding", accept) // set by hand: the transport then leaves the body alone
		return e.Send(req).Expect(200)
	}
	gz := get(e, "/openapi.json", "gzip")
	if gz.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(gz.Header.Get("Vary"), "Accept-Encoding") {
		t.Fatalf("gzip: %v", gz.Header)
	}
	if data := gz.Gunzipped(); !bytes.Equal(data, plain) || len(gz.Body) >= len(plain)/2 {
		t.Fatalf("gzip body: %d bytes from %d, decoded equal %v", len(gz.Body), len(plain), bytes.Equal(data, plain))
	}
	zs := get(e, "/openapi.json", "zstd, gzip")
	if zs.Header.Get("Content-Encoding") != "zstd" {
		t.Fatalf("zstd: %v", zs.Header)
	}
	dec, _ := zstd.NewReader(nil)
	if data, err := dec.DecodeAll(zs.Body, nil); err != nil || !bytes.Equal(data, plain) {
		t.Fatalf("zstd body does not decode to the document: %v", err)
	}
	if small := get(e, "/healthz", "gzip"); small.Header.Get("Content-Encoding") != "" {
		t.Errorf("a small answer was compressed")
	}
	if none := get(e, "/openapi.json", "identity"); none.Header.Get("Content-Encoding") != "" || !bytes.Equal(none.Body, plain) {
		t.Errorf("identity was compressed")
	}
	off := apitest.New(t, func(c *cli.Config) { c.HTTP.Compress = false })
	if r := get(off, "/openapi.json", "gzip"); r.Header.Get("Content-Encoding") != "" {
		t.Errorf("http.compress false still compresses")
	}
}

// TestReadyz: 200 once started, 503 once draining; HEAD too.
func TestReadyz(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	if m := e.Do("GET", "/readyz", "", nil).Expect(200).Map(); m["status"] != "ready" {
		t.Fatalf("readyz %v", m)
	}
	e.Do("HEAD", "/readyz", "", nil).Expect(200)
	e.Runtime.Drain()
	if m := e.Do("GET", "/readyz", "", nil).Expect(503).Map(); m["status"] != "not_ready" {
		t.Fatalf("draining readyz %v", m)
	}
	e.Do("GET", "/healthz", "", nil).Expect(200) // alive, just not taking new traffic
}
