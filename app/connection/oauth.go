package connection

import (
	"context"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"wsapi/app"
)

// OAuthProvider is one provider's endpoints and client credentials (oauth.providers.<TYPE>);
// URLs may hold {subdomain}.
type OAuthProvider struct {
	ClientID     string
	ClientSecret string
	AuthURL      string
	TokenURL     string
	UserinfoURL  string
	APIURL       string
	Scopes       []string
}

// WithSubdomain fills {subdomain} in every URL.
func (p OAuthProvider) WithSubdomain(sub string) OAuthProvider {
	r := strings.NewReplacer("{subdomain}", sub)
	p.AuthURL, p.TokenURL, p.UserinfoURL, p.APIURL = r.Replace(p.AuthURL), r.Replace(p.TokenURL), r.Replace(p.UserinfoURL), r.Replace(p.APIURL)
	return p
}

// OAuthToken is what a code exchange answers.
type OAuthToken struct {
	AccessToken  string
	RefreshToken string
	// ExpiresIn is the provider's expires_in: a lifetime, which the service anchors on its own
	// clock (0: the provider gave none).
	ExpiresIn time.Duration
	Scope     string
}

// OAuthUser is the account the token belongs to.
type OAuthUser struct {
	ExternalID   string `json:"external_id"`
	ExternalName string `json:"external_name"`
}

// OAuthExchanger swaps a code for a token and reads the user (app/oauth).
type OAuthExchanger interface {
	Exchange(ctx context.Context, p OAuthProvider, redirectURL, code string) (OAuthToken, OAuthUser, error)
}

// OAuthResultConfig is the config part of the spec's validation result.
type OAuthResultConfig struct {
	Type          string `json:"type"`
	AccessToken   string `json:"access_token"`
	RefreshToken  string `json:"refresh_token"`
	ExpiresIn     int64  `json:"expires_in"`
	NextRefreshAt int64  `json:"next_refresh_at"`
	Scope         string `json:"scope"`
	APIURL        string `json:"api_url"`
	Subdomain     string `json:"subdomain"`
}

// OAuthResult is the spec's OAuth connection validation result.
type OAuthResult struct {
	Config OAuthResultConfig `json:"config"`
	User   OAuthUser         `json:"user"`
}

// OAuthAuthorizeInput starts an authorization: where the provider should send the user back.
type OAuthAuthorizeInput struct {
	Type        string `json:"type"`
	RedirectURL string `json:"redirect_url"`
	// Subdomain is nil when absent: given, even "", it must match the spec's pattern.
	Subdomain *string `json:"subdomain"`
}

// OAuthAuthorization is the URL to send the user to, with its signed state.
type OAuthAuthorization struct {
	URL   string `json:"url"`
	State string `json:"state"`
}

// OAuthValidateInput is the spec's Validate an OAuth provider.
type OAuthValidateInput struct {
	Type          string `json:"type"`
	ValidationURL string `json:"validation_url"`
	// Subdomain is nil when absent: given, even "", it must match the spec's pattern.
	Subdomain *string `json:"subdomain"`
}

var subdomainPattern = regexp.MustCompile(`^[a-z0-9-]+$`)

// stateLifetime bounds how long a user may take at the provider.
const stateLifetime = time.Hour

// oauthProvider checks type and subdomain, each on its own, so that one 400 names both, and
// answers the provider with the subdomain filled in.
func (s *Service) oauthProvider(p app.Problems, typ string, subdomain *string) (OAuthProvider, bool) {
	sub := deref(subdomain)
	if subdomain != nil && !subdomainPattern.MatchString(sub) {
		p.Add("subdomain", "must match ^[a-z0-9-]+$")
	}
	if !slices.Contains(app.ConnectionTypes, typ) {
		p.Add("type", typeChoice())
		return OAuthProvider{}, false
	}
	prov, ok := s.providers[typ]
	if !ok {
		p.Add("type", "no OAuth provider is configured for "+typ+" (oauth.providers."+typ+")")
		return OAuthProvider{}, false
	}
	return prov.WithSubdomain(sub), true
}

