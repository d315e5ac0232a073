package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"wsapi/app/apitest"
	"wsapi/cli"
)

const (
	cnRedirect     = "https://app.example.test/oauth/callback"
	cnClientID     = "client-123"
	cnClientSecret = "client-secret-456"
)

// cnProvider is a local OAuth provider: /{tenant}/token exchanges "good-code" for a token
// (any other code is invalid_grant), /{tenant}/userinfo answers the user of that token.
type cnProvider struct {
	*httptest.Server
	tokenCalls, userCalls atomic.Int64
	lastTenant            atomic.Value
}

func newCNProvider(t *testing.T) *cnProvider {
	p := &cnProvider{}
	mux := http.NewServeMux()
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) { t.Error("the service called /authorize") })
	mux.HandleFunc("POST /{tenant}/token", func(w http.ResponseWriter, r *http.Request) {
		p.tokenCalls.Add(1)
		p.lastTenant.Store(r.PathValue("tenant"))
		if err := r.ParseForm(); err != nil {
			t.Error(err)
		}
		id, secret, ok := r.BasicAuth()
		if !ok {
			id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		w.Header().Set("Content-Type", "application/json")
		fail := func(code, desc string) {
			w.WriteHeader(400)
			json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
		}
		switch {
		case id != cnClientID || secret != cnClientSecret:
			fail("invalid_client", "unknown client")
		case r.PostForm.Get("grant_type") != "authorization_code":
			fail("unsupported_grant_type", r.PostForm.Get("grant_type"))
		case r.PostForm.Get("redirect_uri") != cnRedirect:
			fail("invalid_grant", "redirect_uri mismatch: "+r.PostForm.Get("redirect_uri"))
		case r.PostForm.Get("code") != "good-code":
			fail("invalid_grant", "bad code")
		default:
			fmt.Fprint(w, `{"access_token":"at-789","refresh_token":"rt-012","token_type":"bearer","expires_in":3600,"scope":"crm.read crm.write"}`)
		}
	})
	mux.HandleFunc("GET /{tenant}/userinfo", func(w http.ResponseWriter, r *http.Request) {
		p.userCalls.Add(1)
		if r.Header.Get("Authorization") != "Bearer at-789" {
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id": 42, "name": "Jane", "email": "jane@example.com"}`)
	})
	mux.HandleFunc("GET /{tenant}/userinfo-broken", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusUnauthorized) })
	p.Server = httptest.NewServer(mux)
	t.Cleanup(p.Close)
	return p
}

// cnOAuthEnv starts a server with HUBSPOT and SALESFORCE providers (the latter's user-info
// endpoint refuses every token).
func cnOAuthEnv(t *testing.T) (*apitest.Env, *cnProvider) {
	p := newCNProvider(t)
	e := apitest.New(t, func(c *cli.Config) {
		c.OAuth.Providers = map[string]cli.OAuthProvider{
			"hubspot": {ClientID: cnClientID, ClientSecret: cnClientSecret, AuthURL: p.URL + "/authorize?tenant={subdomain}",
				TokenURL: p.URL + "/{subdomain}/token", UserinfoURL: p.URL + "/{subdomain}/userinfo",
				APIURL: "https://{subdomain}.api.example.test/v3", Scopes: []string{"crm.read", "crm.write"}},
			"salesforce": {ClientID: cnClientID, ClientSecret: cnClientSecret, AuthURL: p.URL + "/authorize",
				TokenURL: p.URL + "/{subdomain}/token", UserinfoURL: p.URL + "/{subdomain}/userinfo-broken"},
		}
	})
	return e, p
}

// cnAuthorize starts an authorization and answers its state.
func cnAuthorize(e *apitest.Env, key, typ string) string {
	e.T.Helper()
	a := e.Do("POST", "/orgs/c/connections/oauth/authorize", key, map[string]any{"type": typ, "redirect_url": cnRedirect,
		"subdomain": "acme"}).Expect(200).Map()
	return a["state"].(string)
}

