package api_test

import (
	"fmt"
	"strings"
	"testing"

	"wsapi/app/apitest"
)

// cnFields resolves an action's fields and answers them by path.
func cnFields(e *apitest.Env, key string, body map[string]any) (map[string]map[string]any, []string) {
	e.T.Helper()
	res := e.Do("POST", "/orgs/c/connections/actions/fields", key, body).Expect(200).Map()
	if res["action_id"] != body["action_id"] {
		e.T.Fatalf("action_id %v", res["action_id"])
	}
	out := map[string]map[string]any{}
	var order []string
	for _, f := range res["fields"].([]any) {
		m := f.(map[string]any)
		if cnKeys(m) != "definition,path" {
			e.T.Fatalf("field %v", m)
		}
		out[m["path"].(string)] = m["definition"].(map[string]any)
		order = append(order, m["path"].(string))
	}
	return out, order
}

// cnOptions answers the option values of a field and fails unless each has a label.
func cnOptions(t *testing.T, def map[string]any) []string {
	t.Helper()
	raw, ok := def["options"].([]any)
	if !ok {
		t.Fatalf("no options in %v", def)
	}
	values := []string{}
	for _, o := range raw {
		m := o.(map[string]any)
		if cnKeys(m) != "label,value" || m["label"] == "" {
			t.Fatalf("option %v", m)
		}
		values = append(values, m["value"].(string))
	}
	return values
}

