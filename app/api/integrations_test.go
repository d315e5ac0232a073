package api_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"wsapi/app/apitest"
)

// asiPath is the integrations route of an assistant.
func asiPath(asst string, rest ...string) string {
	return "/orgs/c/assistants/" + asst + "/integrations" + strings.Join(rest, "")
}

func newAssistant(t *testing.T, e *apitest.Env, key string, body map[string]any) string {
	t.Helper()
	var a map[string]any
	e.Do("POST", "/orgs/c/assistants", key, body).Expect(201).JSON(&a)
	return a["id"].(string)
}

// TestAssistantIntegrationsCRUD: every route of assistant integrations, checked against the
// document; the widget's secret_key is answered by create and rotate only and never by a
// read, secrets are write-only, and another organization's integration is 404.
func TestAssistantIntegrationsCRUD(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	asst := newAssistant(t, e, e.AdminKey, map[string]any{"name": "Aria"})

	var w map[string]any
	e.Do("POST", asiPath(asst), e.AdminKey, map[string]any{"integration_id": "internal", "name": "Site",
		"config": map[string]any{"allowed_origins": []string{"https://shop.example"}, "require_identity": false}}).Expect(201).JSON(&w)
	id, key := w["id"].(string), w["secret_key"].(string)
	apitest.CheckID(t, id, "asi")
	if !strings.HasPrefix(key, "wsk_") || w["status"] != "ACTIVE" || w["enabled"] != true || w["error"] != nil {
		t.Fatalf("created widget: %v", w)
	}
	if fmt.Sprint(w["secret_keys"]) != "[secret_key]" {
		t.Errorf("secret_keys %v, want [secret_key]", w["secret_keys"])
	}
	snippet := w["snippet"].(string)
	if !strings.Contains(snippet, "/widget.js\" data-integration=\""+id+"\" async></script>") {
		t.Errorf("snippet %q", snippet)
	}

	var got map[string]any
	res := e.Do("GET", asiPath(asst, "/", id), e.AdminKey, nil).Expect(200)
	res.JSON(&got)
	if _, has := got["secret_key"]; has || strings.Contains(string(res.Body), key) {
		t.Errorf("GET answers the secret key: %s", res.Body)
	}
	if got["snippet"] != snippet {
		t.Errorf("GET snippet %v", got["snippet"])
	}
	var list []map[string]any
	e.Do("GET", asiPath(asst), e.AdminKey, nil).Expect(200).JSON(&list)
	if len(list) != 1 || list[0]["id"] != id {
		t.Fatalf("list %v", list)
	}

	e.Do("PATCH", asiPath(asst, "/", id), e.AdminKey, map[string]any{"name": "Shop", "enabled": false}).Expect(200).JSON(&got)
	if got["name"] != "Shop" || got["enabled"] != false {
		t.Errorf("patched %v", got)
	}
	e.Do("POST", asiPath(asst, "/", id, "/rotate"), e.AdminKey, nil).Expect(200).JSON(&got)
	if k, _ := got["secret_key"].(string); !strings.HasPrefix(k, "wsk_") || k == key {
		t.Errorf("rotated key %q (old %q)", k, key)
	}

	// Another organization sees none of it.
	_, other := e.OrgWithAdmin("Other")
	for _, m := range []string{"GET", "PATCH", "DELETE"} {
		var body any
		if m == "PATCH" {
			body = map[string]any{"name": "x"}
		}
		e.Do(m, asiPath(asst, "/", id), other, body).Expect(404)
	}
	e.Do("POST", asiPath(asst, "/", id, "/rotate"), other, nil).Expect(404)
	e.Do("GET", asiPath(asst), other, nil).Expect(404)
	e.Do("POST", asiPath(asst), other, map[string]any{"integration_id": "custom", "name": "x"}).Expect(404)

	e.Do("DELETE", asiPath(asst, "/", id), e.AdminKey, nil).Expect(204)
	e.Do("GET", asiPath(asst, "/", id), e.AdminKey, nil).Expect(404)
	e.Do("GET", "/widget/"+id, "", nil).Expect(404)
}

