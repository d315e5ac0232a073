package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"wsapi/app/connection"
)

// provider is a local OAuth provider: a token endpoint that answers token (as JSON, or as a
// form when form is set) for the code "good" and the error body otherwise, and a user-info
// endpoint that answers user for the token it issued.
type provider struct {
	token    map[string]any
	form     bool
	user     string // user-info body
	userCode int
	got      url.Values // the last token request's form
}

func (p *provider) serve(t *testing.T) connection.OAuthProvider {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		p.got = r.PostForm
		if r.PostForm.Get("code") != "good" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":"invalid_grant","error_description":"the code has expired"}`)
			return
		}
		if p.form {
			v := url.Values{}
			for k, val := range p.token {
				v.Set(k, fmt.Sprint(val))
			}
			w.Header().Set("Content-Type", "application/x-www-form-urlencoded")
			fmt.Fprint(w, v.Encode())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(p.token)
	})
	mux.HandleFunc("/userinfo", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+fmt.Sprint(p.token["access_token"]) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(p.userCode)
		fmt.Fprint(w, p.user)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return connection.OAuthProvider{ClientID: "cid", ClientSecret: "csecret", AuthURL: srv.URL + "/auth", TokenURL: srv.URL + "/token",
		UserinfoURL: srv.URL + "/userinfo", Scopes: []string{"read"}}
}

// TestExchange: the code goes to the token endpoint with the client's credentials and
// redirect URL; the token's fields and the user's id and name come back, whichever names
// the provider uses for them.
func TestExchange(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		token    map[string]any
		form     bool
		user     string
		want     connection.OAuthToken
		wantUser connection.OAuthUser
	}{
		{"json token, id and name", map[string]any{"access_token": "at1", "refresh_token": "rt1", "token_type": "bearer",
			"expires_in": 3600, "scope": "read write"}, false, `{"id": "u1", "name": "Ada"}`,
			connection.OAuthToken{AccessToken: "at1", RefreshToken: "rt1", ExpiresIn: time.Hour, Scope: "read write"},
			connection.OAuthUser{ExternalID: "u1", ExternalName: "Ada"}},
		{"numeric id, login", map[string]any{"access_token": "at2", "token_type": "bearer"}, false,
			`{"id": 12345678901, "login": "ada"}`,
			connection.OAuthToken{AccessToken: "at2"}, connection.OAuthUser{ExternalID: "12345678901", ExternalName: "ada"}},
		{"sub and email, empty name skipped", map[string]any{"access_token": "at3", "token_type": "bearer"}, false,
			`{"sub": "s-9", "name": "", "email": "ada@example.com"}`,
			connection.OAuthToken{AccessToken: "at3"}, connection.OAuthUser{ExternalID: "s-9", ExternalName: "ada@example.com"}},
		{"form-encoded token keeps its lifetime", map[string]any{"access_token": "at4", "token_type": "bearer", "expires_in": 7200}, true,
			`{"user_id": "u4", "username": "lovelace"}`,
			connection.OAuthToken{AccessToken: "at4", ExpiresIn: 2 * time.Hour}, connection.OAuthUser{ExternalID: "u4", ExternalName: "lovelace"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := &provider{token: tc.token, form: tc.form, user: tc.user, userCode: 200}
			conf := p.serve(t)
			tok, user, err := New().Exchange(context.Background(), conf, "https://api.example/cb", "good")
			if err != nil {
				t.Fatal(err)
			}
			// A form answer's lifetime is rebuilt from an expiry: allow the second it took.
			if d := tok.ExpiresIn - tc.want.ExpiresIn; d < -time.Second || d > 0 {
				t.Errorf("expires in %s, want %s", tok.ExpiresIn, tc.want.ExpiresIn)
			}
			tok.ExpiresIn = tc.want.ExpiresIn
			if tok != tc.want || user != tc.wantUser {
				t.Errorf("token %+v user %+v; want %+v %+v", tok, user, tc.want, tc.wantUser)
			}
			if p.got.Get("redirect_uri") != "https://api.example/cb" || p.got.Get("grant_type") != "authorization_code" {
				t.Errorf("token request %v", p.got)
			}
		})
	}
}

// TestExchangeFailures: a refused code reports the provider's error and description; a
// failing or non-JSON user-info endpoint is an error; without a user-info URL no user is read.
func TestExchangeFailures(t *testing.T) {
	t.Parallel()
	token := map[string]any{"access_token": "at", "token_type": "bearer"}
	ctx := context.Background()

	p := &provider{token: token, user: `{}`, userCode: 200}
	conf := p.serve(t)
	if _, _, err := New().Exchange(ctx, conf, "https://x/cb", "bad"); err == nil || err.Error() != "invalid_grant the code has expired" {
		t.Errorf("refused code: %v", err)
	}

	for _, tc := range []struct {
		name, body string
		code       int
		want       string
	}{
		{"user info refused", `{"error":"nope"}`, 403, "user info: HTTP 403"},
		{"user info not JSON", `<html>`, 200, "user info: not JSON"},
	} {
		p := &provider{token: token, user: tc.body, userCode: tc.code}
		conf := p.serve(t)
		if _, _, err := New().Exchange(ctx, conf, "https://x/cb", "good"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}

	p = &provider{token: token, user: `not read`, userCode: 500}
	conf = p.serve(t)
	conf.UserinfoURL = ""
	tok, user, err := New().Exchange(ctx, conf, "https://x/cb", "good")
	if err != nil || tok.AccessToken != "at" || user != (connection.OAuthUser{}) {
		t.Errorf("without user info: %+v %+v %v", tok, user, err)
	}
}
