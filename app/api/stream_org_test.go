package api_test

import (
	"context"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

const orgStreamPath = "/orgs/c/events/stream"

// orgOpen opens the organization stream; a fresh connection first gets its position.
func orgOpen(t *testing.T, e *apitest.Env, key, query string) *apitest.SSEStream {
	t.Helper()
	s := e.Stream(orgStreamPath+query, key, "")
	if pos := s.NextBlock(5 * time.Second); !pos.HasID || pos.Type != "" || pos.Data != "" {
		t.Fatalf("first block %+v, want an id with no data", pos)
	}
	return s
}

// orgTypes reads n events and answers their types, checking that ids grow.
func orgTypes(t *testing.T, s *apitest.SSEStream, n int) ([]string, string) {
	t.Helper()
	var types []string
	var last int64
	var lastID string
	for range n {
		ev := s.Next()
		if seq := ev.Seq(t); seq <= last {
			t.Fatalf("event %s id %d not after %d", ev.Type, seq, last)
		} else {
			last, lastID = seq, ev.ID
		}
		types = append(types, ev.Type)
	}
	return types, lastID
}

// orgActivity makes one change of each kind and answers the event types it causes, in order.
func orgActivity(t *testing.T, e *apitest.Env) []string {
	t.Helper()
	c := chContact(e, e.AdminKey, "c", "Kim", map[string]any{"type": "whatsapp", "phone": "+1 415 555 0101"})
	chat := chChat(e, e.AdminKey, "c", map[string]any{"contact_id": c["id"]})
	chatID := chat["id"].(string)
	chMsg(e, e.AdminKey, "c", chatID, "user", "hello")
	e.Do("PATCH", "/orgs/c/contacts/"+c["id"].(string), e.AdminKey, map[string]any{"blocked": true}).Expect(200)
	chPatch(e, e.AdminKey, "c", chatID, map[string]any{"assigned_user_id": e.Owner.ID})
	e.Do("POST", "/orgs/c/contacts/"+c["id"].(string)+"/channels", e.AdminKey,
		map[string]any{"type": "email", "email": "kim@example.com"}).Expect(201)
	e.Do("DELETE", "/orgs/c/chats/"+chatID, e.AdminKey, nil).Expect(204)
	return []string{app.StreamContactCreated, app.StreamChatCreated, app.StreamMessageCreated,
		app.EventContactBlocked, app.StreamContactUpdated, app.EventChatAssigned, app.StreamChatUpdated,
		app.StreamContactUpdated, app.StreamChatDeleted}
}

func TestOrgStreamCarriesWebhookAndInboxEventsInCommitOrder(t *testing.T) {
	e := stEnv(t)
	s := orgOpen(t, e, e.AdminKey, "")
	want := orgActivity(t, e)
	got, _ := orgTypes(t, s, len(want))
	chSameList(t, "event types", got, want)
	s.Quiet(50 * time.Millisecond)

	// Another organization's events stay there, and its stream is not reachable from here.
	sub, subKey := e.OrgWithAdmin("elsewhere")
	chConversation(e, subKey, sub.ID, "Lu")
	s.Quiet(50 * time.Millisecond)
	e.Do("GET", "/orgs/"+e.Org.ID+"/events/stream", subKey, nil).ExpectError(404, "not_found")
}

func TestOrgStreamTypesFilter(t *testing.T) {
	e := stEnv(t)
	s := orgOpen(t, e, e.AdminKey, "?types=message.created,%20contact.blocked")
	orgActivity(t, e)
	got, _ := orgTypes(t, s, 2)
	chSameList(t, "filtered types", got, []string{app.StreamMessageCreated, app.EventContactBlocked})
	s.Quiet(50 * time.Millisecond)

	req := withAuthorization(t, e, "GET", orgStreamPath+"?types=message.created,nope", "Bearer "+e.AdminKey)
	req.Header.Set("Last-Event-ID", "abc")
	e.Send(apitest.Invalid(req)).ExpectError(400, "invalid_argument", "types", "Last-Event-ID")
	e.Do("GET", orgStreamPath+"?types=ping", e.AdminKey, nil).ExpectError(400, "invalid_argument", "types")
	e.Do("GET", orgStreamPath, "", nil).ExpectError(401, "unauthenticated")
}

func TestOrgStreamShowsAKeyOnlyTheAreasItsRoleReads(t *testing.T) {
	e := stEnv(t)
	inboxOnly := orgOpen(t, e, e.RoleKey(e.Org.ID, "inbox:read"), "")
	contactsOnly := orgOpen(t, e, e.RoleKey(e.Org.ID, "contacts:write"), "")
	neither := orgOpen(t, e, e.RoleKey(e.Org.ID, "keys:read"), "")
	orgActivity(t, e)

	got, _ := orgTypes(t, inboxOnly, 5)
	chSameList(t, "inbox:read", got, []string{app.StreamChatCreated, app.StreamMessageCreated, app.EventChatAssigned,
		app.StreamChatUpdated, app.StreamChatDeleted})
	got, _ = orgTypes(t, contactsOnly, 4)
	chSameList(t, "contacts:write", got, []string{app.StreamContactCreated, app.EventContactBlocked,
		app.StreamContactUpdated, app.StreamContactUpdated})
	for _, s := range []*apitest.SSEStream{inboxOnly, contactsOnly, neither} {
		s.Quiet(50 * time.Millisecond)
	}
}

func TestOrgStreamResumesWithLastEventID(t *testing.T) {
	e := stEnv(t)
	s := orgOpen(t, e, e.AdminKey, "")
	chConversation(e, e.AdminKey, "c", "Mo")
	_, lastID := orgTypes(t, s, 2) // contact.created, chat.created
	s.Close()

	chatID := chConversation(e, e.AdminKey, "c", "Ny")["id"].(string)
	chMsg(e, e.AdminKey, "c", chatID, "user", "while away")
	r := e.Stream(orgStreamPath, e.AdminKey, lastID)
	got, _ := orgTypes(t, r, 3)
	chSameList(t, "missed", got, []string{app.StreamContactCreated, app.StreamChatCreated, app.StreamMessageCreated})
	chMsg(e, e.AdminKey, "c", chatID, "admin", "live")
	got, _ = orgTypes(t, r, 1)
	chSameList(t, "live", got, []string{app.StreamMessageCreated})
	r.Quiet(50 * time.Millisecond)
}

func TestStreamEventsArePurgedAfterTheRetention(t *testing.T) {
	e := stEnv(t)
	chConversation(e, e.AdminKey, "c", "Oz")
	old := e.Stream(orgStreamPath, e.AdminKey, "0")
	got, _ := orgTypes(t, old, 2)
	chSameList(t, "before the purge", got, []string{app.StreamContactCreated, app.StreamChatCreated})

	e.Clock.Advance(24*time.Hour + time.Second)
	e.Runtime.Janitor.RunOnce(context.Background())
	chConversation(e, e.AdminKey, "c", "Pia")
	r := e.Stream(orgStreamPath, e.AdminKey, "0")
	got, _ = orgTypes(t, r, 2)
	chSameList(t, "after the purge", got, []string{app.StreamContactCreated, app.StreamChatCreated})
	r.Quiet(50 * time.Millisecond)
}

func TestEventTypesMarkWhichAreWebhookSubscribable(t *testing.T) {
	e := stEnv(t)
	var hooks, all []app.EventType
	e.Do("GET", "/orgs/c/webhooks/events", e.AdminKey, nil).Expect(200).JSON(&hooks)
	e.Do("GET", "/orgs/c/webhooks/events?all=true", e.AdminKey, nil).Expect(200).JSON(&all)
	if len(hooks) != len(app.EventTypes) {
		t.Fatalf("default list has %d types, want the %d webhook types", len(hooks), len(app.EventTypes))
	}
	for _, et := range hooks {
		if !et.Webhook || et.Area == "" {
			t.Fatalf("webhook type %+v not marked subscribable with an area", et)
		}
	}
	byType := map[string]app.EventType{}
	for _, et := range all {
		byType[et.Type] = et
	}
	// message.created is both: every message on the streams, a reply to deliver on webhooks.
	for typ, webhook := range map[string]bool{app.EventContactBlocked: true, app.StreamMessageCreated: true,
		app.StreamChatUpdated: false, app.StreamContactUpdated: false} {
		if et, ok := byType[typ]; !ok || et.Webhook != webhook {
			t.Fatalf("all=true: %s is %+v, want webhook %v", typ, et, webhook)
		}
	}
	e.DoInvalid("GET", "/orgs/c/webhooks/events?all=yes", e.AdminKey, nil).ExpectError(400, "invalid_argument", "all")
	// A stream-only type cannot be subscribed to.
	e.DoInvalid("POST", "/orgs/c/webhooks", e.AdminKey, map[string]any{"name": "h", "url": "https://example.com/h",
		"events": []string{app.StreamMessageUpdated}}).ExpectError(400, "invalid_argument", "events")
}

func TestOrgStreamShowsWritesOfAnotherProcess(t *testing.T) {
	e := stEnv(t)
	s := orgOpen(t, e, e.AdminKey, "")
	// An admin command opens the same file with its own store and service, as `app` does.
	other, err := cli.Build(context.Background(), e.Runtime.Config, cli.Options{Clock: e.Clock})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	c, err := other.Service.CreateContact(context.Background(), e.Org.ID, app.ContactInput{Name: "From the CLI"})
	if err != nil {
		t.Fatal(err)
	}
	ev := s.Next() // found by the hub's poll: no commit of this process nudged it
	if ev.Type != app.StreamContactCreated || ev.Map(t)["id"] != c.ID {
		t.Fatalf("event %s %s, want contact.created of %s", ev.Type, ev.Data, c.ID)
	}
}