func cnSame(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

func TestActionFieldsCatalogue(t *testing.T) {
	e := apitest.New(t)
	want := map[string]string{
		"tools:http_request":      "connection,method,url,headers,body",
		"emails:send":             "connection,to,subject,body,attachments",
		"workflows:call_workflow": "connection,workflow_id,assistant,input",
	}
	for action, paths := range want {
		fields, order := cnFields(e, e.AdminKey, map[string]any{"action_id": action})
		cnSame(t, action, order, strings.Split(paths, ",")...)
		for path, def := range fields {
			typ, _ := def["type"].(string)
			if typ == "" || def["label"] == nil || def["required"] == nil {
				t.Fatalf("%s %s: %v", action, path, def)
			}
			reference := map[string]bool{"connection": true, "contact": true, "assistant": true}[typ]
			if _, has := def["options"]; has != reference {
				t.Fatalf("%s %s: options present %v for type %s", action, path, has, typ)
			}
		}
	}
	calls := []apitest.Scenario{
		{Name: "unknown action", Invalid: true, Method: "POST", URL: "/orgs/c/connections/actions/fields", Key: e.AdminKey, Body: map[string]any{"action_id": "tools:nope"}, Status: 400, Code: "invalid_argument", Fields: []string{"action_id"}},
		{Name: "no action", Invalid: true, Method: "POST", URL: "/orgs/c/connections/actions/fields", Key: e.AdminKey, Body: map[string]any{}, Status: 400, Code: "invalid_argument", Fields: []string{"action_id"}},
		{Name: "unknown connection", Method: "POST", URL: "/orgs/c/connections/actions/fields", Key: e.AdminKey, Body: map[string]any{"action_id": "emails:send",
			"connection_id": "conn_doesnotexist00000000"}, Status: 404, Code: "not_found"},
		{Name: "definition without path", Invalid: true, Method: "POST", URL: "/orgs/c/connections/actions/fields", Key: e.AdminKey, Body: map[string]any{"action_id": "emails:send",
			"definitions": []any{map[string]any{"definition": map[string]any{"type": "segment"}}}}, Status: 400, Code: "invalid_argument", Fields: []string{"definitions[0]"}},
		{Name: "definition of unknown type", Invalid: true, Method: "POST", URL: "/orgs/c/connections/actions/fields", Key: e.AdminKey, Body: map[string]any{"action_id": "emails:send",
			"definitions": []any{map[string]any{"path": "a", "definition": map[string]any{"type": "segment"}},
				map[string]any{"path": "b", "definition": map[string]any{"type": "blob"}}}}, Status: 400, Code: "invalid_argument", Fields: []string{"definitions[1]"}},
		{Name: "unknown field", Invalid: true, Method: "POST", URL: "/orgs/c/connections/actions/fields", Key: e.AdminKey, Body: map[string]any{"action_id": "emails:send", "x": 1}, Status: 400, Code: "invalid_argument", Fields: []string{"x"}},
		{Name: "no connections permission", Method: "POST", URL: "/orgs/c/connections/actions/fields", Key: e.RoleKey(e.Org.ID, "contacts:read"), Body: map[string]any{"action_id": "emails:send"}, Status: 403, Code: "permission_denied"},
		{Name: "read permission is enough", Method: "POST", URL: "/orgs/c/connections/actions/fields", Key: e.RoleKey(e.Org.ID, "connections:read"), Body: map[string]any{"action_id": "emails:send"}, Status: 200},
	}
	e.Run(t, calls)
}

func TestActionFieldsOptionsFromOrgData(t *testing.T) {
	e := apitest.New(t)
	org := func(path string, body map[string]any) string {
		return e.Do("POST", "/orgs/c/"+path, e.AdminKey, body).Expect(201).Map()["id"].(string)
	}
	httpConn := org("connections", map[string]any{"type": "HTTP_CREDENTIALS", "name": "Billing API"})
	mailConn := org("connections", map[string]any{"type": "EMAILS", "name": "Mailbox"})
	segment := org("segments", map[string]any{"name": "VIP"})
	contact := org("contacts", map[string]any{"name": "Ada Lovelace", "channels": []any{}})
	asst := org("assistants", map[string]any{"name": "Helper"})
	chat := org("chats", map[string]any{"title": "Planning"})
	// Another organization's data never shows.
	sub, subKey := e.OrgWithAdmin("Elsewhere")
	for path, body := range map[string]map[string]any{
		"connections": {"type": "HTTP_CREDENTIALS", "name": "Foreign API"}, "segments": {"name": "Foreign"},
		"contacts": {"name": "Foreign Contact", "channels": []any{}}, "assistants": {"name": "Foreign Helper"},
		"chats": {"title": "Foreign chat"},
	} {
		e.Do("POST", "/orgs/"+sub.ID+"/"+path, subKey, body).Expect(201)
	}

	fields, _ := cnFields(e, e.AdminKey, map[string]any{"action_id": "tools:http_request", "connection_id": httpConn})
	cnSame(t, "http_request connection", cnOptions(t, fields["connection"]), httpConn)
	if fields["connection"]["options"].([]any)[0].(map[string]any)["label"] != "Billing API" {
		t.Fatalf("label %v", fields["connection"]["options"])
	}
	if _, has := fields["method"]["options"]; has {
		t.Fatal("an enum got options")
	}

	fields, _ = cnFields(e, e.AdminKey, map[string]any{"action_id": "emails:send", "connection_id": mailConn})
	cnSame(t, "emails connection", cnOptions(t, fields["connection"]), mailConn)
	cnSame(t, "emails to", cnOptions(t, fields["to"]), contact)

	fields, _ = cnFields(e, e.AdminKey, map[string]any{"action_id": "workflows:call_workflow"})
	cnSame(t, "workflows connection", cnOptions(t, fields["connection"]))
	cnSame(t, "workflows assistant", cnOptions(t, fields["assistant"]), asst)

	// The client's definitions: new reference fields get options, a same-path one replaces the
	// catalogue's, and other types stay as sent.
	fields, order := cnFields(e, e.AdminKey, map[string]any{"action_id": "tools:http_request", "input": map[string]any{"url": "x"},
		"resource_id": "res_1", "definitions": []any{
			map[string]any{"path": "audience", "definition": map[string]any{"type": "segment", "label": "Audience"}},
			map[string]any{"path": "owner", "definition": map[string]any{"type": "user"}},
			map[string]any{"path": "thread", "definition": map[string]any{"type": "chat"}},
			map[string]any{"path": "upload", "definition": map[string]any{"type": "file", "accept": "application/pdf"}},
			map[string]any{"path": "connection", "definition": map[string]any{"type": "connection"}},
			map[string]any{"path": "mailer", "definition": map[string]any{"type": "connection", "connection_types": []any{"EMAILS"}}},
		}})
	cnSame(t, "order", order, "connection", "method", "url", "headers", "body", "audience", "owner", "thread", "upload", "mailer")
	cnSame(t, "segment", cnOptions(t, fields["audience"]), segment)
	if fields["audience"]["label"] != "Audience" {
		t.Fatalf("audience %v", fields["audience"])
	}
	users := cnOptions(t, fields["owner"])
	if len(users) != 1 || users[0] != e.Owner.ID {
		t.Fatalf("users %v, want the owner %s", users, e.Owner.ID)
	}
	cnSame(t, "chat", cnOptions(t, fields["thread"]), chat)
	if fields["thread"]["options"].([]any)[0].(map[string]any)["label"] != "Planning" {
		t.Fatalf("chat label %v", fields["thread"]["options"])
	}
	if _, has := fields["upload"]["options"]; has || fields["upload"]["accept"] != "application/pdf" {
		t.Fatalf("upload %v", fields["upload"])
	}
	all := cnOptions(t, fields["connection"])
	if len(all) != 2 {
		t.Fatalf("unrestricted connection field: %v", all)
	}
	cnSame(t, "client-restricted connection", cnOptions(t, fields["mailer"]), mailConn)

	// The sub-org sees its own data only, and another org's connection id is not found.
	fields, _ = cnFields(e, subKey, map[string]any{"action_id": "tools:http_request"})
	if got := cnOptions(t, fields["connection"]); len(got) != 1 || got[0] == httpConn {
		t.Fatalf("sub-org connections %v", got)
	}
	e.Do("POST", "/orgs/c/connections/actions/fields", subKey, map[string]any{"action_id": "tools:http_request",
		"connection_id": httpConn}).ExpectError(404, "not_found")
	e.Do("DELETE", "/orgs/c/connections/"+httpConn, e.AdminKey, nil).Expect(204)
	e.Do("POST", "/orgs/c/connections/actions/fields", e.AdminKey, map[string]any{"action_id": "tools:http_request",
		"connection_id": httpConn}).ExpectError(404, "not_found")
}

func TestActionFieldsConnectionOptionsNotCrowdedOut(t *testing.T) {
	e := apitest.New(t)
	for i := 0; i < 101; i++ {
		cnCreate(e, e.AdminKey, "c", map[string]any{"type": "EMAILS", "name": fmt.Sprintf("a mailbox %03d", i)})
	}
	last := cnCreate(e, e.AdminKey, "c", map[string]any{"type": "HTTP_CREDENTIALS", "name": "zz last"})["id"].(string)
	fields, _ := cnFields(e, e.AdminKey, map[string]any{"action_id": "tools:http_request"})
	cnSame(t, "http_request connection", cnOptions(t, fields["connection"]), last)
	fields, _ = cnFields(e, e.AdminKey, map[string]any{"action_id": "emails:send", "definitions": []any{
		map[string]any{"path": "any", "definition": map[string]any{"type": "connection"}},
		map[string]any{"path": "both", "definition": map[string]any{"type": "connection",
			"connection_types": []any{"HTTP_CREDENTIALS", "EMAILS", "EMAILS"}}}}})
	for _, path := range []string{"connection", "any", "both"} {
		opts := cnOptions(t, fields[path])
		if len(opts) != 100 {
			t.Fatalf("%s: %d options, want the cap of 100", path, len(opts))
		}
		seen := map[string]bool{}
		for _, o := range opts {
			if seen[o] || o == last {
				t.Fatalf("%s: %s repeated or out of name order", path, o)
			}
			seen[o] = true
		}
	}
}
