package api_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"wsapi/app/apitest"
	"wsapi/cli"
)

// errorFields decodes an error body strictly and answers its fields object; it fails unless
// the body is exactly {"error": {"code", "message", "fields"}} with fields an object.
func errorFields(t *testing.T, what string, res *apitest.Response) map[string]string {
	t.Helper()
	var b map[string]map[string]json.RawMessage
	if err := json.Unmarshal(res.Body, &b); err != nil || len(b) != 1 || b["error"] == nil {
		t.Fatalf("%s: body %s is not {\"error\": {...}}", what, res.Body)
	}
	raw, ok := b["error"]["fields"]
	want := 3 // code, message, fields; a 500 also carries request_id
	if res.Status == 500 {
		want = 4
		if rid := res.Header.Get("X-Request-Id"); string(b["error"]["request_id"]) != `"`+rid+`"` {
			t.Fatalf("%s: request_id %s, want the X-Request-Id %q", what, b["error"]["request_id"], rid)
		}
	}
	if !ok || len(b["error"]) != want {
		t.Fatalf("%s (%d): error %s lacks fields, or has more than code, message, fields", what, res.Status, res.Body)
	}
	var fields map[string]string
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		t.Fatalf("%s: fields %s is not an object", what, raw)
	}
	return fields
}

// TestEveryErrorBodyCarriesFields: every error status answers DESIGN.md's shape, with
// fields {} when no field is at fault.
func TestEveryErrorBodyCarriesFields(t *testing.T) {
	e := apitest.New(t, func(c *cli.Config) { c.HTTP.RateLimitPerMinute = 30 })
	readOnly := e.RoleKey("c", "contacts:read")
	cases := []struct {
		what   string
		res    *apitest.Response
		status int
	}{
		{"401", e.Do("GET", "/orgs/c/contacts", "", nil), 401},
		{"403", e.Do("POST", "/orgs/c/contacts", readOnly, map[string]any{"name": "x"}), 403},
		{"404", e.Do("GET", "/orgs/c/contacts/ct_nope", e.AdminKey, nil), 404},
		{"404 route", e.DoInvalid("GET", "/no/such/route", e.AdminKey, nil), 404},
		{"405", e.DoInvalid("PUT", "/orgs/c/contacts", e.AdminKey, nil), 405},
		{"invalid_json", e.DoInvalid("POST", "/orgs/c/contacts", e.AdminKey, "{"), 400},
	}
	for _, c := range cases {
		c.res.Expect(c.status)
		if f := errorFields(t, c.what, c.res); len(f) != 0 {
			t.Fatalf("%s: fields %v, want {}", c.what, f)
		}
	}
	if f := errorFields(t, "400", e.DoInvalid("POST", "/orgs/c/contacts", e.AdminKey, map[string]any{"name": ""}).Expect(400)); f["name"] == "" {
		t.Fatalf("400 fields %v do not name name", f)
	}
	var limited *apitest.Response
	for i := 0; i < 40 && limited == nil; i++ {
		if res := e.Do("GET", "/healthz", "", nil); res.Status == http.StatusTooManyRequests {
			limited = res
		}
	}
	if limited == nil {
		t.Fatal("no 429 after 40 requests at 30 a minute")
	}
	errorFields(t, "429", limited)

	// A failing database: the 500 says nothing of the cause, in the same shape.
	if err := e.Runtime.DB.Close(); err != nil {
		t.Fatal(err)
	}
	e.Clock.Advance(60e9) // a full bucket again
	errorFields(t, "500", e.Do("GET", "/orgs/c/contacts", e.AdminKey, nil).Expect(500))
}