// cnValidate posts a validation of typ for a redirect carrying query.
func cnValidate(e *apitest.Env, key, typ string, query url.Values, sub string) *apitest.Response {
	e.T.Helper()
	body := map[string]any{"type": typ, "validation_url": cnRedirect + "?" + query.Encode()}
	if sub != "" {
		body["subdomain"] = sub
	}
	return e.Do("POST", "/orgs/c/connections/oauth/validate", key, body)
}

func TestOAuthAuthorizeAndValidate(t *testing.T) {
	e, p := cnOAuthEnv(t)
	a := e.Do("POST", "/orgs/c/connections/oauth/authorize", e.AdminKey, map[string]any{"type": "HUBSPOT",
		"redirect_url": cnRedirect, "subdomain": "acme"}).Expect(200).Map()
	if cnKeys(a) != "state,url" {
		t.Fatalf("authorize %v", a)
	}
	u, err := url.Parse(a["url"].(string))
	if err != nil || u.Scheme+"://"+u.Host+u.Path != p.URL+"/authorize" {
		t.Fatalf("url %v", a["url"])
	}
	q := u.Query()
	if q.Get("tenant") != "acme" || q.Get("client_id") != cnClientID || q.Get("redirect_uri") != cnRedirect ||
		q.Get("response_type") != "code" || q.Get("scope") != "crm.read crm.write" || q.Get("state") != a["state"] {
		t.Fatalf("query %v", q)
	}
	if strings.Contains(a["url"].(string), cnClientSecret) {
		t.Fatal("the client secret is in the authorization URL")
	}

	res := cnValidate(e, e.AdminKey, "HUBSPOT", url.Values{"code": {"good-code"}, "state": {a["state"].(string)}}, "acme").Expect(200)
	m := res.Map()
	if cnKeys(m) != "config,user" {
		t.Fatalf("result %s", res.Body)
	}
	cfg, user := m["config"].(map[string]any), m["user"].(map[string]any)
	if cnKeys(cfg) != "access_token,api_url,expires_in,next_refresh_at,refresh_token,scope,subdomain,type" ||
		cnKeys(user) != "external_id,external_name" {
		t.Fatalf("result %s", res.Body)
	}
	wantRefresh := float64(e.Clock.Now().Add(55 * time.Minute).UnixMilli())
	if cfg["type"] != "OAUTH" || cfg["access_token"] != "at-789" || cfg["refresh_token"] != "rt-012" ||
		cfg["expires_in"] != 3600.0 || cfg["next_refresh_at"] != wantRefresh || cfg["scope"] != "crm.read crm.write" ||
		cfg["api_url"] != "https://acme.api.example.test/v3" || cfg["subdomain"] != "acme" {
		t.Fatalf("config %v (next_refresh_at want %.0f)", cfg, wantRefresh)
	}
	if user["external_id"] != "42" || user["external_name"] != "Jane" {
		t.Fatalf("user %v", user)
	}
	if p.tokenCalls.Load() != 1 || p.userCalls.Load() != 1 || p.lastTenant.Load() != "acme" {
		t.Fatalf("provider saw %d token and %d user calls (tenant %v)", p.tokenCalls.Load(), p.userCalls.Load(), p.lastTenant.Load())
	}
	// A state stays good for an hour, for one validation (TestOAuthStateIsSingleUse).
	later := cnAuthorize(e, e.AdminKey, "HUBSPOT")
	e.Clock.Advance(59 * time.Minute)
	cnValidate(e, e.AdminKey, "HUBSPOT", url.Values{"code": {"good-code"}, "state": {later}}, "acme").Expect(200)
}

