package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
)

// settingsFixture is an assistant with a widget integration and a text content, made
// through the API.
func settingsFixture(t *testing.T, e *apitest.Env) (asst, asi, kc string) {
	t.Helper()
	var a, d, k struct{ ID string }
	e.Do("POST", "/orgs/c/assistants", e.AdminKey, map[string]any{"name": "Aria"}).Expect(201).JSON(&a)
	e.Do("POST", "/orgs/c/assistants/"+a.ID+"/integrations", e.AdminKey, map[string]any{"integration_id": "internal", "name": "Site"}).Expect(201).JSON(&d)
	e.Do("POST", "/orgs/c/assistants/"+a.ID+"/knowledge/contents", e.AdminKey, map[string]any{"title": "Hours",
		"content": map[string]any{"type": "TEXT", "text": "We open at nine."}}).Expect(201).JSON(&k)
	return a.ID, d.ID, k.ID
}

// playChat is a chat with the assistant and no contact, as the playground makes, and
// answers the path its messages are posted to on the page.
func playChat(t *testing.T, e *apitest.Env, key, org, asst string) (chatID, path string) {
	t.Helper()
	var c struct{ ID string }
	e.Do("POST", "/orgs/"+org+"/chats", key, map[string]any{"assistant_id": asst}).Expect(201).JSON(&c)
	return c.ID, "/app/assistants/" + asst + "/playground/" + c.ID
}

// noMessages checks that a refused post wrote nothing in the chat.
func noMessages(t *testing.T, e *apitest.Env, key, org, chatID string) {
	t.Helper()
	var ms []app.Message
	e.Do("GET", "/orgs/"+org+"/chats/"+chatID+"/messages", key, nil).Expect(200).JSON(&ms)
	if len(ms) != 0 {
		t.Fatalf("a refused post wrote %d messages", len(ms))
	}
}

// settingsPosts are every unsafe route of the settings pages, with a form each would take.
func settingsPosts(asst, asi, kc string) map[string]url.Values {
	base := "/app/assistants/" + asst
	return map[string]url.Values{
		"/app/assistants":   {"name": {"Forged"}},
		base:                {"name": {"Forged"}, "config.model": {"auto:auto"}, "config.language": {"auto"}, "config.timezone": {"UTC"}},
		base + "/delete":    {},
		base + "/knowledge": {"kind": {"TEXT"}, "title": {"Forged"}, "content.text": {"forged"}},
		base + "/knowledge/items/" + kc + "/retry":  {},
		base + "/knowledge/items/" + kc + "/delete": {},
		base + "/channels":                          {"integration_id": {"internal"}, "name": {"Forged"}},
		base + "/channels/" + asi:                   {"name": {"Forged"}},
		base + "/channels/" + asi + "/enabled":      {"enabled": {"false"}},
		base + "/channels/" + asi + "/test":         {},
		base + "/channels/" + asi + "/rotate":       {},
		base + "/channels/" + asi + "/delete":       {},
		base + "/playground":                        {},
	}
}

// unchanged checks through the API that no refused request changed anything.
func unchanged(t *testing.T, e *apitest.Env, asst, asi, kc string) {
	t.Helper()
	var as []app.Assistant
	e.Do("GET", "/orgs/c/assistants", e.AdminKey, nil).Expect(200).JSON(&as)
	if len(as) != 1 || as[0].Name != "Aria" {
		t.Fatalf("assistants changed: %+v", as)
	}
	var ds []app.Deployment
	e.Do("GET", "/orgs/c/assistants/"+asst+"/integrations", e.AdminKey, nil).Expect(200).JSON(&ds)
	if len(ds) != 1 || ds[0].Name != "Site" || !ds[0].Enabled {
		t.Fatalf("integrations changed: %+v", ds)
	}
	e.Do("GET", "/orgs/c/assistants/"+asst+"/knowledge/contents/"+kc, e.AdminKey, nil).Expect(200)
	var ks []map[string]any
	e.Do("GET", "/orgs/c/assistants/"+asst+"/knowledge/contents", e.AdminKey, nil).Expect(200).JSON(&ks)
	if len(ks) != 1 {
		t.Fatalf("knowledge changed: %d contents", len(ks))
	}
}

