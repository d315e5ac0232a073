// Package remote holds what the HTTP model providers (openai, anthropic) share: the per-call
// deadline and the mapping of every failure to an *assist.ProviderError, so both protocols
// classify errors the same way for the run loop.
package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"wsapi/app/assist"
)

// errTimeout is the cause of a call's context when the provider's timeout ran out, which tells
// it apart from the caller's cancel.
var errTimeout = errors.New("timeout")

// Call is one model call's identity and deadline: the provider's name and key (to redact) and
// the contexts that tell a timeout from a cancel.
type Call struct {
	Provider string
	Key      string
	Timeout  time.Duration
	parent   context.Context
	ctx      context.Context
}

// Start bounds the whole call (headers and every streamed chunk) by timeout; stop releases it.
func Start(parent context.Context, provider, key string, timeout time.Duration) (c *Call, ctx context.Context, stop func()) {
	ctx, cancel := parent, context.CancelFunc(func() {})
	if timeout > 0 {
		ctx, cancel = context.WithTimeoutCause(parent, timeout, errTimeout)
	}
	c = &Call{Provider: provider, Key: key, Timeout: timeout, parent: parent, ctx: ctx}
	return c, ctx, cancel
}

// Redact removes the API key from a text that came from the provider or the transport: a
// compatible server may echo it in an error message.
func (c *Call) Redact(s string) string {
	if c.Key == "" {
		return s
	}
	return strings.ReplaceAll(s, c.Key, "[redacted]")
}

// StatusError is the error of a provider that answered with an HTTP error status (or an error
// event that stands for one). 429 and 5xx (Anthropic's 529 overload included) are retryable.
func (c *Call) StatusError(status int, header http.Header, message string) *assist.ProviderError {
	if message == "" {
		message = http.StatusText(status)
	}
	return &assist.ProviderError{
		Provider:   c.Provider,
		Status:     status,
		Retryable:  status == http.StatusTooManyRequests || status >= 500,
		RetryAfter: RetryAfter(header, time.Now()),
		Message:    c.Redact(message),
	}
}

// Failure maps an error that is not an HTTP status: the caller's cancel stays a context error
// (the run loop cancels, it does not retry), the call's own timeout and connection failures
// (refused, reset, cut mid-stream) are retryable *ProviderErrors with status 0, anything else
// (a malformed stream, a TLS failure) is a ProviderError that is not retried.
func (c *Call) Failure(err error) error {
	if c.parent.Err() != nil {
		return fmt.Errorf("provider %s: %w", c.Provider, context.Cause(c.parent))
	}
	pe := &assist.ProviderError{Provider: c.Provider, Message: c.Redact(err.Error())}
	switch {
	case errors.Is(context.Cause(c.ctx), errTimeout):
		pe.Retryable = true
		pe.Message = fmt.Sprintf("no complete answer within the timeout of %s", c.Timeout)
	case connectionError(err):
		pe.Retryable = true
	}
	return pe
}

// Incomplete is the error of a stream that ended cleanly but before the protocol's last event:
// a proxy or server that closed early, as retryable as a cut connection.
func (c *Call) Incomplete() *assist.ProviderError {
	return &assist.ProviderError{Provider: c.Provider, Retryable: true,
		Message: "the stream ended before the model finished"}
}

// connectionError reports a failure of the connection itself, worth a retry.
func connectionError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE)
}

// RetryAfter reads the provider's wish to be called again later: `retry-after-ms` (OpenAI's
// precise form) first, then `Retry-After` in seconds or as an HTTP date. 0 when absent or
// unreadable.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 && s < 1e9 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
