// Package webhook delivers events to customer endpoints: the SSRF-guarded HTTP client, the
// signature, and the dispatcher that claims due deliveries and runs them on workers.
package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"syscall"
	"time"

	"wsapi/app"
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

// ErrForbiddenAddress is the dial error for an address outbound requests may not reach.
var ErrForbiddenAddress = errors.New("forbidden target address")

// ClientOptions configure the guarded client.
type ClientOptions struct {
	Timeout      time.Duration
	AllowPrivate bool
	// CAFile adds a CA (PEM) to the system roots, for endpoints with a private CA.
	CAFile string
	// Resolver replaces the system resolver (tests point names at chosen addresses).
	Resolver app.Resolver
	// FollowRedirects lets the client follow up to 5 redirects (crawls); each hop is still
	// checked at dial time. Webhook deliveries never follow them.
	FollowRedirects bool
}

// NewHTTPClient is an outbound client that refuses forbidden addresses at dial time, on the
// address actually connected, so DNS rebinding cannot reach an internal service. It ignores
// proxies from the environment and never follows redirects.
func NewHTTPClient(o ClientOptions) (*http.Client, error) {
	roots, err := x509.SystemCertPool()
	if err != nil || roots == nil {
		roots = x509.NewCertPool()
	}
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("webhook: ca_file: %w", err)
		}
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("webhook: ca_file %s holds no PEM certificate", o.CAFile)
		}
	}
	dialer := &net.Dialer{Timeout: o.Timeout, KeepAlive: 30 * time.Second}
	if !o.AllowPrivate {
		dialer.Control = guardControl
	}
	var resolver app.Resolver = net.DefaultResolver
	if o.Resolver != nil {
		resolver = o.Resolver
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           resolvingDial(dialer, resolver),
		TLSClientConfig:       &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   o.Timeout,
		ResponseHeaderTimeout: o.Timeout,
		MaxIdleConnsPerHost:   32,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	client := &http.Client{
		Transport:     transport,
		Timeout:       o.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	if o.FollowRedirects {
		client.CheckRedirect = func(_ *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("stopped after 5 redirects")
			}
			return nil
		}
	}
	return client, nil
}

// guardControl runs on every socket just before connect, with the literal address.
func guardControl(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, host)
	}
	if class := app.ForbiddenAddr(a); class != "" {
		return fmt.Errorf("%w: %s is not a public address (%s)", ErrForbiddenAddress, a, class)
	}
	return nil
}

// resolvingDial resolves with the given resolver and dials the addresses in turn, so an
// injected resolver decides what is dialled and the Control hook sees each address.
func resolvingDial(d *net.Dialer, r app.Resolver) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if app.IsLocalhostName(host) && d.Control != nil {
			return nil, fmt.Errorf("%w: %s", ErrForbiddenAddress, host)
		}
		var addrs []netip.Addr
		if a, err := netip.ParseAddr(host); err == nil {
			addrs = []netip.Addr{a}
		} else if addrs, err = r.LookupNetIP(ctx, "ip", host); err != nil {
			return nil, err
		}
		var firstErr error
		for _, a := range addrs {
			conn, err := d.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
			if err == nil {
				return conn, nil
			}
			if firstErr == nil {
				firstErr = err
			}
		}
		if firstErr == nil {
			firstErr = fmt.Errorf("no address for %s", host)
		}
		return nil, firstErr
	}
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
	case errors.Is(err, ErrForbiddenAddress):
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