// A role with assistants:read and knowledge:read sees every settings page without a form or
// a button that changes anything, and each POST is refused 403 naming the permission.
func TestPermissionAssistantSettingsReadOnly(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	asst, asi, kc := settingsFixture(t, e)
	b := signedIn(t, e, roleMember(t, e, "assistants:read", "knowledge:read"))
	for _, path := range []string{"/app/assistants", "/app/assistants/" + asst, "/app/assistants/" + asst + "/knowledge",
		"/app/assistants/" + asst + "/channels", "/app/assistants/" + asst + "/playground"} {
		page := b.get(path).expect(t, 200)
		page.Body = page.Body[strings.Index(page.Body, "<main"):] // the top bar's sign-out forms aside
		for _, absent := range []string{`method="post"`, "hx-post", `id="create-assistant"`, `id="k-upload"`, `class="add-channel"`} {
			if strings.Contains(page.Body, absent) {
				t.Fatalf("%s offers %s to a read-only role", path, absent)
			}
		}
		if !strings.Contains(page.Body, `id="readonly-note"`) {
			t.Fatalf("%s has no read-only note", path)
		}
	}
	for path, form := range settingsPosts(asst, asi, kc) {
		form.Set("csrf", b.csrf)
		a := b.do("POST", path, form).expect(t, http.StatusForbidden)
		if !strings.Contains(a.Body, ":write") {
			t.Fatalf("%s: the refusal does not name the permission: %.300s", path, a.Body)
		}
	}
	unchanged(t, e, asst, asi, kc)
	chat, say := playChat(t, e, e.AdminKey, "c", asst)
	b.do("POST", say, url.Values{"csrf": {b.csrf}, "text": {"forged"}}).expect(t, http.StatusForbidden)
	noMessages(t, e, e.AdminKey, "c", chat)

	none := signedIn(t, e, roleMember(t, e, "inbox:read"))
	if strings.Contains(none.get("/app/").Body, `href="/app/assistants"`) {
		t.Fatal("the Assistants link shows without assistants:read")
	}
	none.get("/app/assistants").expect(t, http.StatusForbidden)
	none.get("/app/assistants/"+asst+"/knowledge").expect(t, http.StatusForbidden)
	none.get("/app/assistants/"+asst+"/channels").expect(t, http.StatusForbidden)
}

// Every POST of the settings pages needs the session's CSRF token and this server's Origin;
// an owner's request without either is refused and changes nothing.
func TestAssistantSettingsCSRF(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	asst, asi, kc := settingsFixture(t, e)
	b := signedIn(t, e, e.Owner)
	for path, form := range settingsPosts(asst, asi, kc) {
		b.do("POST", path, form).expect(t, http.StatusForbidden)
		b.do("POST", path, form, "X-CSRF-Token", "forged-token").expect(t, http.StatusForbidden)
		f := url.Values{"csrf": {b.csrf}}
		for k, v := range form {
			f[k] = v
		}
		b.do("POST", path, f, "Origin", "https://evil.example").expect(t, http.StatusForbidden)
		b.do("POST", path, f, "Origin", "-").expect(t, http.StatusForbidden)
	}
	unchanged(t, e, asst, asi, kc)
	chat, say := playChat(t, e, e.AdminKey, "c", asst)
	b.do("POST", say, url.Values{"text": {"no token"}}).expect(t, http.StatusForbidden)
	b.do("POST", say, url.Values{"csrf": {b.csrf}, "text": {"no origin"}}, "Origin", "-").expect(t, http.StatusForbidden)
	noMessages(t, e, e.AdminKey, "c", chat)
	b.do("POST", say, url.Values{"csrf": {b.csrf}, "text": {"with both"}}).expect(t, http.StatusOK) // the same post, whole
}

// Another organization's assistant, integration or content is not found from here.
func TestAssistantSettingsOtherOrgNotFound(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	o, key := e.OrgWithAdmin("Other")
	var a, d struct{ ID string }
	e.Do("POST", "/orgs/"+o.ID+"/assistants", key, map[string]any{"name": "Theirs"}).Expect(201).JSON(&a)
	e.Do("POST", "/orgs/"+o.ID+"/assistants/"+a.ID+"/integrations", key, map[string]any{"integration_id": "internal", "name": "Theirs"}).Expect(201).JSON(&d)
	b := signedIn(t, e, e.Owner)
	b.get("/app/assistants")
	for _, p := range []string{"", "/knowledge", "/channels", "/playground"} {
		b.get("/app/assistants/"+a.ID+p).expect(t, http.StatusNotFound)
	}
	for path := range settingsPosts(a.ID, d.ID, "kc_none") {
		if path == "/app/assistants" {
			continue
		}
		b.do("POST", path, url.Values{"csrf": {b.csrf}, "name": {"Mine now"}, "kind": {"TEXT"}, "title": {"x"}, "content.text": {"x"},
			"integration_id": {"internal"}, "config.model": {"auto:auto"}}).expect(t, http.StatusNotFound)
	}
	chat, say := playChat(t, e, key, o.ID, a.ID)
	b.do("POST", say, url.Values{"csrf": {b.csrf}, "text": {"hello"}}).expect(t, http.StatusNotFound)
	noMessages(t, e, key, o.ID, chat)
	b.get("/app/assistants/"+a.ID+"/playground?chat="+chat).expect(t, http.StatusNotFound)
	var got app.Deployment
	e.Do("GET", "/orgs/"+o.ID+"/assistants/"+a.ID+"/integrations/"+d.ID, key, nil).Expect(200).JSON(&got)
	if got.Name != "Theirs" {
		t.Fatalf("another org's integration changed: %+v", got)
	}
}

