package whatsapp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// DefaultAPIURL is the Graph API base URL, version included (channels.whatsapp.api_url).
const DefaultAPIURL = "https://graph.facebook.com/v21.0"

// Client calls the Graph API of one base URL. The base URL comes from the configuration, never
// from a tenant, so it is not a tenant URL for app/safehttp.
type Client struct {
	APIURL string
	HTTP   *http.Client
}

// NewClient makes a client of the base URL (DefaultAPIURL when empty) with a bounded timeout.
func NewClient(apiURL string) *Client {
	if apiURL == "" {
		apiURL = DefaultAPIURL
	}
	return &Client{APIURL: strings.TrimRight(apiURL, "/"), HTTP: &http.Client{Timeout: 30 * time.Second}}
}

// APIError is the Graph API's error: {"error": {message, type, code, error_subcode, fbtrace_id}}.
type APIError struct {
	HTTPStatus int    `json:"-"`
	Message    string `json:"message"`
	Type       string `json:"type"`
	Code       int    `json:"code"`
	Subcode    int    `json:"error_subcode"`
	FBTraceID  string `json:"fbtrace_id"`
	Data       struct {
		Details string `json:"details"`
	} `json:"error_data"`
}

func (e *APIError) Error() string {
	msg := e.Message
	if e.Data.Details != "" && !strings.Contains(msg, e.Data.Details) {
		msg += ": " + e.Data.Details
	}
	return fmt.Sprintf("WhatsApp: %s (code %d)", msg, e.Code)
}

// maxAnswer bounds a JSON answer of the Graph API.
const maxAnswer = 1 << 20

// call sends a JSON request (body nil: none) with the access token and decodes the answer
// into out; a Graph error comes back as *APIError.
func (c *Client) call(ctx context.Context, token, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.APIURL+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return c.send(req, token, out)
}

// send runs a prepared request with the bearer token and decodes its answer.
func (c *Client) send(req *http.Request, token string, out any) error {
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("WhatsApp: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return fmt.Errorf("WhatsApp: reading the answer: %w", err)
	}
	if resp.StatusCode >= 300 {
		var e struct {
			Error *APIError `json:"error"`
		}
		if json.Unmarshal(raw, &e) == nil && e.Error != nil {
			e.Error.HTTPStatus = resp.StatusCode
			return e.Error
		}
		return &APIError{HTTPStatus: resp.StatusCode, Message: "the Graph API answered " + resp.Status}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("WhatsApp: an answer that is not the Graph API's: %w", err)
	}
	return nil
}
