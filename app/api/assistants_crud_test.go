package api_test

import (
	"fmt"
	"strings"
	"testing"

	"wsapi/app/apitest"
)

func TestAssistantCRUD(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	a := chAssistant(e, e.AdminKey, "c", map[string]any{"name": "Support"})
	id := a["id"].(string)
	path := "/orgs/c/assistants/" + id

	e.Clock.Advance(60e9)
	p := e.Do("PATCH", path, e.AdminKey, map[string]any{"name": "Support bot", "enabled": false,
		"avatar_url": "https://cdn.example.com/b.png"}).Expect(200).Map()
	if p["name"] != "Support bot" || p["enabled"] != false || p["avatar_url"] != "https://cdn.example.com/b.png" {
		t.Errorf("patched %v", p)
	}
	if p["created_at"] != a["created_at"] || p["updated_at"] == a["updated_at"] {
		t.Errorf("timestamps after PATCH: created %v -> %v, updated %v -> %v", a["created_at"], p["created_at"], a["updated_at"], p["updated_at"])
	}
	// A PATCH without config keeps it; one with config replaces it.
	if chObj(p, "config")["model"] != "auto:auto" {
		t.Errorf("config %v", p["config"])
	}
	p = e.Do("PATCH", path, e.AdminKey, map[string]any{"config": map[string]any{"model": "openai:gpt-4o", "timezone": "Asia/Tokyo"}}).Expect(200).Map()
	if c := chObj(p, "config"); c["model"] != "openai:gpt-4o" || c["timezone"] != "Asia/Tokyo" || c["language"] != "auto" || p["name"] != "Support bot" {
		t.Errorf("config patch %v", p)
	}
	got := e.Do("GET", path, e.AdminKey, nil).Expect(200).Map()
	if got["name"] != "Support bot" || chObj(got, "config")["timezone"] != "Asia/Tokyo" {
		t.Errorf("GET %v", got)
	}

	// Validation.
	e.DoInvalid("POST", "/orgs/c/assistants", e.AdminKey, map[string]any{}).ExpectError(400, "invalid_argument", "name")
	e.Do("POST", "/orgs/c/assistants", e.AdminKey, map[string]any{"name": "   "}).ExpectError(400, "invalid_argument", "name")
	e.DoInvalid("POST", "/orgs/c/assistants", e.AdminKey, map[string]any{"name": strings.Repeat("é", 256)}).ExpectError(400, "invalid_argument", "name")
	e.DoInvalid("POST", "/orgs/c/assistants", e.AdminKey, map[string]any{"name": "x", "colour": "red"}).ExpectError(400, "invalid_argument", "colour")

	// Delete: gone for the API, still named by its chats.
	chat := chChat(e, e.AdminKey, "c", map[string]any{"assistant_id": id})
	e.Do("DELETE", path, e.AdminKey, nil).Expect(204)
	e.Do("GET", path, e.AdminKey, nil).ExpectError(404, "not_found")
	e.Do("PATCH", path, e.AdminKey, map[string]any{"name": "back"}).ExpectError(404, "not_found")
	e.Do("DELETE", path, e.AdminKey, nil).ExpectError(404, "not_found")
	for _, l := range e.Do("GET", "/orgs/c/assistants", e.AdminKey, nil).Expect(200).List() {
		if l["id"] == id {
			t.Errorf("the list shows a deleted assistant")
		}
	}
	st := chState(chGetChat(e, e.AdminKey, "c", chat["id"].(string)))
	if sa := chObj(st, "assistant"); sa["id"] != id || sa["deleted"] != true || sa["enabled"] != false {
		t.Errorf("chat's assistant after delete %v", st["assistant"])
	}
	if st["assistant_id"] != id {
		t.Errorf("assistant_id %v", st["assistant_id"])
	}
	// A new chat cannot name it.
	e.Do("POST", "/orgs/c/chats", e.AdminKey, map[string]any{"assistant_id": id}).ExpectError(404, "not_found")
}

