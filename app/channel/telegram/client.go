package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"time"

	"wsapi/app/channel"
)

// Client calls the Bot API at BaseURL (https://api.telegram.org or a local server).
type Client struct {
	BaseURL string
	HTTP    *http.Client
}

// APIError is an answer with ok false: Telegram's error_code (the HTTP status), its
// description, and the wait a 429 asks for.
type APIError struct {
	Method      string
	Code        int
	Description string
	RetryAfter  int
}

func (e *APIError) Error() string {
	return "telegram " + e.Method + ": " + e.Description
}

// answer is the Bot API's envelope.
type answer struct {
	OK          bool            `json:"ok"`
	Result      json.RawMessage `json:"result"`
	ErrorCode   int             `json:"error_code"`
	Description string          `json:"description"`
	Parameters  *struct {
		RetryAfter int `json:"retry_after"`
	} `json:"parameters"`
}

// maxAnswer bounds an answer read from the Bot API (a getMe or a sent Message is small).
const maxAnswer = 1 << 20

// Call posts params as JSON to /bot<token>/<method> and decodes the result into out (nil:
// ignored).
func (c *Client) Call(ctx context.Context, token, method string, params, out any) error {
	body, err := json.Marshal(params)
	if err != nil {
		return err
	}
	return c.do(ctx, token, method, "application/json", bytes.NewReader(body), out)
}

// Upload posts a multipart form with one file (field) to /bot<token>/<method>.
func (c *Client) Upload(ctx context.Context, token, method string, fields map[string]string, field, name string, data []byte, out any) error {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		if err := mw.WriteField(k, v); err != nil {
			return err
		}
	}
	fw, err := mw.CreateFormFile(field, name)
	if err != nil {
		return err
	}
	if _, err := fw.Write(data); err != nil {
		return err
	}
	if err := mw.Close(); err != nil {
		return err
	}
	return c.do(ctx, token, method, mw.FormDataContentType(), &buf, out)
}

func (c *Client) do(ctx context.Context, token, method, contentType string, body io.Reader, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base()+"/bot"+token+"/"+method, body)
	if err != nil {
		return fmt.Errorf("telegram %s: the API address is not valid", method)
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("telegram %s: %w", method, unwrapURL(err))
	}
	defer resp.Body.Close()
	var a answer
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxAnswer)).Decode(&a); err != nil {
		return fmt.Errorf("telegram %s: an answer that is not the Bot API's (HTTP %d)", method, resp.StatusCode)
	}
	if !a.OK {
		e := &APIError{Method: method, Code: a.ErrorCode, Description: a.Description}
		if a.Parameters != nil {
			e.RetryAfter = a.Parameters.RetryAfter
		}
		return e
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(a.Result, out)
}

// Download opens /file/bot<token>/<path>, the file getFile named.
func (c *Client) Download(ctx context.Context, token, path string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base()+"/file/bot"+token+"/"+strings.TrimPrefix(path, "/"), nil)
	if err != nil {
		return nil, errors.New("telegram: the file path is not valid")
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("telegram file download: %w", unwrapURL(err))
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("telegram file download: HTTP %d", resp.StatusCode)
	}
	return resp.Body, nil
}

func (c *Client) base() string { return strings.TrimRight(c.BaseURL, "/") }

// unwrapURL drops the request's URL, which holds the bot token, from a transport error.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// sendError classifies a failed send for the delivery worker: a 429 waits retry_after, a 403
// (blocked by the user, deactivated) and a 400 (chat not found, text rejected) fail at once.
func sendError(err error) error {
	var ae *APIError
	if !errors.As(err, &ae) {
		return err
	}
	switch {
	case ae.Code == http.StatusTooManyRequests:
		return channel.RetryAfter{Err: err, After: time.Duration(max(1, ae.RetryAfter)) * time.Second}
	case ae.Code == http.StatusForbidden || ae.Code == http.StatusBadRequest:
		return channel.Permanent{Err: err}
	}
	return err
}
