package api_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
)

var (
	timestampRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	idRE        = regexp.MustCompile(`^([a-z]+)_([0-9A-Za-z]+)$`)
)

// checkID fails unless id has the prefix and at least 20 base62 characters after it.
func checkID(t *testing.T, id any, prefix string) {
	t.Helper()
	s, _ := id.(string)
	m := idRE.FindStringSubmatch(s)
	if m == nil || m[1] != prefix || len(m[2]) < 20 {
		t.Errorf("id %q: want %s_ and at least 20 base62 characters", s, prefix)
	}
}

// checkTimestamps fails unless every named field is an RFC 3339 UTC time with milliseconds.
func checkTimestamps(t *testing.T, obj map[string]any, fields ...string) {
	t.Helper()
	for _, f := range fields {
		s, _ := obj[f].(string)
		if !timestampRE.MatchString(s) {
			t.Errorf("%s = %v: want RFC 3339 UTC with milliseconds", f, obj[f])
		}
	}
}

// bearer builds a request with an Authorization header of any form.
func withAuthorization(t *testing.T, e *apitest.Env, method, path, auth string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, e.Server.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	return req
}

// memberKey makes a member with role in org (through the admin key) and a key acting as it.
func memberKey(e *apitest.Env, org, role string) (app.Member, string) {
	e.T.Helper()
	m := e.Member(e.AdminKey, org, "m "+strings.ToLower(app.RandomBase62(8)), role)
	return m, e.Key(e.AdminKey, org, m.ID)
}

// createRole makes a custom role in the bootstrap organization.
func createRole(e *apitest.Env, perms ...string) app.Role {
	e.T.Helper()
	var r app.Role
	e.Do("POST", "/orgs/c/roles", e.AdminKey, map[string]any{"name": "r " + app.RandomBase62(6), "permissions": perms}).
		Expect(201).JSON(&r)
	return r
}