// AuthorizeOAuth answers the provider's authorization URL with a state signed for this
// organization and type, which validate checks (no forged callbacks).
func (s *Service) AuthorizeOAuth(ctx context.Context, c app.Caller, in OAuthAuthorizeInput) (OAuthAuthorization, error) {
	p := app.Problems{}
	prov, ok := s.oauthProvider(p, in.Type, in.Subdomain)
	u, err := url.Parse(in.RedirectURL)
	if err != nil || !u.IsAbs() || len(in.RedirectURL) > 2048 {
		p.Add("redirect_url", "must be an absolute URL")
	}
	if err := p.Err(); err != nil || !ok {
		return OAuthAuthorization{}, p.Err()
	}
	state := s.tokens.Sign("oauth", c.OrgID+"|"+in.Type+"|"+strconv.FormatInt(s.svc.Clock().Now().Unix(), 10)+"|"+app.RandomBase62(12))
	q := url.Values{"response_type": {"code"}, "client_id": {prov.ClientID}, "redirect_uri": {in.RedirectURL},
		"state": {state}}
	if len(prov.Scopes) > 0 {
		q.Set("scope", strings.Join(prov.Scopes, " "))
	}
	sep := "?"
	if strings.Contains(prov.AuthURL, "?") {
		sep = "&"
	}
	return OAuthAuthorization{URL: prov.AuthURL + sep + q.Encode(), State: state}, nil
}

// ValidateOAuth takes the URL the provider redirected to, checks its state, exchanges the
// code and reads the user. A provider error is a 400 carrying the provider's text.
func (s *Service) ValidateOAuth(ctx context.Context, c app.Caller, in OAuthValidateInput) (OAuthResult, error) {
	p := app.Problems{}
	prov, ok := s.oauthProvider(p, in.Type, in.Subdomain)
	u, err := url.Parse(in.ValidationURL)
	switch {
	case app.CharCount(in.ValidationURL) > 10000:
		p.Add("validation_url", "must be at most 10000 characters")
	case in.ValidationURL == "" || err != nil || !u.IsAbs():
		p.Add("validation_url", "must be the absolute URL the provider redirected to")
	}
	if err := p.Err(); err != nil || !ok {
		return OAuthResult{}, p.Err()
	}
	q := u.Query()
	if e := q.Get("error"); e != "" {
		return OAuthResult{}, app.Invalid("validation_url", "the provider refused: "+strings.TrimSpace(e+" "+q.Get("error_description")))
	}
	if q.Get("code") == "" {
		return OAuthResult{}, app.Invalid("validation_url", "carries no code")
	}
	if err := s.spendState(ctx, q.Get("state"), c.OrgID, in.Type); err != nil {
		return OAuthResult{}, err
	}
	redirect := *u
	redirect.RawQuery, redirect.Fragment = "", ""
	tok, user, err := s.exchanger.Exchange(ctx, prov, redirect.String(), q.Get("code"))
	if err != nil {
		return OAuthResult{}, app.Invalid("validation_url", "the provider refused the code: "+err.Error())
	}
	return oauthResult(tok, user, prov, deref(in.Subdomain), s.svc.Clock().Now()), nil
}

// spendState checks that a state was issued by this server for this organization and type
// within the hour, and spends it: a state answers one validation, whatever its outcome at the
// provider, so a leaked redirect URL cannot be replayed.
func (s *Service) spendState(ctx context.Context, state, orgID, typ string) error {
	payload, ok := s.tokens.Verify("oauth", state)
	parts := strings.Split(payload, "|")
	var issued int64
	var err error
	if ok && len(parts) == 4 && parts[0] == orgID && parts[1] == typ {
		issued, err = strconv.ParseInt(parts[2], 10, 64)
	}
	expires := time.Unix(issued, 0).Add(stateLifetime)
	if !ok || len(parts) != 4 || parts[0] != orgID || parts[1] != typ || err != nil || s.svc.Clock().Now().After(expires) {
		return app.Invalid("validation_url", "its state was not issued by this server for this organization and type, or has expired")
	}
	return s.svc.Store().Write(ctx, func(tx app.Tx) error {
		fresh, err := tx.SpendOAuthState(payload, app.At(expires), s.now())
		if err == nil && !fresh {
			err = app.Invalid("validation_url", "its state was already used: start the authorization again")
		}
		return err
	})
}

func oauthResult(tok OAuthToken, user OAuthUser, prov OAuthProvider, sub string, now time.Time) OAuthResult {
	cfg := OAuthResultConfig{Type: "OAUTH", AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken,
		Scope: tok.Scope, APIURL: prov.APIURL, Subdomain: sub}
	if tok.ExpiresIn > 0 {
		cfg.ExpiresIn = int64(tok.ExpiresIn.Seconds())
		// Refresh five minutes before expiry; milliseconds since the epoch.
		cfg.NextRefreshAt = now.Add(tok.ExpiresIn - 5*time.Minute).UnixMilli()
	}
	return OAuthResult{Config: cfg, User: user}
}

// deref is the text of an optional field, "" when absent.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
