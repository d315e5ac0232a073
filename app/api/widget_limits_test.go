package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"wsapi/app/apitest"
	"wsapi/cli"
)

// TestWidgetRateLimits: each budget at its edge (429 with Retry-After one past it), and the
// open-stream cap refuses a stream instead of holding it.
func TestWidgetRateLimits(t *testing.T) {
	t.Parallel()
	w := newWidget(t, nil, apitest.NoRuns, func(c *cli.Config) {
		c.Channels.Widget.SessionsPerMinutePerIP = 3
		c.Channels.Widget.MessagesPerMinutePerSession = 2
		c.Channels.Widget.StreamsPerIP = 1
	})
	toks := []string{}
	for range 3 {
		tok, _ := w.start(t, map[string]any{})
		toks = append(toks, tok)
	}
	res := w.visitor("POST", "/session", "", map[string]any{}).Expect(429)
	if res.Header.Get("Retry-After") == "" {
		t.Errorf("no Retry-After")
	}
	w.visitor("POST", "/messages", toks[0], map[string]any{"text": "1"}).Expect(201)
	w.visitor("POST", "/messages", toks[0], map[string]any{"text": "2"}).Expect(201)
	w.visitor("POST", "/messages", toks[0], map[string]any{"text": "3"}).Expect(429)
	w.visitor("POST", "/messages", toks[1], map[string]any{"text": "other session"}).Expect(201)
	w.e.Clock.Advance(31 * time.Second) // a token back
	w.visitor("POST", "/messages", toks[0], map[string]any{"text": "3"}).Expect(201)

	s := w.e.Stream(w.api("/stream?token="+toks[0]), "", "")
	defer s.Close()
	s.Expect("sync")
	res = w.e.Do("GET", w.api("/stream?token="+toks[1]), "", nil).Expect(429)
	if res.Header.Get("Retry-After") == "" {
		t.Errorf("stream 429 without Retry-After")
	}
}

// TestWidgetDisabledIntegration: a disabled widget still takes messages into the inbox; the
// assistant does not answer them.
func TestWidgetDisabledIntegration(t *testing.T) {
	t.Parallel()
	w := newWidget(t, nil)
	e := w.e
	e.Do("PATCH", asiPath(w.asst, "/", w.asi), e.AdminKey, map[string]any{"enabled": false}).Expect(200)
	tok, _ := w.start(t, map[string]any{})
	var sent map[string]any
	w.visitor("POST", "/messages", tok, map[string]any{"text": "anyone?"}).Expect(201).JSON(&sent)
	chatID := sent["chat"].(map[string]any)["id"].(string)
	var chat map[string]any
	e.Do("GET", "/orgs/c/chats/"+chatID, e.AdminKey, nil).Expect(200).JSON(&chat)
	if chat["state"].(map[string]any)["assistant_integration"].(map[string]any)["enabled"] != false {
		t.Fatalf("state %v", chat["state"])
	}
	e.Clock.Advance(2 * time.Second)
	time.Sleep(200 * time.Millisecond) // a run, were one started, would show at once
	var msgs []map[string]any
	e.Do("GET", "/orgs/c/chats/"+chatID+"/messages", e.AdminKey, nil).Expect(200).JSON(&msgs)
	if len(msgs) != 1 {
		t.Fatalf("disabled widget answered: %v", msgs)
	}
	// Enabled again, the chat's cached state follows.
	e.Do("PATCH", asiPath(w.asst, "/", w.asi), e.AdminKey, map[string]any{"enabled": true}).Expect(200)
	e.Do("GET", "/orgs/c/chats/"+chatID, e.AdminKey, nil).Expect(200).JSON(&chat)
	if chat["state"].(map[string]any)["assistant_integration"].(map[string]any)["enabled"] != true {
		t.Fatalf("state after enabling %v", chat["state"])
	}
}

// TestWidgetStreamsHoldTheServersBudget: a visitor's stream holds a slot of the server's
// stream budget under its address, so the address's cap (events.max_streams_per_ip) covers
// visitor streams too.
func TestWidgetStreamsHoldTheServersBudget(t *testing.T) {
	t.Parallel()
	w := newWidget(t, nil, apitest.NoRuns, func(c *cli.Config) { c.Events.MaxStreamsPerIP = 1 })
	var toks []string
	for range 2 {
		tok, _ := w.start(t, map[string]any{})
		w.visitor("POST", "/messages", tok, map[string]any{"text": "hi"}).Expect(201)
		toks = append(toks, tok)
	}
	s := w.e.Stream(w.api("/stream?token="+toks[0]), "", "")
	s.Expect("sync")
	res := w.e.Do("GET", w.api("/stream?token="+toks[1]), "", nil).Expect(429)
	if !strings.Contains(string(res.Body), "this client address") || res.Header.Get("Retry-After") == "" {
		t.Fatalf("refusal %s %v", res.Body, res.Header)
	}
	s.Close()
	w.e.Eventually(5*time.Second, "the slot back", func() bool {
		req := w.e.Request("GET", w.api("/stream?token="+toks[1]), "", nil)
		ctx, cancel := context.WithTimeout(req.Context(), 300*time.Millisecond)
		defer cancel()
		res, err := http.DefaultClient.Do(req.WithContext(ctx))
		if err != nil {
			return false
		}
		defer res.Body.Close()
		return res.StatusCode == 200
	})
}

// otherHexDigit is a hex digit other than d, so a changed hash is always wrong (a fixed "0"
