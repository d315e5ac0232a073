package api_test

import (
	"bytes"
	"os"
	"sort"
	"strings"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
)

// cnSecret is a credential distinctive enough to be looked for in the database files.
const cnSecret = "s3cr3t-ZXCVBNMQWERTY"

// cnCreate creates a connection in org and answers it as a JSON object.
func cnCreate(e *apitest.Env, key, org string, body map[string]any) map[string]any {
	e.T.Helper()
	return e.Do("POST", "/orgs/"+org+"/connections", key, body).Expect(201).Map()
}

// cnKeys answers the sorted keys of a JSON object.
func cnKeys(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

// cnFiles answers the bytes of the database and its WAL, as they are on disk now.
func cnFiles(t *testing.T, e *apitest.Env) []byte {
	t.Helper()
	var all []byte
	for _, suffix := range []string{"", "-wal"} {
		data, err := os.ReadFile(e.Runtime.Config.DB.Path + suffix)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		all = append(all, data...)
	}
	return all
}

func TestConnectionShapeAndSecrets(t *testing.T) {
	e := apitest.New(t)
	created := e.Do("POST", "/orgs/c/connections", e.AdminKey, map[string]any{"type": "HTTP_CREDENTIALS",
		"name": "  Billing API ", "config": map[string]any{"base_url": "https://billing.example.com/cfgmarker-QAZWSX", "retries": 3},
		"secrets": map[string]any{"token": cnSecret, "password": "pw-" + cnSecret}}).Expect(201)
	if bytes.Contains(created.Body, []byte(cnSecret)) {
		t.Fatalf("create answered the secret: %s", created.Body)
	}
	c := created.Map()
	if got := cnKeys(c); got != "config,created_at,id,name,secret_keys,type,updated_at" {
		t.Fatalf("keys %s", got)
	}
	apitest.CheckID(t, c["id"], "conn")
	checkTimestamps(t, c, "created_at", "updated_at")
	if c["type"] != "HTTP_CREDENTIALS" || c["name"] != "Billing API" {
		t.Fatalf("created %v", c)
	}
	cfg := c["config"].(map[string]any)
	if cfg["base_url"] != "https://billing.example.com/cfgmarker-QAZWSX" || cfg["retries"] != 3.0 {
		t.Fatalf("config %v", cfg)
	}
	if keys, _ := c["secret_keys"].([]any); len(keys) != 2 || keys[0] != "password" || keys[1] != "token" {
		t.Fatalf("secret_keys %v", c["secret_keys"])
	}
	id := c["id"].(string)
	for _, path := range []string{"/orgs/c/connections/" + id, "/orgs/c/connections", "/orgs/" + e.Org.ID + "/connections?type=HTTP_CREDENTIALS"} {
		res := e.Do("GET", path, e.AdminKey, nil).Expect(200)
		if bytes.Contains(res.Body, []byte(cnSecret)) || bytes.Contains(res.Body, []byte(`"secrets"`)) {
			t.Fatalf("GET %s answered secrets: %s", path, res.Body)
		}
	}
	got := e.Do("GET", "/orgs/c/connections/"+id, e.AdminKey, nil).Expect(200).Map()
	if cnKeys(got) != cnKeys(c) || got["name"] != "Billing API" {
		t.Fatalf("get %v", got)
	}
	// At rest the secret is sealed: neither the database nor its WAL holds it in clear, while the
	// config (not secret) is there, which shows the files were read.
	files := cnFiles(t, e)
	if !bytes.Contains(files, []byte("cfgmarker-QAZWSX")) {
		t.Fatal("the config is not in the database files: the check reads the wrong files")
	}
	if bytes.Contains(files, []byte(cnSecret)) || bytes.Contains(files, []byte("ZXCVBNMQWERTY")) {
		t.Fatal("the secret is stored in clear")
	}
	// The service itself can open the sealed secrets.
	conn, err := e.Runtime.Service.GetConnection(t.Context(), e.Org.ID, id)
	if err != nil || conn.Secrets["token"] != cnSecret || conn.Secrets["password"] != "pw-"+cnSecret {
		t.Fatalf("opened secrets %v %v", conn.Secrets, err)
	}
	// Without secrets and config: empty object and list, never null.
	bare := cnCreate(e, e.AdminKey, "c", map[string]any{"type": "MCP", "name": "Tools server"})
	if cfg, ok := bare["config"].(map[string]any); !ok || len(cfg) != 0 {
		t.Fatalf("bare config %v", bare["config"])
	}
	if keys, ok := bare["secret_keys"].([]any); !ok || len(keys) != 0 {
		t.Fatalf("bare secret_keys %v", bare["secret_keys"])
	}
}

func TestConnectionValidation(t *testing.T) {
	e := apitest.New(t)
	for _, typ := range []string{"SCHEDULER", "WORKFLOWS", "TOOLS", "FILES", "EMAILS", "HTTP_CREDENTIALS", "AUDIENCE",
		"PHONE", "OAUTH", "MCP"} {
		if c := cnCreate(e, e.AdminKey, "c", map[string]any{"type": typ, "name": typ + " one"}); c["type"] != typ {
			t.Fatalf("type %v", c["type"])
		}
	}
	calls := []apitest.Scenario{
		{Name: "bad type", Invalid: true, Method: "POST", URL: "/orgs/c/connections", Key: e.AdminKey, Body: map[string]any{"type": "FTP", "name": "x"}, Status: 400, Code: "invalid_argument", Fields: []string{"type"}},
		{Name: "lower-case type", Invalid: true, Method: "POST", URL: "/orgs/c/connections", Key: e.AdminKey, Body: map[string]any{"type": "mcp", "name": "x"}, Status: 400, Code: "invalid_argument", Fields: []string{"type"}},
		{Name: "no type", Invalid: true, Method: "POST", URL: "/orgs/c/connections", Key: e.AdminKey, Body: map[string]any{"name": "x"}, Status: 400, Code: "invalid_argument", Fields: []string{"type"}},
		{Name: "no name", Method: "POST", URL: "/orgs/c/connections", Key: e.AdminKey, Body: map[string]any{"type": "MCP", "name": "  "}, Status: 400, Code: "invalid_argument", Fields: []string{"name"}},
		{Name: "long name", Invalid: true, Method: "POST", URL: "/orgs/c/connections", Key: e.AdminKey, Body: map[string]any{"type": "MCP", "name": strings.Repeat("n", 256)}, Status: 400, Code: "invalid_argument", Fields: []string{"name"}},
		{Name: "api_key in config", Method: "POST", URL: "/orgs/c/connections", Key: e.AdminKey, Body: map[string]any{"type": "TOOLS", "name": "x",
			"config": map[string]any{"api_key": "abc", "region": "eu"}}, Status: 400, Code: "invalid_argument", Fields: []string{"config.api_key"}},
		{Name: "credential-looking keys in config", Method: "POST", URL: "/orgs/c/connections", Key: e.AdminKey, Body: map[string]any{"type": "TOOLS", "name": "x",
			"config": map[string]any{"clientSecret": "a", "Password": "b", "access_token": "c", "private_key": "d"}}, Status: 400, Code: "invalid_argument", Fields: []string{"config.clientSecret", "config.Password", "config.access_token", "config.private_key"}},
		{Name: "nested credential keys", Method: "POST", URL: "/orgs/c/connections", Key: e.AdminKey, Body: map[string]any{"type": "TOOLS", "name": "x",
			"config": map[string]any{"auth": map[string]any{"client_secret": "a"}, "hosts": []any{map[string]any{"token": "b"}}}}, Status: 400, Code: "invalid_argument", Fields: []string{"config.auth.client_secret", "config.hosts[0].token"}},
		{Name: "secret not a string", Invalid: true, Method: "POST", URL: "/orgs/c/connections", Key: e.AdminKey, Body: map[string]any{"type": "TOOLS", "name": "x",
			"secrets": map[string]any{"token": 5}}, Status: 400, Code: "invalid_argument"},
		{Name: "empty secret name", Method: "POST", URL: "/orgs/c/connections", Key: e.AdminKey, Body: map[string]any{"type": "TOOLS", "name": "x",
			"secrets": map[string]any{"": "v"}}, Status: 400, Code: "invalid_argument", Fields: []string{"secrets"}},
		{Name: "unknown field", Invalid: true, Method: "POST", URL: "/orgs/c/connections", Key: e.AdminKey, Body: map[string]any{"type": "TOOLS", "name": "x", "secret": "v"}, Status: 400, Code: "invalid_argument", Fields: []string{"secret"}},
		{Name: "long name at the bound", Method: "POST", URL: "/orgs/c/connections", Key: e.AdminKey, Body: map[string]any{"type": "MCP", "name": strings.Repeat("é", 255)}, Status: 201},
		{Name: "nested settings", Method: "POST", URL: "/orgs/c/connections", Key: e.AdminKey, Body: map[string]any{"type": "TOOLS", "name": "nested",
			"config": map[string]any{"auth": map[string]any{"scheme": "bearer"}, "hosts": []any{"a", map[string]any{"port": 1}}}}, Status: 201},
	}
	e.Run(t, calls)
	// Nothing was stored by the refused calls.
	res := e.Do("GET", "/orgs/c/connections", e.AdminKey, nil).Expect(200)
	if res.Header.Get("pagination-count") != "12" {
		t.Fatalf("count %s", res.Header.Get("pagination-count"))
	}
}

func TestConnectionListDeleteAndAccess(t *testing.T) {
	e := apitest.New(t)
	b := cnCreate(e, e.AdminKey, "c", map[string]any{"type": "EMAILS", "name": "Bravo"})
	a := cnCreate(e, e.AdminKey, "c", map[string]any{"type": "HTTP_CREDENTIALS", "name": "alpha", "secrets": map[string]any{"k": cnSecret}})
	cnCreate(e, e.AdminKey, "c", map[string]any{"type": "HTTP_CREDENTIALS", "name": "Charlie"})
	var all []app.Connection
	e.Do("GET", "/orgs/c/connections", e.AdminKey, nil).Expect(200).JSON(&all)
	if len(all) != 3 {
		t.Fatalf("list %+v", all)
	}
	var typed []app.Connection
	res := e.Do("GET", "/orgs/c/connections?type=HTTP_CREDENTIALS&take=1", e.AdminKey, nil).Expect(200)
	res.JSON(&typed)
	if len(typed) != 1 || res.Header.Get("pagination-count") != "2" {
		t.Fatalf("typed %+v %v", typed, res.Header)
	}

	sub, subKey := e.OrgWithAdmin("Subsidiary")
	foreign := cnCreate(e, subKey, "c", map[string]any{"type": "MCP", "name": "Sub tools"})
	// The sub-org's key never reaches the parent's connections.
	e.Do("GET", "/orgs/c/connections/"+a["id"].(string), subKey, nil).ExpectError(404, "not_found")
	e.Do("DELETE", "/orgs/c/connections/"+a["id"].(string), subKey, nil).ExpectError(404, "not_found")
	e.Do("GET", "/orgs/"+e.Org.ID+"/connections/"+a["id"].(string), subKey, nil).ExpectError(404, "not_found")
	// An object of another org under the key's own org is 404; under its own org it is reachable.
	e.Do("GET", "/orgs/c/connections/"+foreign["id"].(string), e.AdminKey, nil).ExpectError(404, "not_found")
	e.Do("DELETE", "/orgs/c/connections/"+foreign["id"].(string), e.AdminKey, nil).ExpectError(404, "not_found")
	e.Do("GET", "/orgs/"+sub.ID+"/connections/"+foreign["id"].(string), e.AdminKey, nil).Expect(200)
	var subList []app.Connection
	e.Do("GET", "/orgs/c/connections", subKey, nil).Expect(200).JSON(&subList)
	if len(subList) != 1 || subList[0].ID != foreign["id"] {
		t.Fatalf("sub list %+v", subList)
	}

	// Permissions: connections are ADMIN's unless a role says otherwise.
	reader := e.RoleKey(e.Org.ID, "connections:read")
	e.Do("GET", "/orgs/c/connections/"+b["id"].(string), reader, nil).Expect(200)
	e.Do("POST", "/orgs/c/connections", reader, map[string]any{"type": "MCP", "name": "x"}).ExpectError(403, "permission_denied")
	e.Do("DELETE", "/orgs/c/connections/"+b["id"].(string), reader, nil).ExpectError(403, "permission_denied")
	member := e.Key(e.AdminKey, e.Org.ID, e.Member(e.AdminKey, e.Org.ID, "Plain Member", app.RoleMember).ID)
	e.Do("POST", "/orgs/c/connections", member, map[string]any{"type": "MCP", "name": "x"}).ExpectError(403, "permission_denied")
	none := e.RoleKey(e.Org.ID, "contacts:read")
	e.Do("GET", "/orgs/c/connections", none, nil).ExpectError(403, "permission_denied")

	// Delete.
	e.Do("DELETE", "/orgs/c/connections/"+a["id"].(string), e.AdminKey, nil).Expect(204)
	e.Do("GET", "/orgs/c/connections/"+a["id"].(string), e.AdminKey, nil).ExpectError(404, "not_found")
	e.Do("DELETE", "/orgs/c/connections/"+a["id"].(string), e.AdminKey, nil).ExpectError(404, "not_found")
	e.Do("GET", "/orgs/c/connections", e.AdminKey, nil).Expect(200).JSON(&all)
	if len(all) != 2 {
		t.Fatalf("after delete %+v", all)
	}
	e.Do("GET", "/orgs/c/connections/conn_doesnotexist00000000", e.AdminKey, nil).ExpectError(404, "not_found")
}

func TestConnectionsListRejectsUnknownType(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	e.DoInvalid("GET", "/orgs/c/connections?type=NOPE", e.AdminKey, nil).ExpectError(400, "invalid_argument", "type")
	e.Do("GET", "/orgs/c/connections?type=OAUTH", e.AdminKey, nil).Expect(200)
}
