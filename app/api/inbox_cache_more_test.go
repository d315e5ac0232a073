package api_test

import (
	"context"
	"database/sql"
	"strconv"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/sqlite"
)

// icWriter opens the test database for writing beside the server, as another process would
// (the CLI), without the inbox cache of the server's handle.
func icWriter(t *testing.T, e *apitest.Env) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+e.Runtime.Config.DB.Path+"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// icExec runs one statement, failing the test on an error.
func icExec(t *testing.T, db *sql.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// icFind is the chat with id in the answer, or nil.
func icFind(p icPage, id string) map[string]any {
	for _, c := range p.chats {
		if c["id"] == id {
			return c
		}
	}
	return nil
}

// TestInboxCacheOtherProcess: a write through another handle on the same file (a CLI command
// through the service, a second sqlite.DB with its own writer) shows in the server's next
// answer.
func TestInboxCacheOtherProcess(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	a := chConversation(e, e.AdminKey, "c", "Ann")["id"].(string)
	icStep(e)
	b := chConversation(e, e.AdminKey, "c", "Ben")["id"].(string)
	icPrime(e, "", "state=CLOSED")

	db, err := sqlite.Open(e.Runtime.Config.DB.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cliSvc := app.NewService(app.Deps{Store: db, Clock: e.Clock})
	closed := "CLOSED"
	icStep(e)
	if _, err := cliSvc.UpdateChat(context.Background(), e.Org.ID, a, app.ChatPatch{State: &closed,
		Title: app.Optional[string]{Set: true, Value: "from the CLI"}}); err != nil {
		t.Fatal(err)
	}
	p := icGet(e, "")
	icExpect(t, "order", p, a, b)
	if c := p.chat(t, a); c["title"] != "from the CLI" || chState(c)["state"] != "CLOSED" {
		t.Errorf("title %v, state %v: want the other process's write", c["title"], chState(c)["state"])
	}
	icExpect(t, "state=CLOSED", icGet(e, "state=CLOSED"), a)
}

// TestInboxCacheRawWrites: one SQL statement at a time from another connection, each of
// which only the named trigger turns into a new version (the last few also cascade).
// Segment membership has no trigger (sqlite/segments.go bumps the version itself), so it is
// tested through the API only.
func TestInboxCacheRawWrites(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	k, org := e.AdminKey, e.Org.ID
	agent := e.Member(k, "c", "Agent Raw", "MEMBER")
	other := e.Member(k, "c", "Other Raw", "MEMBER")
	third := e.Member(k, "c", "Third Raw", "MEMBER")
	asst := chAssistant(e, k, "c", map[string]any{"name": "Raw Helper"})["id"].(string)
	ct := chContact(e, k, "c", "Rae Raw", map[string]any{"type": "email", "email": "rae@example.com"})
	contact, channel := ct["id"].(string), chChannel(ct, 0)
	x := chChat(e, k, "c", map[string]any{"contact_id": contact, "assistant_id": asst})["id"].(string)
	last := chMsg(e, k, "c", x, "admin", "raw last")["id"].(string)
	chPatch(e, k, "c", x, map[string]any{"assigned_user_id": agent.ID})
	const rawChat, rawMsg, rawMember, later = "chat_raw0000000000000000001", "msg_raw00000000000000000001",
		"cm_raw000000000000000000001", "2030-01-01T00:00:00.000Z"

	xc := func(p icPage) map[string]any { return icFind(p, x) }
	lastMsg := func(p icPage) map[string]any { return chObj(xc(p), "last_message") }
	hasUser := func(p icPage, id string) bool {
		for _, m := range xc(p)["members"].([]any) {
			if chObj(m, "user")["id"] == id {
				return true
			}
		}
		return false
	}
	reaction := func(p icPage) string {
		r, _ := lastMsg(p)["reactions"].([]any)
		if len(r) != 1 {
			return ""
		}
		return chObj(r[0])["emoji"].(string)
	}
	contactOf := func(p icPage) map[string]any {
		return chObj(chMember(xc(p)["members"].([]any), "CONTACT"), "contact_channel")
	}
	steps := []struct {
		trigger, query, sql string
		args                []any
		ok                  func(p icPage) bool
	}{
		{"chats_insert", "", `INSERT INTO chats (id, org_id, model, visibility, status, state_id, state, integration_id,
			created_at, updated_at) VALUES (?, ?, 'm', 'PRIVATE', 'COMPLETED', 'st_raw', 'OPEN', 'internal', ?, ?)`,
			[]any{rawChat, org, later, later}, func(p icPage) bool { return icFind(p, rawChat) != nil && p.count == 2 }},
		{"chats_update", "", `UPDATE chats SET title = 'Raw Title' WHERE id = ?`, []any{x},
			func(p icPage) bool { return xc(p)["title"] == "Raw Title" }},
		{"chats_delete", "", `DELETE FROM chats WHERE id = ?`, []any{rawChat},
			func(p icPage) bool { return icFind(p, rawChat) == nil && p.count == 1 }},
		{"messages_insert", "search=rawword", `INSERT INTO chat_messages (id, org_id, chat_id, role, model, status, messages,
			text, created_at, updated_at) VALUES (?, ?, ?, 'user', 'm', 'COMPLETED', '[]', 'rawword', ?, ?)`,
			[]any{rawMsg, org, x, later, later}, func(p icPage) bool { return p.count == 1 && xc(p) != nil }},
		{"messages_update", "", `UPDATE chat_messages SET status = 'FAILED' WHERE id = ?`, []any{last},
			func(p icPage) bool { return lastMsg(p)["status"] == "FAILED" }},
		{"messages_delete", "search=rawword", `DELETE FROM chat_messages WHERE id = ?`, []any{rawMsg},
			func(p icPage) bool { return p.count == 0 }},
		{"chat_members_insert", "", `INSERT INTO chat_members (id, chat_id, role, member_id, created_at)
			VALUES (?, ?, 'ADMIN', ?, ?)`, []any{rawMember, x, other.ID, later},
			func(p icPage) bool { return hasUser(p, other.ID) }},
		{"chat_members_update", "", `UPDATE chat_members SET member_id = ? WHERE id = ?`, []any{third.ID, rawMember},
			func(p icPage) bool { return hasUser(p, third.ID) && !hasUser(p, other.ID) }},
		{"chat_members_delete", "", `DELETE FROM chat_members WHERE id = ?`, []any{rawMember},
			func(p icPage) bool { return !hasUser(p, third.ID) }},
		{"reactions_insert", "", `INSERT INTO message_reactions (message_id, member_id, emoji) VALUES (?, ?, '👍')`,
			[]any{last, other.ID}, func(p icPage) bool { return reaction(p) == "👍" }},
		{"reactions_update", "", `UPDATE message_reactions SET emoji = '🎉' WHERE message_id = ?`, []any{last},
			func(p icPage) bool { return reaction(p) == "🎉" }},
		{"reactions_delete", "", `DELETE FROM message_reactions WHERE message_id = ?`, []any{last},
			func(p icPage) bool { return len(lastMsg(p)["reactions"].([]any)) == 0 }},
		{"contacts_update", "", `UPDATE contacts SET name = 'Raw Renamed' WHERE id = ?`, []any{contact},
			func(p icPage) bool { return chObj(contactOf(p), "contact")["name"] == "Raw Renamed" }},
		{"channels_update", "", `UPDATE contact_channels SET name = 'Raw Channel' WHERE id = ?`, []any{channel},
			func(p icPage) bool { return contactOf(p)["name"] == "Raw Channel" }},
		{"members_update", "", `UPDATE members SET name = 'Raw Agent' WHERE id = ?`, []any{agent.ID},
			func(p icPage) bool { return chObj(xc(p), "state", "assigned_user")["name"] == "Raw Agent" }},
		{"assistants_update", "", `UPDATE assistants SET name = 'Raw Assistant' WHERE id = ?`, []any{asst},
			func(p icPage) bool { return chObj(xc(p), "state", "assistant")["name"] == "Raw Assistant" }},
		// Cascades: these also set chats columns to null or delete rows with triggers of their own.
		{"members_delete", "", `DELETE FROM members WHERE id = ?`, []any{agent.ID},
			func(p icPage) bool { return chObj(xc(p), "state", "assigned_user") == nil && !hasUser(p, agent.ID) }},
		{"assistants_delete", "", `DELETE FROM assistants WHERE id = ?`, []any{asst},
			func(p icPage) bool { return chObj(xc(p), "state", "assistant") == nil }},
		{"channels_delete", "", `DELETE FROM contact_channels WHERE id = ?`, []any{channel},
			func(p icPage) bool { return chMember(xc(p)["members"].([]any), "CONTACT") == nil }},
		{"contacts_delete", "", `DELETE FROM contacts WHERE id = ?`, []any{contact},
			func(p icPage) bool { return xc(p) == nil && p.count == 0 }},
	}
	db := icWriter(t, e)
	for _, s := range steps {
		icPrime(e, s.query)
		icExec(t, db, s.sql, s.args...)
		if p := icGet(e, s.query); !s.ok(p) {
			t.Errorf("inbox_version_%s: GET inbox?%s does not show the write: %v (count %d)", s.trigger, s.query, p.ids(), p.count)
		}
	}
}

// TestInboxCacheControl: the harness really caches, so the tests above can fail. Without
// its trigger, a change of a chat's title is not seen by the inbox (while GET /chats/{id},
// which is never cached, sees it); with the trigger back, the next change is.
func TestInboxCacheControl(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	a := chChat(e, e.AdminKey, "c", map[string]any{"title": "first"})["id"].(string)
	db := icWriter(t, e)
	var trigger string
	if err := db.QueryRow(`SELECT sql FROM sqlite_master WHERE name = 'inbox_version_chats_update'`).Scan(&trigger); err != nil {
		t.Fatal(err)
	}
	icPrime(e, "")
	icExec(t, db, `DROP TRIGGER inbox_version_chats_update`)
	icExec(t, db, `UPDATE chats SET title = 'second' WHERE id = ?`, a)
	if got := chGetChat(e, e.AdminKey, "c", a)["title"]; got != "second" {
		t.Fatalf("GET /chats/{id}: title %v, want second", got)
	}
	if got := icGet(e, "").chat(t, a)["title"]; got != "first" {
		t.Fatalf("without the trigger the inbox answered title %v: the cached answer was not used", got)
	}
	icExec(t, db, trigger)
	icExec(t, db, `UPDATE chats SET title = 'third' WHERE id = ?`, a)
	if got := icGet(e, "").chat(t, a)["title"]; got != "third" {
		t.Errorf("with the trigger back: title %v, want third", got)
	}
}

// TestInboxCacheMigration: 00011 and 00010 go down and up again on a live database with
// chats, and the inbox then follows writes. Going down and up drops and recreates
// inbox_versions and chat_versions.
func TestInboxCacheMigration(t *testing.T) {
	t.Parallel()
	downUp := func(t *testing.T, e *apitest.Env) {
		t.Helper()
		db, err := sqlite.Open(e.Runtime.Config.DB.Path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		// Down through 00010, whatever came after it (00011, chat versions, builds on it).
		down := 0
		for version := int64(-1); version != 10; down++ {
			r, err := db.MigrateDown(context.Background())
			if err != nil || r.Version < 10 {
				t.Fatalf("down: %+v, %v; want down to 10", r, err)
			}
			version = r.Version
		}
		var n int
		if err := db.Migrate(context.Background(), func(sqlite.MigrationResult) { n++ }); err != nil || n != down {
			t.Fatalf("up again: %d applied, %v; want %d", n, err, down)
		}
	}
	t.Run("down and up", func(t *testing.T) {
		t.Parallel()
		e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
		a := chConversation(e, e.AdminKey, "c", "Ann")["id"].(string)
		chMsg(e, e.AdminKey, "c", a, "user", "hello")
		downUp(t, e)
		icPrime(e, "")
		icExpect(t, "after up", icGet(e, ""), a)
		chPatch(e, e.AdminKey, "c", a, map[string]any{"title": "after the round trip"})
		if got := icGet(e, "").chat(t, a)["title"]; got != "after the round trip" {
			t.Errorf("title %v after a patch", got)
		}
	})
	t.Run("version restarts while serving", func(t *testing.T) {
		t.Parallel()
		e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
		a := chChat(e, e.AdminKey, "c", map[string]any{"title": "t0"})["id"].(string)
		icPrime(e, "")
		var v int
		err := icWriter(t, e).QueryRow(`SELECT SUM(version) FROM inbox_versions WHERE scope IN (?, '*')`, e.Org.ID).Scan(&v)
		if err != nil {
			t.Fatal(err)
		}
		downUp(t, e)
		for i := 1; i <= v; i++ { // each patch bumps the organization's version by one
			chPatch(e, e.AdminKey, "c", a, map[string]any{"title": "t" + strconv.Itoa(i)})
		}
		want := chGetChat(e, e.AdminKey, "c", a)["title"]
		if got := icGet(e, "").chat(t, a)["title"]; got != want {
			t.Errorf("inbox title %v, want %v (the answer cached before the round trip, at version %d)", got, want, v)
		}
	})
}
