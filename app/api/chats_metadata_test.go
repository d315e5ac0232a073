package api_test

import (
	"strings"
	"testing"

	"wsapi/app/apitest"
)

// chLabels is the label of each value of a metadata set.
func chLabels(md map[string]any, set string) map[string]string {
	out := map[string]string{}
	for _, o := range chObj(md, "sets")[set].([]any) {
		out[chObj(o)["value"].(string)] = chObj(o)["label"].(string)
	}
	return out
}

func TestMetadata(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	get := func(q string) map[string]any {
		t.Helper()
		return e.Do("GET", "/metadata"+q, "", nil).Expect(200).Map()
	}

	en := get("")
	if en["lang"] != "en" || en["fallback_applied"] != false {
		t.Errorf("default: lang %v fallback %v", en["lang"], en["fallback_applied"])
	}
	for set, values := range map[string][]string{
		"chat_state":   {"OPEN", "SNOOZED", "CLOSED"},
		"chat_status":  {"RUNNING", "COMPLETED", "FAILED", "CANCELED"},
		"visibility":   {"PRIVATE", "PUBLIC_READ", "PUBLIC_WRITE"},
		"inbox_filter": {"ALL", "UNREAD", "UNRESOLVED", "RESOLVED", "ASSIGNED_TO_ME", "UNASSIGNED"},
		"ai_status":    {"ALL", "ENABLED", "DISABLED"},
		"media_format": {"opus-rtp", "opus-raw", "opus-ogg", "pcm-wav", "pcm-raw", "mp3", "m4a", "mulaw"},
	} {
		got := chLabels(en, set)
		if len(got) != len(values) {
			t.Errorf("set %s: %v, want %v", set, got, values)
		}
		for _, v := range values {
			if got[v] == "" {
				t.Errorf("set %s: no label for %s", set, v)
			}
		}
	}
	if l := chLabels(en, "chat_state"); l["OPEN"] != "Open" || chLabels(en, "inbox_filter")["ASSIGNED_TO_ME"] != "Assigned to me" {
		t.Errorf("English labels %v", l)
	}
	integrations := chLabels(en, "integration_id")
	for _, v := range []string{"internal", "custom", "email"} {
		if integrations[v] == "" {
			t.Errorf("integration_id lacks %s", v)
		}
	}
	if len(integrations) != 12 {
		t.Errorf("integration_id has %d values, want 12", len(integrations))
	}

	es := get("?lang=es")
	if es["lang"] != "es" || es["fallback_applied"] != false {
		t.Errorf("es: lang %v fallback %v", es["lang"], es["fallback_applied"])
	}
	if l := chLabels(es, "chat_state"); l["OPEN"] != "Abierta" || l["CLOSED"] != "Cerrada" || l["SNOOZED"] != "Pospuesta" {
		t.Errorf("Spanish chat_state %v", l)
	}
	if l := chLabels(es, "inbox_filter"); l["UNREAD"] != "No leídas" || l["ASSIGNED_TO_ME"] != "Asignadas a mí" {
		t.Errorf("Spanish inbox_filter %v", l)
	}
	if l := chLabels(get("?lang=es-MX"), "chat_state"); l["OPEN"] != "Abierta" {
		t.Errorf("es-MX falls back to es: %v", l)
	}

	zz := get("?lang=zz")
	if zz["lang"] != "en" || zz["fallback_applied"] != true || chLabels(zz, "chat_state")["OPEN"] != "Open" {
		t.Errorf("zz: lang %v fallback %v", zz["lang"], zz["fallback_applied"])
	}
	if md := get("?lang=" + strings.Repeat("z", 32)); md["lang"] != "en" {
		t.Errorf("32 characters: %v", md["lang"])
	}
	get("?lang=" + strings.Repeat("é", 32))
	e.DoInvalid("GET", "/metadata?lang="+strings.Repeat("z", 33), "", nil).ExpectError(400, "invalid_argument", "lang")
	e.DoInvalid("GET", "/metadata?lang="+strings.Repeat("é", 33), "", nil).ExpectError(400, "invalid_argument", "lang")
	// A credential is not needed, and a bad one is not looked at.
	e.Do("GET", "/metadata?lang=fr", "sk_not_a_key", nil).Expect(200)
}
