package remote

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"wsapi/app/assist"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"none", nil, 0},
		{"seconds", map[string]string{"Retry-After": "12"}, 12 * time.Second},
		{"fraction", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{"http date", map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		{"date passed", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"ms wins", map[string]string{"Retry-After": "3", "retry-after-ms": "250"}, 250 * time.Millisecond},
		{"bad ms falls back", map[string]string{"Retry-After": "3", "retry-after-ms": "soon"}, 3 * time.Second},
		{"garbage", map[string]string{"Retry-After": "later"}, 0},
		{"negative", map[string]string{"Retry-After": "-4"}, 0},
	}
	for _, c := range cases {
		h := http.Header{}
		for k, v := range c.header {
			h.Set(k, v)
		}
		if got := RetryAfter(h, now); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestFailureTellsCancelFromTimeout(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	call, _, stop := Start(parent, "p", "k", time.Hour)
	defer stop()
	cancel()
	if err := call.Failure(errors.New("read: use of closed connection")); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancel gave %v", err)
	}
	call, ctx, stop2 := Start(context.Background(), "p", "k", time.Millisecond)
	defer stop2()
	<-ctx.Done()
	err := call.Failure(ctx.Err())
	if pe, ok := assist.AsProviderError(err); !ok || !pe.Retryable || pe.Status != 0 || !strings.Contains(pe.Message, "timeout") {
		t.Fatalf("timeout gave %v", err)
	}
}
