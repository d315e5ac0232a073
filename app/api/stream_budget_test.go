package api_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// budgetEnv is a stream environment with small stream caps.
func budgetEnv(t *testing.T, total, perKey, perMember, perIP int) *apitest.Env {
	t.Helper()
	return stEnv(t, func(c *cli.Config) {
		c.Events.MaxStreams, c.Events.MaxStreamsPerKey = total, perKey
		c.Events.MaxStreamsPerMember, c.Events.MaxStreamsPerIP = perMember, perIP
	})
}

// noPermKey is the key of a new member whose role holds no permission at all.
func noPermKey(e *apitest.Env) string {
	e.T.Helper()
	var role app.Role
	e.Do("POST", "/orgs/c/roles", e.AdminKey, map[string]any{"name": "nothing " + app.RandomBase62(6),
		"permissions": []string{}}).Expect(201).JSON(&role)
	m := e.Member(e.AdminKey, "c", "nobody "+app.RandomBase62(6), role.ID)
	return e.Key(e.AdminKey, "c", m.ID)
}

// refusedStream opens path with key and fails the test unless it is refused at once with
// 429 rate_limited and a Retry-After, naming the cap's holder.
func refusedStream(t *testing.T, e *apitest.Env, path, key, holder string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", e.Server.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := e.Server.Client().Do(req)
	if err != nil {
		t.Fatalf("stream %s: %v", path, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("stream past the cap: status %d, want 429 (not held open)", res.StatusCode)
	}
	body, err := io.ReadAll(res.Body) // a refusal ends: it is not held open
	if err != nil {
		t.Fatal(err)
	}
	r := &apitest.Response{T: t, Status: res.StatusCode, Header: res.Header, Body: body}
	r.ExpectError(429, "rate_limited")
	if got := res.Header.Get("Retry-After"); got != "10" {
		t.Fatalf("Retry-After %q, want 10", got)
	}
	if msg := r.Map()["error"].(map[string]any)["message"].(string); !strings.Contains(msg, holder) {
		t.Fatalf("message %q does not name %q", msg, holder)
	}
}

// TestOneKeyCannotHoldMoreStreamsThanItsCap is the audit's lock-out: a key whose role holds
// no permission at all opens streams until refused. It gets its cap and no more, each refusal
// is an immediate 429, and plain requests and /healthz are answered all along.
func TestOneKeyCannotHoldMoreStreamsThanItsCap(t *testing.T) {
	e := budgetEnv(t, 100, 3, 50, 50)
	nobody := noPermKey(e) // a role with no permission
	var open []*apitest.SSEStream
	for range 3 {
		open = append(open, orgOpen(t, e, nobody, ""))
	}
	refusedStream(t, e, orgStreamPath, nobody, "this API key (at most 3)")
	refusedStream(t, e, orgStreamPath, nobody, "this API key")
	e.Do("GET", "/healthz", "", nil).Expect(200)
	e.Do("GET", "/orgs/c", e.AdminKey, nil).Expect(200)
	admin := orgOpen(t, e, e.AdminKey, "") // another key still streams
	// A closed stream gives its slot back.
	open[0].Close()
	e.Eventually(5*time.Second, "the closed stream's slot is free", func() bool {
		s, err := e.OpenStream(orgStreamPath, nobody, "")
		if err == nil {
			s.Close()
		}
		return err == nil
	})
	// The chat stream counts against the same cap.
	chat := chConversation(e, e.AdminKey, "c", "Ada")
	reader := e.RoleKey("c", "inbox:read")
	for range 3 {
		e.Stream(chatStreamPath("c", chat["id"].(string)), reader, "")
	}
	refusedStream(t, e, chatStreamPath("c", chat["id"].(string)), reader, "this API key")
	admin.Close()
}

// TestStreamCapsPerMemberIPAndServer: a member's keys share the member's cap, every stream
// from one address shares the IP's, and the server-wide cap refuses the next stream whoever
// asks.
func TestStreamCapsPerMemberIPAndServer(t *testing.T) {
	t.Run("member", func(t *testing.T) {
		e := budgetEnv(t, 100, 5, 2, 50)
		m := e.Member(e.AdminKey, "c", "Mo", app.RoleMember)
		k1, k2 := e.Key(e.AdminKey, "c", m.ID), e.Key(e.AdminKey, "c", m.ID)
		orgOpen(t, e, k1, "")
		orgOpen(t, e, k2, "")
		refusedStream(t, e, orgStreamPath, k2, "this key's member (at most 2)")
		orgOpen(t, e, e.AdminKey, "")
	})
	t.Run("ip", func(t *testing.T) {
		e := budgetEnv(t, 100, 5, 5, 3)
		orgOpen(t, e, e.AdminKey, "")
		orgOpen(t, e, noPermKey(e), "")
		orgOpen(t, e, noPermKey(e), "")
		refusedStream(t, e, orgStreamPath, noPermKey(e), "this client address (at most 3)")
	})
	t.Run("server", func(t *testing.T) {
		e := metricsEnv(t, func(c *cli.Config) {
			c.HTTP.RateLimitPerMinute = 1_000_000
			c.Events.MaxStreams, c.Events.MaxStreamsPerKey, c.Events.MaxStreamsPerMember, c.Events.MaxStreamsPerIP = 2, 5, 5, 5
		})
		orgOpen(t, e, e.AdminKey, "")
		orgOpen(t, e, noPermKey(e), "")
		refusedStream(t, e, orgStreamPath, noPermKey(e), "the server (at most 2)")
		refusedStream(t, e, orgStreamPath, noPermKey(e), "the server (at most 2)")
		e.Do("GET", "/healthz", "", nil).Expect(200)
		if n := metricValue(scrape(t, e), "wsapi_http_streams_refused_total", "cap", "server"); n != 2 {
			t.Fatalf("wsapi_http_streams_refused_total{cap=server} = %v, want 2", n)
		}
	})
}
