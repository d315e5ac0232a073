// Package oauth exchanges authorization codes with configured providers (golang.org/x/oauth2)
// and reads the user the token belongs to.
package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"golang.org/x/oauth2"

	"wsapi/app/connection"
)

// Client talks to providers. Their endpoints come from the operator's configuration, not
// from users, so it is a plain client with a timeout.
type Client struct {
	HTTP *http.Client
}

// New makes a client with a 15-second timeout.
func New() *Client { return &Client{HTTP: &http.Client{Timeout: 15 * time.Second}} }

// Exchange swaps the code for a token, then reads the user-info endpoint.
func (c *Client) Exchange(ctx context.Context, p connection.OAuthProvider, redirectURL, code string) (connection.OAuthToken, connection.OAuthUser, error) {
	conf := &oauth2.Config{ClientID: p.ClientID, ClientSecret: p.ClientSecret, RedirectURL: redirectURL, Scopes: p.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: p.AuthURL, TokenURL: p.TokenURL}}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, c.HTTP)
	tok, err := conf.Exchange(ctx, code)
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.ErrorCode != "" {
			return connection.OAuthToken{}, connection.OAuthUser{}, fmt.Errorf("%s %s", re.ErrorCode, re.ErrorDescription)
		}
		return connection.OAuthToken{}, connection.OAuthUser{}, err
	}
	out := connection.OAuthToken{AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken,
		ExpiresIn: time.Duration(tok.ExpiresIn) * time.Second}
	if out.ExpiresIn == 0 && !tok.Expiry.IsZero() { // a form-encoded answer: oauth2 kept only the expiry
		out.ExpiresIn = time.Until(tok.Expiry).Round(time.Second)
	}
	if s, ok := tok.Extra("scope").(string); ok {
		out.Scope = s
	}
	user, err := c.userinfo(ctx, p.UserinfoURL, tok.AccessToken)
	return out, user, err
}

func (c *Client) userinfo(ctx context.Context, endpoint, token string) (connection.OAuthUser, error) {
	if endpoint == "" {
		return connection.OAuthUser{}, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return connection.OAuthUser{}, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	res, err := c.HTTP.Do(req)
	if err != nil {
		return connection.OAuthUser{}, fmt.Errorf("user info: %w", err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if res.StatusCode != http.StatusOK {
		return connection.OAuthUser{}, fmt.Errorf("user info: HTTP %d", res.StatusCode)
	}
	var fields map[string]any
	if err := json.Unmarshal(body, &fields); err != nil {
		return connection.OAuthUser{}, fmt.Errorf("user info: not JSON")
	}
	return connection.OAuthUser{ExternalID: first(fields, "id", "sub", "user_id"), ExternalName: first(fields, "name", "login", "email", "username")}, nil
}

// first answers the first of the keys present, as text.
func first(m map[string]any, keys ...string) string {
	for _, k := range keys {
		switch v := m[k].(type) {
		case string:
			if v != "" {
				return v
			}
		case float64:
			return fmt.Sprintf("%.0f", v)
		}
	}
	return ""
}