// TestAssistantIntegrationConfigRules: each type's config and secrets at their edges; a bad
// one is a 400 naming every bad field and stores nothing.
func TestAssistantIntegrationConfigRules(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	asst := newAssistant(t, e, e.AdminKey, map[string]any{"name": "Aria"})
	origins := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("https://site%d.example", i)
		}
		return out
	}
	bad := []struct {
		name   string
		body   map[string]any
		fields []string
	}{
		{"unknown type", map[string]any{"integration_id": "fax", "name": "x"}, []string{"integration_id"}},
		{"no name", map[string]any{"integration_id": "custom", "name": " "}, []string{"name"}},
		{"51 origins", map[string]any{"integration_id": "internal", "name": "w",
			"config": map[string]any{"allowed_origins": origins(51)}}, []string{"config.allowed_origins"}},
		{"origin with a path and a wildcard", map[string]any{"integration_id": "internal", "name": "w",
			"config": map[string]any{"allowed_origins": []string{"https://a.example/x", "*"}}},
			[]string{"config.allowed_origins[0]", "config.allowed_origins[1]"}},
		{"unknown key, not a boolean", map[string]any{"integration_id": "internal", "name": "w",
			"config": map[string]any{"colour": "red", "require_identity": "yes"}}, []string{"config.colour", "config.require_identity"}},
		{"secret the widget makes", map[string]any{"integration_id": "internal", "name": "w",
			"secrets": map[string]string{"secret_key": "mine"}}, []string{"secrets.secret_key"}},
		{"telegram without token", map[string]any{"integration_id": "telegram", "name": "t"}, []string{"secrets.bot_token"}},
		{"whatsapp without ids", map[string]any{"integration_id": "whatsapp", "name": "w",
			"secrets": map[string]string{"access_token": "a", "app_secret": "b"}}, []string{"config.phone_number_id", "config.waba_id"}},
		{"email imap without password", map[string]any{"integration_id": "email", "name": "m",
			"config": map[string]any{"identity_id": "id_x", "inbound": "imap",
				"imap": map[string]any{"host": "imap.example", "port": 99999, "tls": true, "username": "u", "mailbox": "INBOX"}}},
			[]string{"config.imap.port", "secrets.imap_password"}},
	}
	for _, c := range bad {
		res := e.DoInvalid("POST", asiPath(asst), e.AdminKey, c.body).Expect(400)
		var body struct {
			Error struct{ Fields map[string]string }
		}
		res.JSON(&body)
		for _, f := range c.fields {
			if body.Error.Fields[f] == "" {
				t.Errorf("%s: no problem named %s: %s", c.name, f, res.Body)
			}
		}
		if len(body.Error.Fields) != len(c.fields) {
			t.Errorf("%s: fields %v, want %v", c.name, body.Error.Fields, c.fields)
		}
	}
	if n := e.Count(e.AdminKey, asiPath(asst)); n != 0 {
		t.Fatalf("refused creates stored %d integrations", n)
	}
	// At the edges: 50 origins pass; an email integration names an identity of the org.
	e.Do("POST", asiPath(asst), e.AdminKey, map[string]any{"integration_id": "internal", "name": "w",
		"config": map[string]any{"allowed_origins": origins(50)}}).Expect(201)
	e.Do("POST", asiPath(asst), e.AdminKey, map[string]any{"integration_id": "email", "name": "m",
		"config": map[string]any{"identity_id": "id_nope", "inbound": "smtp"}}).Expect(400)

	// A channel whose set-up check fails (here the Bot API cannot be reached) is saved
	// FAILED, saying why; its secrets are write-only, and the token never shows in the error.
	var tg map[string]any
	res := e.Do("POST", asiPath(asst), e.AdminKey, map[string]any{"integration_id": "telegram", "name": "bot",
		"secrets": map[string]string{"bot_token": "123:SECRET-TOKEN"}}).Expect(201)
	res.JSON(&tg)
	if tg["status"] != "FAILED" || !strings.Contains(fmt.Sprint(tg["error"]), "the bot token was refused") ||
		strings.Contains(string(res.Body), "SECRET-TOKEN") || fmt.Sprint(tg["secret_keys"]) != "[bot_token]" {
		t.Errorf("telegram integration: %s", res.Body)
	}
	e.Do("GET", "/widget/"+tg["id"].(string), "", nil).Expect(404) // not a widget
	var wa map[string]any
	e.Do("POST", asiPath(asst), e.AdminKey, map[string]any{"integration_id": "whatsapp", "name": "wa",
		"config":  map[string]any{"phone_number_id": "1", "waba_id": "2"},
		"secrets": map[string]string{"access_token": "a", "app_secret": "b"}}).Expect(201).JSON(&wa)
	if wa["status"] != "FAILED" || !strings.Contains(fmt.Sprint(wa["error"]), "WhatsApp") { // no Graph API on port 1
		t.Errorf("whatsapp set-up check: %v %v", wa["status"], wa["error"])
	}
	if cfg := wa["config"].(map[string]any); len(fmt.Sprint(cfg["verify_token"])) != 32 {
		t.Errorf("whatsapp verify_token %v", cfg["verify_token"])
	}
	// PATCH keeps the stored secrets and checks the merged result.
	e.Do("PATCH", asiPath(asst, "/", wa["id"].(string)), e.AdminKey, map[string]any{"secrets": map[string]string{"app_secret": ""}}).Expect(400)
	e.Do("PATCH", asiPath(asst, "/", wa["id"].(string)), e.AdminKey, map[string]any{"secrets": map[string]string{"app_secret": "c"}}).Expect(200)
	e.Do("POST", asiPath(asst, "/", wa["id"].(string), "/rotate"), e.AdminKey, nil).Expect(400)
}

// TestMetadataOffersOnlyConnectableChannels: /metadata lists the assistant integration types
// this server can connect (the widget, custom and the channels whose connectors it has), and marks every provider of the integration_id set available or not yet.
func TestMetadataOffersOnlyConnectableChannels(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	var md struct {
		Sets map[string][]struct {
			Value     string
			Available *bool
		}
	}
	e.Do("GET", "/metadata", "", nil).Expect(200).JSON(&md)
	var got []string
	for _, o := range md.Sets["assistant_integration_id"] {
		got = append(got, o.Value)
		if o.Available != nil {
			t.Errorf("assistant_integration_id %s carries available", o.Value)
		}
	}
	if !slices.Contains(got, "whatsapp") || !slices.Contains(got, "internal") || !slices.Contains(got, "custom") ||
		!slices.Contains(got, "email") || slices.Contains(got, "messenger") || !slices.Contains(got, "telegram") {
		t.Fatalf("assistant_integration_id %v", got)
	}
	available := map[string]bool{}
	for _, o := range md.Sets["integration_id"] {
		if o.Available == nil {
			t.Fatalf("integration_id %s without available", o.Value)
		}
		available[o.Value] = *o.Available
	}
	for v, want := range map[string]bool{"internal": true, "custom": true, "whatsapp": true, "telegram": true, "email": true,
		"messenger": false, "instagram": false, "sms": false, "slack": false} {
		if available[v] != want {
			t.Errorf("integration_id %s available %v, want %v", v, available[v], want)
		}
	}
}
