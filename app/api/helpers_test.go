package api_test

import (
	"net/http"
	"strings"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
)

// checkTimestamps fails unless every named field is an RFC 3339 UTC time with milliseconds.
func checkTimestamps(t *testing.T, obj map[string]any, fields ...string) {
	t.Helper()
	for _, f := range fields {
		s, _ := obj[f].(string)
		if !apitest.TimestampRE.MatchString(s) {
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
