package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"wsapi/app/apitest"
	"wsapi/app/signin"
)

// The owner's set-up link sets a password once, signs in with an HttpOnly, SameSite=Lax
// cookie, and then email and password sign in again after a sign-out.
func TestSetupLinkSignOutAndBackIn(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	token, owner, err := e.Runtime.SignIn.OwnerSetupLink(context.Background(), e.Org.ID)
	if err != nil {
		t.Fatal(err)
	}
	b := newTab(t, e)
	b.get("/app/").expect(t, http.StatusSeeOther)
	page := b.get("/app/setup?token="+token).expect(t, 200)
	if !strings.Contains(page.Body, owner.Email) {
		t.Fatalf("set-up page does not name %s", owner.Email)
	}
	set := func(pw, again string) answer {
		return b.do("POST", "/app/setup", url.Values{"token": {token}, "password": {pw}, "password_again": {again}})
	}
	set("0123456789", "0123456780").expect(t, 400) // differ
	if a := set("012345678", "012345678").expect(t, 400); !strings.Contains(a.Body, "at least 10 characters") {
		t.Fatalf("short password: %s", a.Body)
	}
	long := strings.Repeat("é", 257)
	set(long, long).expect(t, 400)
	a := set("0123456789", "0123456789").expect(t, http.StatusSeeOther) // 10: the bound
	cookie := a.Header.Get("Set-Cookie")
	for _, want := range []string{"session=ws_", "HttpOnly", "SameSite=Lax", "Path=/"} {
		if !strings.Contains(cookie, want) {
			t.Fatalf("cookie %q lacks %q", cookie, want)
		}
	}
	if strings.Contains(cookie, "Secure") {
		t.Fatalf("plain-HTTP cookie marked Secure: %q", cookie)
	}
	inbox := b.get("/app/").expect(t, 200)
	if !strings.Contains(inbox.Body, `id="list-pane"`) {
		t.Fatalf("inbox page: %.300s", inbox.Body)
	}
	// The link worked once.
	b2 := newTab(t, e)
	b2.get("/app/setup?token="+token).expect(t, 404)
	b2.do("POST", "/app/setup", url.Values{"token": {token}, "password": {"abcdefghijk"}, "password_again": {"abcdefghijk"}}).expect(t, 404)

	b.htmx("POST", "/app/signout", nil).expect(t, http.StatusNoContent)
	b.get("/app/").expect(t, http.StatusSeeOther)
	b.do("POST", "/app/signin", url.Values{"email": {owner.Email}, "password": {"wrong password"}}).expect(t, 401)
	a = b.do("POST", "/app/signin", url.Values{"email": {strings.ToUpper(owner.Email)}, "password": {"0123456789"}, "next": {"/app/?view=UNREAD"}})
	if a.Status != http.StatusSeeOther || a.Header.Get("Location") != "/app/?view=UNREAD" {
		t.Fatalf("sign in: %d %q", a.Status, a.Header.Get("Location"))
	}
	b.get("/app/").expect(t, 200)
	// A next outside the web app is not followed.
	a = b2.do("POST", "/app/signin", url.Values{"email": {owner.Email}, "password": {"0123456789"}, "next": {"//evil.example/"}})
	if a.Header.Get("Location") != "/app/" {
		t.Fatalf("open redirect: %q", a.Header.Get("Location"))
	}
}

// A set-up link lives an hour: a second before, it works; at the hour, it does not.
func TestSetupLinkExpiresAfterAnHour(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	token, _, err := e.Runtime.SignIn.OwnerSetupLink(context.Background(), e.Org.ID)
	if err != nil {
		t.Fatal(err)
	}
	b := newTab(t, e)
	e.Clock.Advance(signin.SetupLinkLife - time.Second)
	b.get("/app/setup?token="+token).expect(t, 200)
	e.Clock.Advance(time.Second)
	b.get("/app/setup?token="+token).expect(t, 404)
	b.do("POST", "/app/setup", url.Values{"token": {token}, "password": {"0123456789"}, "password_again": {"0123456789"}}).expect(t, 404)
}

// The JSON API never accepts the web app's cookie: it stays bearer-only.
func TestAPIRefusesTheSessionCookie(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	b := signedIn(t, e, e.Owner)
	for _, path := range []string{"/orgs/c", "/orgs/c/inbox", "/orgs/c/members"} {
		a := b.get(path)
		if a.Status != http.StatusUnauthorized || !strings.Contains(a.Body, "unauthenticated") {
			t.Fatalf("GET %s with the cookie: %d %s", path, a.Status, a.Body)
		}
	}
	a := b.do("POST", "/orgs/c/contacts", nil, "Content-Type", "application/json")
	if a.Status != http.StatusUnauthorized {
		t.Fatalf("POST with the cookie: %d", a.Status)
	}
}