func TestAssistantConfigValidation(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	cases := []struct {
		config map[string]any
		field  string // "" when valid
	}{
		{map[string]any{"model": "openai:gpt-4o"}, ""},
		{map[string]any{"model": "auto:auto"}, ""},
		{map[string]any{"model": "gpt4"}, "config.model"},
		{map[string]any{"model": "openai:"}, "config.model"},
		{map[string]any{"stt": map[string]any{"model": "whisper"}}, "config.stt.model"},
		{map[string]any{"tts": map[string]any{"model": "tts"}}, "config.tts.model"},
		{map[string]any{"timezone": "Europe/Paris"}, ""},
		{map[string]any{"timezone": "America/Argentina/Buenos_Aires"}, ""},
		{map[string]any{"timezone": "Mars/Olympus"}, "config.timezone"},
		{map[string]any{"timezone": "Local"}, "config.timezone"},
		{map[string]any{"language": "auto"}, ""},
		{map[string]any{"language": "pt-BR"}, ""},
		{map[string]any{"language": "fr"}, ""},
		{map[string]any{"language": "not a lang"}, "config.language"},
		{map[string]any{"knowledge_scope": "everything"}, "config.knowledge_scope"},
		{map[string]any{"conversation": map[string]any{"thread_mode": "sometimes"}}, "config.conversation.thread_mode"},
		{map[string]any{"instructions": strings.Repeat("a", 20001)}, "config.instructions"},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i, c.field), func(t *testing.T) {
			e := e.For(t)
			do := e.Do
			if c.field != "" {
				do = e.DoInvalid
			}
			res := do("POST", "/orgs/c/assistants", e.AdminKey, map[string]any{"name": "a", "config": c.config})
			if c.field == "" {
				res.Expect(201)
			} else {
				res.ExpectError(400, "invalid_argument", c.field)
			}
		})
	}
	// PATCH validates the same way, and reports every bad field at once.
	a := chAssistant(e, e.AdminKey, "c", map[string]any{"name": "p"})
	e.DoInvalid("PATCH", "/orgs/c/assistants/"+a["id"].(string), e.AdminKey, map[string]any{"config": map[string]any{
		"model": "gpt4", "timezone": "Mars/Olympus", "language": "not a lang"}}).
		ExpectError(400, "invalid_argument", "config.model", "config.timezone", "config.language")
}

func TestAssistantListSearchAndPagination(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	var names []string
	for i := range 7 {
		n := fmt.Sprintf("Sales %02d", i)
		if i%2 == 1 {
			n = fmt.Sprintf("Support %02d", i)
		}
		names = append(names, n)
	}
	// Created out of order: the list is by name.
	for i := len(names) - 1; i >= 0; i-- {
		chAssistant(e, e.AdminKey, "c", map[string]any{"name": names[i]})
	}
	gone := chAssistant(e, e.AdminKey, "c", map[string]any{"name": "Sales gone"})
	e.Do("DELETE", "/orgs/c/assistants/"+gone["id"].(string), e.AdminKey, nil).Expect(204)
	// 100% sign and underscore are literal in search.
	chAssistant(e, e.AdminKey, "c", map[string]any{"name": "100% bot_x"})

	listNames := func(q string) ([]string, string) {
		res := e.Do("GET", "/orgs/c/assistants"+q, e.AdminKey, nil).Expect(200)
		var out []string
		for _, a := range res.List() {
			out = append(out, a["name"].(string))
		}
		return out, res.Header.Get("pagination-count")
	}
	all, n := listNames("")
	chSameList(t, "all", all, []string{"100% bot_x", "Sales 00", "Sales 02", "Sales 04", "Sales 06", "Support 01", "Support 03", "Support 05"})
	if n != "8" {
		t.Errorf("count %s, want 8", n)
	}
	got, n := listNames("?search=sales")
	chSameList(t, "search sales", got, []string{"Sales 00", "Sales 02", "Sales 04", "Sales 06"})
	if n != "4" {
		t.Errorf("search count %s", n)
	}
	got, _ = listNames("?search=" + "%25")
	chSameList(t, "search %", got, []string{"100% bot_x"})
	got, _ = listNames("?search=_")
	chSameList(t, "search _", got, []string{"100% bot_x"})
	got, n = listNames("?take=3&page=2")
	chSameList(t, "page 2", got, []string{"Sales 04", "Sales 06", "Support 01"})
	if n != "8" {
		t.Errorf("paged count %s", n)
	}
	got, _ = listNames("?take=3&page=3")
	chSameList(t, "page 3", got, []string{"Support 03", "Support 05"})
	got, _ = listNames("?search=support&take=2&page=2")
	chSameList(t, "search page 2", got, []string{"Support 05"})
	e.DoInvalid("GET", "/orgs/c/assistants?take=101", e.AdminKey, nil).ExpectError(400, "invalid_argument", "take")
	e.DoInvalid("GET", "/orgs/c/assistants?search="+strings.Repeat("a", 257), e.AdminKey, nil).ExpectError(400, "invalid_argument", "search")
}
