package delivery_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/app/channel"
	"wsapi/cli"
)

// sender is a channel.Sender under the test's control: answer decides each send's result
// from the message's text, and every send is recorded.
type sender struct {
	mu     sync.Mutex
	sent   []string // message texts, in the order sends started
	answer func(ctx context.Context, text string, n int) (channel.Sent, error)
}

func (s *sender) Send(ctx context.Context, _ app.Deployment, _ app.Chat, m app.Message) (channel.Sent, error) {
	s.mu.Lock()
	s.sent = append(s.sent, strings.TrimSpace(m.Text))
	n := 0
	for _, t := range s.sent {
		if t == strings.TrimSpace(m.Text) {
			n++
		}
	}
	s.mu.Unlock()
	return s.answer(ctx, strings.TrimSpace(m.Text), n)
}

func (s *sender) count(text string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, t := range s.sent {
		if t == text {
			n++
		}
	}
	return n
}

// world is a server whose widget replies go through s.
func world(t *testing.T, s *sender, configure ...func(*cli.Config)) *apitest.Env {
	t.Helper()
	configure = append([]func(*cli.Config){apitest.NoRuns, func(c *cli.Config) {
		c.Channels.Delivery.RetrySchedule = []time.Duration{5 * time.Second, 30 * time.Second}
	}}, configure...)
	return apitest.NewPrepared(t, func(rt *cli.Runtime) {
		rt.Delivery.Senders = map[string]channel.Sender{app.IntegrationInternal: s}
	}, configure...)
}

// widgetChat makes, in the organization of key, a widget and a chat of a contact through it.
func widgetChat(t *testing.T, e *apitest.Env, key string) string {
	t.Helper()
	var a, d, ct, chat map[string]any
	e.Do("POST", "/orgs/c/assistants", key, map[string]any{"name": "A"}).Expect(201).JSON(&a)
	e.Do("POST", "/orgs/c/assistants/"+a["id"].(string)+"/integrations", key,
		map[string]any{"integration_id": "internal", "name": "w"}).Expect(201).JSON(&d)
	e.Do("POST", "/orgs/c/contacts", key, map[string]any{"name": "V",
		"channels": []map[string]any{{"type": "internal", "user_id": app.RandomBase62(8)}}}).Expect(201).JSON(&ct)
	e.Do("POST", "/orgs/c/chats", key, map[string]any{"contact_id": ct["id"], "assistant_id": a["id"],
		"assistant_integration_id": d["id"]}).Expect(201).JSON(&chat)
	return chat["id"].(string)
}

func reply(t *testing.T, e *apitest.Env, key, chatID, text string) string {
	t.Helper()
	var m map[string]any
	e.Do("POST", "/orgs/c/chats/"+chatID+"/messages", key, map[string]any{"role": "admin",
		"messages": []map[string]any{{"role": "admin", "parts": []map[string]any{{"type": "text", "text": text}}}}}).Expect(201).JSON(&m)
	if d, _ := m["delivery"].(map[string]any); d == nil || d["status"] != "PENDING" {
		t.Fatalf("a new reply's delivery: %v", m["delivery"])
	}
	return m["id"].(string)
}

func delivery(t *testing.T, e *apitest.Env, key, chatID, id string) map[string]any {
	t.Helper()
	var ms []map[string]any
	e.Do("GET", "/orgs/c/chats/"+chatID+"/messages", key, nil).Expect(200).JSON(&ms)
	for _, m := range ms {
		if m["id"] == id {
			d, _ := m["delivery"].(map[string]any)
			return d
		}
	}
	t.Fatalf("message %s not found", id)
	return nil
}

func waitStatus(t *testing.T, e *apitest.Env, key, chatID, id, status, errText string) map[string]any {
	t.Helper()
	var d map[string]any
	e.Eventually(10*time.Second, "delivery "+status+" "+errText, func() bool {
		d = delivery(t, e, key, chatID, id)
		return d != nil && d["status"] == status && (errText == "" || strings.Contains(fmt.Sprint(d["error"]), errText))
	})
	return d
}

// TestDeliveryRetriesOnSchedule: a failed send waits the schedule's delay on the clock and is
// tried again; each failure shows on the message; a success after failures is DELIVERED.
func TestDeliveryRetriesOnSchedule(t *testing.T) {
	t.Parallel()
	s := &sender{answer: func(_ context.Context, _ string, n int) (channel.Sent, error) {
		if n < 3 {
			return channel.Sent{}, errors.New("provider unavailable (attempt " + string(rune('0'+n)) + ")")
		}
		return channel.Sent{Status: app.DeliverySent, ExternalID: "ext-9"}, nil
	}}
	e := world(t, s)
	chatID := widgetChat(t, e, e.AdminKey)
	org := e.Stream("/orgs/c/events/stream?types=message.delivery", e.AdminKey, "")
	defer org.Close()
	id := reply(t, e, e.AdminKey, chatID, "Your parcel left")
	waitStatus(t, e, e.AdminKey, chatID, id, "PENDING", "attempt 1")
	org.Expect("message.delivery")

	e.Clock.Advance(4 * time.Second) // not yet due
	time.Sleep(100 * time.Millisecond)
	if n := s.count("Your parcel left"); n != 1 {
		t.Fatalf("%d sends before the first retry is due", n)
	}
	e.Clock.Advance(time.Second)
	waitStatus(t, e, e.AdminKey, chatID, id, "PENDING", "attempt 2")
	e.Clock.Advance(30 * time.Second)
	d := waitStatus(t, e, e.AdminKey, chatID, id, "SENT", "")
	if d["external_id"] != "ext-9" || d["error"] != nil {
		t.Fatalf("delivered %v", d)
	}
	var change map[string]any
	for change == nil || change["delivery"].(map[string]any)["status"] != "SENT" {
		org.Expect("message.delivery").JSON(t, &change)
	}
}

