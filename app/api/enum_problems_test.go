package api_test

import (
	"strings"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
)

// TestEnumProblemsListTheAllowedValues: a value outside an enumeration is a 400 whose field
// reason lists every allowed value, on the routes that used to say only "is not an
// integration id" or "must be a connection type".
func TestEnumProblemsListTheAllowedValues(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	cases := []struct {
		method, path, field string
		body                any
		allowed             []string
	}{
		{"GET", "/orgs/c/inbox?integration_id=nope", "integration_id", nil, app.Integrations},
		{"GET", "/orgs/c/broadcasts/recipients?integration_id=nope", "integration_id", nil, app.Integrations},
		{"GET", "/orgs/c/connections?type=NOPE", "type", nil, app.ConnectionTypes},
		{"POST", "/orgs/c/connections/oauth/authorize", "type", map[string]any{"type": "NOPE"}, app.ConnectionTypes},
	}
	for _, c := range cases {
		r := e.DoInvalid(c.method, c.path, e.AdminKey, c.body).ExpectError(400, "invalid_argument", c.field)
		why := r.ErrorFields()[c.field]
		if !strings.HasPrefix(why, "must be one of ") {
			t.Errorf("%s %s: %s: %q does not list the allowed values", c.method, c.path, c.field, why)
		}
		for _, v := range c.allowed {
			if !strings.Contains(why, v) {
				t.Errorf("%s %s: %s: %q lacks %s", c.method, c.path, c.field, why, v)
			}
		}
	}
}