// Every unsafe request needs the session's CSRF token and this server's Origin.
func TestUnsafeRequestsNeedCSRFTokenAndOrigin(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	c := conversation(t, e, "Ada Lovelace")
	b := signedIn(t, e, e.Owner)
	path := "/app/chats/" + c.ID + "/resolve"
	b.do("POST", path, url.Values{}, "HX-Request", "true").expect(t, 403)                            // no token
	b.do("POST", path, url.Values{}, "HX-Request", "true", "X-CSRF-Token", "forged").expect(t, 403)  // wrong token
	b.htmx("POST", path, nil, "Origin", "http://evil.example").expect(t, 403)                        // another site
	b.htmx("POST", path, nil, "Origin", "-").expect(t, 403)                                          // no Origin
	b.do("POST", path, url.Values{"csrf": {b.csrf}}, "Origin", "http://evil.example").expect(t, 403) // form, foreign
	b.htmx("POST", path, nil).expect(t, 200)                                                         // both right
	var chat struct{ State struct{ State string } }
	e.Do("GET", "/orgs/c/chats/"+c.ID, e.AdminKey, nil).Expect(200).JSON(&chat)
	if chat.State.State != "CLOSED" {
		t.Fatalf("state %q after the one accepted request", chat.State.State)
	}
	// Sign-in has no session yet: its form is refused from another origin all the same.
	newTab(t, e).do("POST", "/app/signin", url.Values{"email": {"a@b.c"}, "password": {"x"}}, "Origin", "http://evil.example").expect(t, 403)
}

// Sign-in is throttled per account (5 at once, then one a minute) and per IP (30 at once,
// then one every 3 s); a refused attempt says when to try again and costs nothing.
func TestSignInThrottledPerAccountAndPerIP(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	b := signedIn(t, e, e.Owner)
	email := e.Owner.Email
	try := func(email, pw string) answer {
		return b.do("POST", "/app/signin", url.Values{"email": {email}, "password": {pw}})
	}
	// Per IP: different accounts from one address.
	for i := 0; i < signin.IPBurst; i++ {
		try("nobody"+string(rune('a'+i%26))+string(rune('a'+i/26))+"@example.com", "whatever1234").expect(t, 401)
	}
	try("someone.else@example.com", "whatever1234").expect(t, 429)
	e.Clock.Advance(signin.IPEvery)
	try("someone.else@example.com", "whatever1234").expect(t, 401)
	try("someone.else@example.com", "whatever1234").expect(t, 429)
	e.Clock.Advance(signin.IPEvery * signin.IPBurst) // the address's bucket is full again

	// Per account.
	for i := 0; i < signin.AccountBurst; i++ {
		try(email, "wrong password").expect(t, 401)
	}
	a := try(email, testPassword).expect(t, 429) // the right password is refused too
	if a.Header.Get("Retry-After") == "" || !strings.Contains(a.Body, "Too many sign-in attempts") {
		t.Fatalf("429 without Retry-After or message: %v %.200s", a.Header, a.Body)
	}
	e.Clock.Advance(signin.AccountEvery)
	try(email, testPassword).expect(t, http.StatusSeeOther)
	try(email, testPassword).expect(t, 429)
}

// A password change, a deleted member and a sign-out everywhere end sessions.
func TestSessionsEndOnPasswordChangeDeletionAndSignOutEverywhere(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	m := e.Member(e.AdminKey, e.Org.ID, "Grace Hopper", "MEMBER")
	one, two := signedIn(t, e, m), newTab(t, e)
	two.do("POST", "/app/signin", url.Values{"email": {m.Email}, "password": {testPassword}}).expect(t, http.StatusSeeOther)
	two.get("/app/").expect(t, 200)

	two.htmx("POST", "/app/signout-everywhere", nil).expect(t, http.StatusNoContent)
	one.get("/app/").expect(t, http.StatusSeeOther)
	two.get("/app/").expect(t, http.StatusSeeOther)

	one.do("POST", "/app/signin", url.Values{"email": {m.Email}, "password": {testPassword}}).expect(t, http.StatusSeeOther)
	one.get("/app/").expect(t, 200)
	if _, err := e.Runtime.SignIn.SetPasswordByEmail(context.Background(), "", m.Email, "a new password"); err != nil {
		t.Fatal(err)
	}
	one.get("/app/").expect(t, http.StatusSeeOther)
	one.do("POST", "/app/signin", url.Values{"email": {m.Email}, "password": {testPassword}}).expect(t, 401)
	one.do("POST", "/app/signin", url.Values{"email": {m.Email}, "password": {"a new password"}}).expect(t, http.StatusSeeOther)
	one.get("/app/").expect(t, 200)

	e.Do("DELETE", "/orgs/c/members/"+m.ID, e.AdminKey, nil).Expect(204)
	one.get("/app/").expect(t, http.StatusSeeOther)
	one.do("POST", "/app/signin", url.Values{"email": {m.Email}, "password": {"a new password"}}).expect(t, 401)
}

// A session lasts 30 days: a second before, the page opens; at 30 days, sign in again.
func TestSessionExpiresAfterThirtyDays(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	b := signedIn(t, e, e.Owner)
	e.Clock.Advance(signin.SessionLife - time.Second)
	b.get("/app/").expect(t, 200)
	e.Clock.Advance(time.Second)
	a := b.get("/app/?view=UNREAD").expect(t, http.StatusSeeOther)
	if loc := a.Header.Get("Location"); loc != "/app/signin?next=%2Fapp%2F%3Fview%3DUNREAD" {
		t.Fatalf("redirect %q", loc)
	}
	// An htmx request is sent to sign in through HX-Redirect, not answered with a page.
	if a := b.get("/app/", "HX-Request", "true"); a.Status != 401 || a.Header.Get("HX-Redirect") == "" {
		t.Fatalf("htmx after expiry: %d %v", a.Status, a.Header)
	}
	n, err := e.Runtime.SignIn.PurgeExpired(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("purge: %d %v", n, err)
	}
}
