// Package webhook delivers events to customer endpoints: the signature, the sender (over
// app/safehttp's guarded client) and the dispatcher that claims due deliveries and runs them
// on workers.
package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"wsapi/app"
	"wsapi/app/safehttp"
)

// MaxResponseBody is how much of an endpoint's answer is kept per attempt.
const MaxResponseBody = 4 << 10

// Sign computes the x-webhook-signature value: HMAC-SHA256 over "<id>.<ts>.<body>" keyed
// with the whole secret string (whsec_ included), as "t=<ts>,v1=<hex>".
func Sign(secret, id string, ts int64, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "%s.%d.", id, ts)
	mac.Write(body)
	return "t=" + strconv.FormatInt(ts, 10) + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// Sender makes signed delivery requests with the guarded client.
type Sender struct {
	HTTP  *http.Client
	Clock app.Clock
}

// NewRequest builds the POST of one delivery attempt: the envelope j.Body to j.URL with the
// five x-webhook-* headers, signed with j.Secret at ts (Unix seconds). The dispatcher and
// `app listen` both send through it, so a receiver sees one format from either.
func NewRequest(ctx context.Context, j app.Job, ts int64) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, j.URL, bytes.NewReader(j.Body))
	if err != nil {
		return nil, err
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "workspace-api-webhooks/1")
	h.Set("x-webhook-id", j.EventID)
	h.Set("x-webhook-event", j.EventType)
	h.Set("x-webhook-timestamp", strconv.FormatInt(ts, 10))
	h.Set("x-webhook-attempt", strconv.Itoa(j.Attempt))
	h.Set("x-webhook-signature", Sign(j.Secret, j.EventID, ts, j.Body))
	return req, nil
}

// Send POSTs the event body with the five x-webhook-* headers and reports the attempt.
func (s *Sender) Send(ctx context.Context, j app.Job) app.Attempt {
	req, err := NewRequest(ctx, j, s.Clock.Now().Unix())
	if err != nil {
		return failed(err.Error(), 0)
	}
	start := time.Now()
	res, err := s.HTTP.Do(req)
	elapsed := time.Since(start)
	if err != nil {
		return failed(describe(err), elapsed)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, MaxResponseBody))
	_, _ = io.CopyN(io.Discard, res.Body, 64<<10) // let the connection be reused
	code := res.StatusCode
	a := app.Attempt{Status: app.AttemptSucceeded, ResponseCode: &code, ResponseBody: string(body), DurationMs: ms(elapsed)}
	if code < 200 || code > 299 {
		a.Status = app.AttemptFailed
		msg := "HTTP " + strconv.Itoa(code)
		if code >= 300 && code < 400 {
			msg += " (redirects are not followed)"
		}
		a.Error = &msg
	}
	return a
}

func failed(msg string, elapsed time.Duration) app.Attempt {
	return app.Attempt{Status: app.AttemptFailed, Error: &msg, DurationMs: ms(elapsed)}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// describe turns a client error into a short message for the attempt record.
func describe(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, safehttp.ErrForbiddenAddress):
		var oe *net.OpError
		if errors.As(err, &oe) && oe.Err != nil {
			return oe.Err.Error()
		}
		return err.Error()
	case errors.As(err, &ne) && ne.Timeout():
		return "timed out: " + err.Error()
	}
	return err.Error()
}