// TestDeliveryFailsForGood: after the last attempt of the schedule, or at once for a
// permanent error, the delivery is FAILED with the reason and never tried again; a panic in a
// send fails that attempt only.
func TestDeliveryFailsForGood(t *testing.T) {
	t.Parallel()
	s := &sender{answer: func(_ context.Context, text string, n int) (channel.Sent, error) {
		switch text {
		case "blocked":
			return channel.Sent{}, channel.Permanent{Err: errors.New("the bot was blocked by the user")}
		case "panics":
			if n == 1 {
				panic("a bug in the connector")
			}
			return channel.Sent{Status: app.DeliveryDelivered}, nil
		}
		return channel.Sent{}, errors.New("timeout")
	}}
	e := world(t, s)
	chatID := widgetChat(t, e, e.AdminKey)
	blocked := reply(t, e, e.AdminKey, chatID, "blocked")
	waitStatus(t, e, e.AdminKey, chatID, blocked, "FAILED", "blocked by the user")

	panics := reply(t, e, e.AdminKey, chatID, "panics")
	waitStatus(t, e, e.AdminKey, chatID, panics, "PENDING", "internal error")
	e.Clock.Advance(5 * time.Second)
	waitStatus(t, e, e.AdminKey, chatID, panics, "DELIVERED", "")

	failing := reply(t, e, e.AdminKey, chatID, "always fails")
	waitStatus(t, e, e.AdminKey, chatID, failing, "PENDING", "timeout")
	e.Clock.Advance(5 * time.Second)
	e.Eventually(10*time.Second, "second attempt", func() bool { return s.count("always fails") == 2 })
	e.Clock.Advance(30 * time.Second)
	waitStatus(t, e, e.AdminKey, chatID, failing, "FAILED", "timeout")
	e.Clock.Advance(24 * time.Hour)
	time.Sleep(100 * time.Millisecond)
	if n := s.count("always fails"); n != 3 {
		t.Fatalf("%d attempts, want 3 (the schedule's two retries)", n)
	}
	if n := s.count("blocked"); n != 1 {
		t.Fatalf("a permanent failure was tried %d times", n)
	}
}

// TestDeliveryFairAcrossOrganizations: with two workers, one organization's hanging sends
// hold at most its share (app.OrgShare: one of two) and another organization's reply goes
// out while the first's backlog waits.
func TestDeliveryFairAcrossOrganizations(t *testing.T) {
	t.Parallel()
	gate := make(chan struct{})
	s := &sender{answer: func(ctx context.Context, text string, _ int) (channel.Sent, error) {
		if strings.HasPrefix(text, "busy") {
			select {
			case <-gate:
			case <-ctx.Done():
				return channel.Sent{}, ctx.Err()
			}
		}
		return channel.Sent{Status: app.DeliveryDelivered}, nil
	}}
	e := world(t, s, func(c *cli.Config) { c.Channels.Delivery.Workers = 2 })
	busyChats := make([]string, 4)
	for i := range busyChats {
		busyChats[i] = widgetChat(t, e, e.AdminKey)
		reply(t, e, e.AdminKey, busyChats[i], "busy "+string(rune('a'+i)))
	}
	e.Eventually(10*time.Second, "a busy send under way", func() bool { return len(s.snapshot()) >= 1 })
	_, other := e.TenantWithAdmin("Quiet")
	quietChat := widgetChat(t, e, other)
	quiet := reply(t, e, other, quietChat, "quiet")
	waitStatus(t, e, other, quietChat, quiet, "DELIVERED", "")
	if got := s.snapshot(); len(got) != 2 || got[1] != "quiet" {
		t.Fatalf("sends %v: the quiet organization's reply must go second, while the busy one holds one worker", got)
	}
	close(gate)
	for _, c := range busyChats {
		var ms []map[string]any
		e.Eventually(10*time.Second, "busy replies delivered", func() bool {
			e.Do("GET", "/orgs/c/chats/"+c+"/messages", e.AdminKey, nil).Expect(200).JSON(&ms)
			d, _ := ms[0]["delivery"].(map[string]any)
			return d != nil && d["status"] == "DELIVERED"
		})
	}
}

func (s *sender) snapshot() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.sent...)
}