func TestOAuthValidateErrors(t *testing.T) {
	e, p := cnOAuthEnv(t)
	state := cnAuthorize(e, e.AdminKey, "HUBSPOT")
	good := url.Values{"code": {"good-code"}, "state": {state}}

	// The provider refuses the code: 400 carrying its error.
	res := cnValidate(e, e.AdminKey, "HUBSPOT", url.Values{"code": {"stale-code"}, "state": {state}}, "acme").
		ExpectError(400, "invalid_argument", "validation_url")
	if !strings.Contains(string(res.Body), "invalid_grant") || !strings.Contains(string(res.Body), "bad code") {
		t.Fatalf("provider error not carried: %s", res.Body)
	}
	if p.tokenCalls.Load() == 0 {
		t.Fatal("the provider was not asked")
	}
	// The user refused at the provider: no token request at all.
	calls := p.tokenCalls.Load()
	res = cnValidate(e, e.AdminKey, "HUBSPOT", url.Values{"error": {"access_denied"}, "error_description": {"user said no"},
		"state": {state}}, "acme").ExpectError(400, "invalid_argument", "validation_url")
	if !strings.Contains(string(res.Body), "access_denied") {
		t.Fatalf("denial %s", res.Body)
	}
	cnValidate(e, e.AdminKey, "HUBSPOT", url.Values{"state": {state}}, "acme").ExpectError(400, "invalid_argument", "validation_url")

	// States: forged, tampered, of another org, of another type, expired.
	_, subKey := e.OrgWithAdmin("Other")
	otherOrg := cnAuthorize(e, subKey, "HUBSPOT")
	otherType := cnAuthorize(e, e.AdminKey, "SALESFORCE")
	for name, st := range map[string]string{"forged": "forged-state", "empty": "", "tampered": state[:len(state)-2] + "xx",
		"another org": otherOrg, "another type": otherType} {
		res := cnValidate(e, e.AdminKey, "HUBSPOT", url.Values{"code": {"good-code"}, "state": {st}}, "acme")
		if res.Status != 400 || res.ErrorFields()["validation_url"] == "" {
			t.Errorf("%s state: %d %s", name, res.Status, res.Body)
		}
	}
	// The sub-org may use its own state.
	cnValidate(e, subKey, "HUBSPOT", url.Values{"code": {"good-code"}, "state": {otherOrg}}, "acme").Expect(200)
	if p.tokenCalls.Load() != calls+1 {
		t.Fatalf("refused states reached the provider: %d calls", p.tokenCalls.Load()-calls)
	}
	// A provider whose user-info fails: 400 with the reason.
	res = cnValidate(e, e.AdminKey, "SALESFORCE", url.Values{"code": {"good-code"}, "state": {otherType}}, "acme").
		ExpectError(400, "invalid_argument", "validation_url")
	if !strings.Contains(string(res.Body), "401") {
		t.Fatalf("user-info failure %s", res.Body)
	}
	// A redirect that is not the one the code was issued for: the provider says so. (Each
	// validation that reaches the provider spends its state: these take fresh ones.)
	good.Set("state", cnAuthorize(e, e.AdminKey, "HUBSPOT"))
	res = e.Do("POST", "/orgs/c/connections/oauth/validate", e.AdminKey, map[string]any{"type": "HUBSPOT", "subdomain": "acme",
		"validation_url": "https://evil.example.test/cb?" + good.Encode()}).ExpectError(400, "invalid_argument")
	if !strings.Contains(string(res.Body), "redirect_uri mismatch") {
		t.Fatalf("redirect mismatch %s", res.Body)
	}
	// Two hours later the state has expired.
	good.Set("state", cnAuthorize(e, e.AdminKey, "HUBSPOT"))
	e.Clock.Advance(2 * time.Hour)
	cnValidate(e, e.AdminKey, "HUBSPOT", good, "acme").ExpectError(400, "invalid_argument", "validation_url")
}

