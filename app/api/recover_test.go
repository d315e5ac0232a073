package api_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// panicResolver panics on every lookup, as a bug below a handler would.
type panicResolver struct{}

func (panicResolver) LookupTXT(context.Context, string) ([]string, error) {
	panic("resolver bug: secret detail")
}

// TestHandlerPanicAnswers500Internal: a panic under a handler answers 500 in the API's error
// format with a generic message; the panic and its stack go to the log only, and the server
// answers the next request as usual.
func TestHandlerPanicAnswers500Internal(t *testing.T) {
	t.Parallel()
	var buf lockedBuffer
	cfg := cli.DefaultConfig()
	cfg.DB.Path = filepath.Join(t.TempDir(), "panic.db")
	cfg.Secrets.KeyFile = filepath.Join(filepath.Dir(cfg.DB.Path), "app.key")
	rt, err := cli.Build(context.Background(), cfg, cli.Options{Log: slog.New(slog.NewTextHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	rt.Service.DNS = panicResolver{}
	nk, _, err := rt.Service.Bootstrap(context.Background(), "panic test")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rt.Handler)
	t.Cleanup(func() {
		srv.Close()
		rt.Close()
	})
	e := &apitest.Env{T: t, Runtime: rt, Server: srv, AdminKey: nk.Token}
	var d app.Domain
	e.Do("POST", "/orgs/c/domains", nk.Token, map[string]string{"domain": "panic.example.test"}).Expect(201).JSON(&d)
	res := e.Do("POST", "/orgs/c/domains/"+d.ID+"/verify", nk.Token, nil).ExpectError(500, "internal")
	want := `{"error":{"code":"internal","message":"internal error","fields":{},"request_id":"` + res.Header.Get("X-Request-Id") + `"}}` + "\n"
	if string(res.Body) != want || res.Header.Get("X-Request-Id") == "" || res.Header.Get("RateLimit-Limit") == "" {
		t.Fatalf("answer %q, headers %v", res.Body, res.Header)
	}
	log := buf.String()
	for _, want := range []string{"msg=panic", "route=/orgs/{org}/domains/{id}/verify", "resolver bug: secret detail",
		"stack=", "LookupTXT", "status=500"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	e.Do("GET", "/orgs/c/domains/"+d.ID, nk.Token, nil).Expect(200)
}