// Each form names its bad fields beside them, with the API's own words, and keeps what was
// typed; nothing is saved.
func TestAssistantSettingsFieldErrors(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	asst, _, _ := settingsFixture(t, e)
	b := signedIn(t, e, e.Owner)
	b.get("/app/assistants")
	cases := []struct {
		path string
		form url.Values
		want []string
	}{
		{"/app/assistants", url.Values{"name": {""}, "config.model": {"not a model"}, "config.language": {"english!"}},
			[]string{"name", "config.model", "config.language"}},
		{"/app/assistants/" + asst, url.Values{"name": {"Aria"}, "config.model": {"auto:auto"}, "config.language": {"auto"},
			"config.timezone": {"Mars/Olympus"}, "config.conversation.suggested_messages": {"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11"},
			"config.stt.model": {"whisper"}, "config.tts.model": {"tts one"}},
			[]string{"config.timezone", "config.conversation.suggested_messages", "config.stt.model", "config.tts.model"}},
		{"/app/assistants/" + asst + "/knowledge", url.Values{"kind": {"URL"}, "content.url": {"ftp://example.com"}, "content.max_pages": {"100000"}},
			[]string{"content.url", "content.max_pages"}},
		{"/app/assistants/" + asst + "/knowledge", url.Values{"kind": {"TEXT"}, "title": {""}, "content.text": {"  "}},
			[]string{"title", "content.text"}},
		{"/app/assistants/" + asst + "/channels", url.Values{"integration_id": {"internal"}, "name": {"Site two"}, "config.allowed_origins": {"https://ok.example\nnot an origin"}},
			[]string{"config.allowed_origins[1]"}},
		{"/app/assistants/" + asst + "/channels", url.Values{"integration_id": {"whatsapp"}, "name": {"WA"}, "config.phone_number_id": {""}},
			[]string{"config.phone_number_id", "config.waba_id", "secrets.access_token", "secrets.app_secret"}},
		{"/app/assistants/" + asst + "/channels", url.Values{"integration_id": {"email"}, "name": {"Mail"}, "config.inbound": {"imap"}, "config.imap.port": {"99999"}},
			[]string{"config.identity_id", "config.imap.host", "config.imap.port", "secrets.imap_password"}},
	}
	for _, c := range cases {
		c.form.Set("csrf", b.csrf)
		a := b.do("POST", c.path, c.form).expect(t, http.StatusBadRequest)
		for _, f := range c.want {
			if !strings.Contains(a.Body, `data-field="`+f+`"`) {
				t.Fatalf("%s: no error beside %s:\n%s", c.path, f, a.Body[strings.Index(a.Body, "<main"):])
			}
		}
		if !strings.Contains(a.Body, `id="form-error"`) {
			t.Fatalf("%s: no line above the form", c.path)
		}
	}
	var ds []app.Deployment
	e.Do("GET", "/orgs/c/assistants/"+asst+"/integrations", e.AdminKey, nil).Expect(200).JSON(&ds)
	if len(ds) != 1 {
		t.Fatalf("a refused form saved an integration: %d", len(ds))
	}
}

// The settings form sets the assistant's voice: its speech-to-text model, its text-to-speech
// model and voice, as the API then reads them; emptied, they are off again.
func TestAssistantSettingsVoice(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	asst, _, _ := settingsFixture(t, e)
	b := signedIn(t, e, e.Owner)
	b.get("/app/assistants/" + asst)
	form := url.Values{"csrf": {b.csrf}, "name": {"Aria"}, "config.model": {"auto:auto"}, "config.language": {"auto"}, "config.timezone": {"UTC"},
		"config.stt.model": {"openai:whisper-1"}, "config.tts.model": {"openai:tts-1"}, "config.tts.voice_id": {"alloy"}}
	b.do("POST", "/app/assistants/"+asst, form).expect(t, http.StatusSeeOther)
	var a app.Assistant
	e.Do("GET", "/orgs/c/assistants/"+asst, e.AdminKey, nil).Expect(200).JSON(&a)
	if a.Config.STT.Model != "openai:whisper-1" || a.Config.TTS.Model != "openai:tts-1" || a.Config.TTS.VoiceID != "alloy" {
		t.Fatalf("voice after saving: %+v %+v", a.Config.STT, a.Config.TTS)
	}
	if p := b.get("/app/assistants/"+asst).expect(t, 200); !strings.Contains(p.Body, `name="config.tts.voice_id" value="alloy"`) {
		t.Fatal("the form does not show the voice saved")
	}
	for _, k := range []string{"config.stt.model", "config.tts.model", "config.tts.voice_id"} {
		form.Set(k, "")
	}
	b.do("POST", "/app/assistants/"+asst, form).expect(t, http.StatusSeeOther)
	e.Do("GET", "/orgs/c/assistants/"+asst, e.AdminKey, nil).Expect(200).JSON(&a)
	if a.Config.STT.Model != "" || a.Config.TTS.Model != "" || a.Config.TTS.VoiceID != "" {
		t.Fatalf("voice after emptying: %+v %+v", a.Config.STT, a.Config.TTS)
	}
}