func TestOAuthValidateBounds(t *testing.T) {
	e, _ := cnOAuthEnv(t)
	state := cnAuthorize(e, e.AdminKey, "HUBSPOT")
	base := cnRedirect + "?" + url.Values{"code": {"good-code"}, "state": {state}}.Encode() + "&pad="
	at := base + strings.Repeat("p", 10000-len(base))
	validate := func(body map[string]any) *apitest.Response {
		return e.DoInvalid("POST", "/orgs/c/connections/oauth/validate", e.AdminKey, body)
	}
	// 10000 characters: accepted, and the extra parameter does not disturb the exchange.
	validate(map[string]any{"type": "HUBSPOT", "validation_url": at, "subdomain": "acme"}).Expect(200)
	res := validate(map[string]any{"type": "HUBSPOT", "validation_url": at + "p", "subdomain": "acme"}).
		ExpectError(400, "invalid_argument", "validation_url")
	if !strings.Contains(res.ErrorFields()["validation_url"], "10000") {
		t.Fatalf("length error %s", res.Body)
	}
	calls := []apitest.Scenario{
		{Name: "bad subdomain", Invalid: true, Method: "POST", URL: "/orgs/c/connections/oauth/validate", Key: e.AdminKey, Body: map[string]any{"type": "HUBSPOT",
			"validation_url": at, "subdomain": "Acme_1"}, Status: 400, Code: "invalid_argument", Fields: []string{"subdomain"}},
		{Name: "subdomain with a dot", Invalid: true, Method: "POST", URL: "/orgs/c/connections/oauth/validate", Key: e.AdminKey, Body: map[string]any{"type": "HUBSPOT",
			"validation_url": at, "subdomain": "acme.evil"}, Status: 400, Code: "invalid_argument", Fields: []string{"subdomain"}},
		{Name: "type without provider", Method: "POST", URL: "/orgs/c/connections/oauth/validate", Key: e.AdminKey, Body: map[string]any{"type": "ZENDESK",
			"validation_url": at}, Status: 400, Code: "invalid_argument", Fields: []string{"type"}},
		{Name: "unknown type", Invalid: true, Method: "POST", URL: "/orgs/c/connections/oauth/validate", Key: e.AdminKey, Body: map[string]any{"type": "NOPE",
			"validation_url": at}, Status: 400, Code: "invalid_argument", Fields: []string{"type"}},
		{Name: "lower-case type", Invalid: true, Method: "POST", URL: "/orgs/c/connections/oauth/validate", Key: e.AdminKey, Body: map[string]any{"type": "hubspot",
			"validation_url": at}, Status: 400, Code: "invalid_argument", Fields: []string{"type"}},
		{Name: "no validation_url", Invalid: true, Method: "POST", URL: "/orgs/c/connections/oauth/validate", Key: e.AdminKey, Body: map[string]any{"type": "HUBSPOT"}, Status: 400, Code: "invalid_argument", Fields: []string{"validation_url"}},
		{Name: "relative validation_url", Method: "POST", URL: "/orgs/c/connections/oauth/validate", Key: e.AdminKey, Body: map[string]any{"type": "HUBSPOT",
			"validation_url": "/cb?code=x"}, Status: 400, Code: "invalid_argument", Fields: []string{"validation_url"}},
		{Name: "all at once", Invalid: true, Method: "POST", URL: "/orgs/c/connections/oauth/validate", Key: e.AdminKey, Body: map[string]any{"type": "HUBSPOT",
			"validation_url": at + "p", "subdomain": "A"}, Status: 400, Code: "invalid_argument", Fields: []string{"validation_url", "subdomain"}},
		{Name: "unknown field", Invalid: true, Method: "POST", URL: "/orgs/c/connections/oauth/validate", Key: e.AdminKey, Body: map[string]any{"type": "HUBSPOT",
			"validation_url": at, "code": "x"}, Status: 400, Code: "invalid_argument", Fields: []string{"code"}},
		{Name: "authorize without provider", Method: "POST", URL: "/orgs/c/connections/oauth/authorize", Key: e.AdminKey, Body: map[string]any{"type": "SLACK",
			"redirect_url": cnRedirect}, Status: 400, Code: "invalid_argument", Fields: []string{"type"}},
		{Name: "authorize relative redirect", Method: "POST", URL: "/orgs/c/connections/oauth/authorize", Key: e.AdminKey, Body: map[string]any{"type": "HUBSPOT",
			"redirect_url": "/cb"}, Status: 400, Code: "invalid_argument", Fields: []string{"redirect_url"}},
		{Name: "authorize bad subdomain", Invalid: true, Method: "POST", URL: "/orgs/c/connections/oauth/authorize", Key: e.AdminKey, Body: map[string]any{"type": "HUBSPOT",
			"redirect_url": cnRedirect, "subdomain": "Acme_1"}, Status: 400, Code: "invalid_argument", Fields: []string{"subdomain"}},
		{Name: "read-only role", Method: "POST", URL: "/orgs/c/connections/oauth/validate", Key: e.RoleKey(e.Org.ID, "connections:read"), Body: map[string]any{"type": "HUBSPOT", "validation_url": at}, Status: 403, Code: "permission_denied"},
	}
	e.Run(t, calls)
}
