package apitest

import (
	"fmt"
	"strings"
	"testing"
)

// TestScenarios drives the harness through the real server: statuses, error fields, JSON
// fragments by path, and the stream events each call wrote (none for a refused call).
func TestScenarios(t *testing.T) {
	t.Parallel()
	e := New(t)
	var id string
	e.Run(t, []Scenario{
		{Name: "create", Method: "POST", URL: "/orgs/c/contacts", Key: e.AdminKey,
			Body:   map[string]any{"name": "Ada", "channels": []any{map[string]any{"type": "email", "email": "ada@example.com"}}},
			Status: 201, JSON: map[string]any{"name": "Ada", "channels.0.type": "email", "channels.0.email": "ada@example.com", "blocked": false},
			Events: []string{"contact.created"},
			Check:  func(t testing.TB, r *Response) { id = r.Map()["id"].(string) }},
		{Name: "refused", Invalid: true, Method: "POST", URL: "/orgs/c/contacts", Key: e.AdminKey, Body: map[string]any{"name": 7},
			Status: 400, Code: "invalid_argument", Fields: []string{"name"}, Events: []string{}},
		{Name: "no key", Method: "GET", URL: "/orgs/c/contacts", Status: 401, Code: "unauthenticated"},
	})
	e.Scenario(Scenario{Name: "update", Method: "PATCH", URL: "/orgs/c/contacts/" + id, Key: e.AdminKey,
		Body: map[string]any{"name": "Ada L."}, Status: 200, JSON: map[string]any{"id": id, "name": "Ada L."},
		Events: []string{"contact.updated"}})
}

// failures records what a check reports instead of failing the test.
type failures struct {
	testing.TB
	msgs []string
}

func (f *failures) Helper() {}
func (f *failures) Errorf(format string, args ...any) {
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
}
func (f *failures) Fatalf(format string, args ...any) { f.Errorf(format, args...) }

// TestExpectJSONFails: a fragment that differs or is missing fails the check, and numbers
// and nested values compare as JSON.
func TestExpectJSONFails(t *testing.T) {
	t.Parallel()
	body := []byte(`{"a":{"b":[1,{"c":"x"}]},"n":3,"o":{"k":true}}`)
	cases := []struct {
		frag map[string]any
		fail string
	}{
		{map[string]any{"a.b.0": 1, "a.b.1.c": "x", "n": 3.0, "o": map[string]bool{"k": true}}, ""},
		{map[string]any{"a.b.1.c": "y"}, "a.b.1.c = x, want y"},
		{map[string]any{"a.b.2": 1}, "a.b.2: missing"},
		{map[string]any{"n.x": 1}, "n.x: missing"},
	}
	for _, c := range cases {
		f := &failures{TB: t}
		(&Response{T: f, Status: 200, Body: body}).ExpectJSON(c.frag)
		got := strings.Join(f.msgs, "; ")
		if c.fail == "" && got != "" || !strings.HasPrefix(got, c.fail) {
			t.Errorf("%v: failures %q, want %q", c.frag, got, c.fail)
		}
	}
}
