package api_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// stEnv is a server whose idle streams get a heartbeat every 20 ms.
func stEnv(t *testing.T, configure ...func(*cli.Config)) *apitest.Env {
	t.Helper()
	return apitest.New(t, append([]func(*cli.Config){func(c *cli.Config) {
		c.HTTP.RateLimitPerMinute = 1_000_000
		c.Events.StreamHeartbeat = 20 * time.Millisecond
	}}, configure...)...)
}

func chatStreamPath(org, chatID string) string {
	return "/orgs/" + org + "/chats/" + chatID + "/stream"
}

// stOpen opens a chat stream and reads its first event, which on a fresh connection is sync.
func stOpen(t *testing.T, e *apitest.Env, key, chatID string) (*apitest.SSEStream, apitest.SSEEvent) {
	t.Helper()
	return e.For(t).Synced(chatStreamPath("c", chatID), key)
}

func TestChatStreamShowsAContactMessagePostedThroughTheAPI(t *testing.T) {
	e := stEnv(t)
	chat := chConversation(e, e.AdminKey, "c", "Ada")
	s, sync := stOpen(t, e, e.AdminKey, chat["id"].(string))
	if sync.Data != "null" {
		t.Fatalf("sync with nothing in flight: %s, want null", sync.Data)
	}
	m := chMsg(e, e.AdminKey, "c", chat["id"].(string), "user", "hello there")
	ev := s.Expect(app.StreamMessageCreated)
	got := ev.Map(t)
	if got["id"] != m["id"] || got["role"] != "user" || got["chat_id"] != chat["id"] {
		t.Fatalf("message.created data %v, want the posted message %v", got, m["id"])
	}
	if ev.Seq(t) <= sync.Seq(t) {
		t.Fatalf("event id %s is not after the sync position %s", ev.ID, sync.ID)
	}
}

func TestChatStreamEventsInCommitOrderAndResumeGetsExactlyTheMissedOnes(t *testing.T) {
	e := stEnv(t)
	chatID := chConversation(e, e.AdminKey, "c", "Bo")["id"].(string)
	other := chConversation(e, e.AdminKey, "c", "Cy")["id"].(string)
	s, _ := stOpen(t, e, e.AdminKey, chatID)

	m1 := chMsg(e, e.AdminKey, "c", chatID, "user", "one")
	chMsg(e, e.AdminKey, "c", other, "user", "not this chat")
	chPatch(e, e.AdminKey, "c", chatID, map[string]any{"state": "SNOOZED", "title": "t"})
	e.Do("PUT", "/orgs/c/chats/"+chatID+"/messages/"+m1["id"].(string)+"/reaction", e.AdminKey,
		map[string]any{"emoji": "👍"}).Expect(200)
	chMsg(e, e.AdminKey, "c", chatID, "admin", "two")
	want := []string{app.StreamMessageCreated, app.StreamChatUpdated, app.StreamMessageUpdated, app.StreamMessageCreated}
	var last int64
	var lastID string
	for i, typ := range want {
		ev := s.Expect(typ)
		if n := ev.Seq(t); n <= last {
			t.Fatalf("event %d id %d not after %d", i, n, last)
		} else {
			last, lastID = n, ev.ID
		}
		if typ == app.StreamChatUpdated && (ev.Map(t)["id"] != chatID || chState(ev.Map(t))["state"] != "SNOOZED") {
			t.Fatalf("chat.updated data %s", ev.Data)
		}
	}
	s.Quiet(50 * time.Millisecond)
	s.Close()

	// While disconnected: two messages and a chat change.
	a := chMsg(e, e.AdminKey, "c", chatID, "user", "missed 1")
	b := chMsg(e, e.AdminKey, "c", chatID, "user", "missed 2")
	chPatch(e, e.AdminKey, "c", chatID, map[string]any{"ai_enabled": false})

	r := e.Stream(chatStreamPath("c", chatID), e.AdminKey, lastID)
	for _, id := range []any{a["id"], b["id"]} {
		if got := r.Expect(app.StreamMessageCreated).Map(t)["id"]; got != id {
			t.Fatalf("resumed message.created %v, want %v", got, id)
		}
	}
	r.Expect(app.StreamChatUpdated)
	// Then live, with nothing repeated in between.
	c := chMsg(e, e.AdminKey, "c", chatID, "user", "live")
	if got := r.Expect(app.StreamMessageCreated).Map(t)["id"]; got != c["id"] {
		t.Fatalf("live message.created %v, want %v", got, c["id"])
	}
	r.Quiet(50 * time.Millisecond)
}

