package api_test

import (
	"context"
	"strings"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
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
	e := apitest.NewEdited(t, &buf, func(d *app.Deps) { d.DNS = panicResolver{} })
	var d app.Domain
	e.Do("POST", "/orgs/c/domains", e.AdminKey, map[string]string{"domain": "panic.example.test"}).Expect(201).JSON(&d)
	res := e.Do("POST", "/orgs/c/domains/"+d.ID+"/verify", e.AdminKey, nil).ExpectError(500, "internal")
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
	e.Do("GET", "/orgs/c/domains/"+d.ID, e.AdminKey, nil).Expect(200)
}
