package web_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/app/signin"
)

const testPassword = "correct horse battery"

// tab is a signed-in browser at the HTTP level: a cookie jar, the page's CSRF token, and
// requests that carry this server's Origin as a browser's would.
type tab struct {
	t      testing.TB
	e      *apitest.Env
	client *http.Client
	csrf   string
}

type answer struct {
	Status int
	Header http.Header
	Body   string
}

func newTab(t testing.TB, e *apitest.Env) *tab {
	jar, _ := cookiejar.New(nil)
	return &tab{t: t, e: e, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// do sends a request; headers alternate name, value. Unsafe requests get the server's
// Origin unless a test gives one ("-" for none).
func (b *tab) do(method, path string, form url.Values, headers ...string) answer {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.e.Server.URL+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if method != http.MethodGet {
		req.Header.Set("Origin", b.e.Server.URL)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "-" {
			req.Header.Del(headers[i])
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := b.client.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	a := answer{Status: res.StatusCode, Header: res.Header, Body: string(data)}
	if m := csrfRE.FindStringSubmatch(a.Body); m != nil {
		b.csrf = m[1]
	}
	return a
}

var csrfRE = regexp.MustCompile(`data-csrf="([^"]+)"`)

func (b *tab) get(path string, headers ...string) answer {
	b.t.Helper()
	return b.do(http.MethodGet, path, nil, headers...)
}

// htmx is an action as htmx sends it: the CSRF header and HX-Request.
func (b *tab) htmx(method, path string, form url.Values, headers ...string) answer {
	b.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	return b.do(method, path, form, append([]string{"X-CSRF-Token", b.csrf, "HX-Request", "true"}, headers...)...)
}

func (a answer) expect(t testing.TB, status int) answer {
	t.Helper()
	if a.Status != status {
		t.Fatalf("status %d, want %d; body: %.600s", a.Status, status, a.Body)
	}
	return a
}

// link makes a one-time password link of a member and answers its path.
func link(t testing.TB, e *apitest.Env, m app.Member, purpose string) string {
	t.Helper()
	token, err := e.Runtime.SignIn.IssueLink(context.Background(), m.OrgID, m.ID, purpose)
	if err != nil {
		t.Fatal(err)
	}
	return "/app/setup?token=" + token
}

// signedIn sets a member's password through a link and answers the signed-in tab.
func signedIn(t testing.TB, e *apitest.Env, m app.Member) *tab {
	t.Helper()
	b := newTab(t, e)
	path := link(t, e, m, signin.PurposeInvite)
	b.get(path).expect(t, 200)
	token := strings.TrimPrefix(path, "/app/setup?token=")
	a := b.do("POST", "/app/setup", url.Values{"token": {token}, "password": {testPassword}, "password_again": {testPassword}})
	if a.Status != http.StatusSeeOther || a.Header.Get("Location") != "/app/" {
		t.Fatalf("setup: %d %s %.300s", a.Status, a.Header.Get("Location"), a.Body)
	}
	b.get("/app/") // its CSRF token, when the role may read the inbox
	return b
}

// roleMember makes a member holding a custom role of perms.
func roleMember(t testing.TB, e *apitest.Env, perms ...string) app.Member {
	t.Helper()
	var role app.Role
	e.Do("POST", "/orgs/c/roles", e.AdminKey, map[string]any{"name": "role " + app.RandomBase62(6), "permissions": perms}).Expect(201).JSON(&role)
	return e.Member(e.AdminKey, e.Org.ID, "member "+app.RandomBase62(6), role.ID)
}

// conversation makes a contact with an email channel and an open chat with it.
func conversation(t testing.TB, e *apitest.Env, name string) app.Chat {
	t.Helper()
	var ct app.Contact
	e.Do("POST", "/orgs/c/contacts", e.AdminKey, map[string]any{"name": name,
		"channels": []map[string]any{{"type": "email", "email": strings.ToLower(strings.ReplaceAll(name, " ", ".")) + "@example.com"}}}).Expect(201).JSON(&ct)
	var c app.Chat
	e.Do("POST", "/orgs/c/chats", e.AdminKey, map[string]any{"contact_id": ct.ID}).Expect(201).JSON(&c)
	return c
}

// contactSays posts the contact's message through the API, as a channel would.
func contactSays(t testing.TB, e *apitest.Env, chatID, text string) {
	t.Helper()
	e.Do("POST", "/orgs/c/chats/"+chatID+"/messages", e.AdminKey, map[string]any{"role": "user",
		"messages": []map[string]any{{"role": "user", "parts": []map[string]any{{"type": "text", "text": text}}}}}).Expect(201)
}