func TestChatStreamAccessAndBadInput(t *testing.T) {
	e := stEnv(t)
	chatID := chConversation(e, e.AdminKey, "c", "Di")["id"].(string)
	sub, subKey := e.OrgWithAdmin("other")
	otherChat := chConversation(e, subKey, sub.ID, "Ed")["id"].(string)

	e.Do("GET", chatStreamPath(sub.ID, chatID), subKey, nil).ExpectError(404, "not_found")
	e.Do("GET", chatStreamPath("c", otherChat), e.AdminKey, nil).ExpectError(404, "not_found")
	e.Do("GET", chatStreamPath("c", "chat_nope"), e.AdminKey, nil).ExpectError(404, "not_found")
	noInbox := e.RoleKey(e.Org.ID, "contacts:read")
	e.Do("GET", chatStreamPath("c", chatID), noInbox, nil).ExpectError(403, "permission_denied")
	e.Do("GET", chatStreamPath("c", chatID), "", nil).ExpectError(401, "unauthenticated")

	req := withAuthorization(t, e, "GET", chatStreamPath("c", chatID), "Bearer "+e.AdminKey)
	req.Header.Set("Last-Event-ID", "12.x")
	res := e.Send(apitest.Invalid(req))
	res.ExpectError(400, "invalid_argument", "Last-Event-ID")
	e.DoInvalid("GET", chatStreamPath("c", chatID)+"?last_event_id=-3", e.AdminKey, nil).ExpectError(400, "invalid_argument", "last_event_id")

	// inbox:read is enough to watch.
	reader := e.RoleKey(e.Org.ID, "inbox:read")
	s, _ := stOpen(t, e, reader, chatID)
	chMsg(e, e.AdminKey, "c", chatID, "user", "hi")
	s.Expect(app.StreamMessageCreated)
}

func TestChatStreamHeartbeats(t *testing.T) {
	e := stEnv(t)
	chatID := chConversation(e, e.AdminKey, "c", "Fa")["id"].(string)
	s, _ := stOpen(t, e, e.AdminKey, chatID)
	pings := 0
	for pings < 3 {
		ev := s.NextBlock(2 * time.Second)
		if !ev.Heartbeat() || ev.Comment != "ping" {
			t.Fatalf("idle stream sent %+v, want only \": ping\" comments", ev)
		}
		pings++
	}
	if cc := s.Header.Get("Cache-Control"); cc != "no-cache" {
		t.Fatalf("Cache-Control %q, want no-cache", cc)
	}
}

// joinDeltas checks that deltas continue each other and answers their text.
func joinDeltas(t *testing.T, msgID string, from int, evs []apitest.SSEEvent) string {
	t.Helper()
	var b strings.Builder
	at := from
	for _, ev := range evs {
		var d struct {
			MessageID string `json:"message_id"`
			Offset    int    `json:"offset"`
			Text      string `json:"text"`
		}
		ev.JSON(t, &d)
		if d.MessageID != msgID || d.Offset != at {
			t.Fatalf("delta %s at offset %d of %s, want offset %d of %s", ev.ID, d.Offset, d.MessageID, at, msgID)
		}
		at += len([]rune(d.Text))
		if !strings.HasSuffix(ev.ID, "."+strconv.Itoa(at)) {
			t.Fatalf("delta id %s does not end at offset %d", ev.ID, at)
		}
		b.WriteString(d.Text)
	}
	return b.String()
}
