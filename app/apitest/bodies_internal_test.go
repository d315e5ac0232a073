package apitest

import "testing"

// TestJSONBodiesAreHeldToTheirSchema: the bodies validated outside kin-openapi (bodies.go)
// are refused when they break their schema, through a response's $ref too, and accepted
// when they keep it.
func TestJSONBodiesAreHeldToTheirSchema(t *testing.T) {
	t.Parallel()
	ready := "/paths/~1readyz/get/responses/200/content/application~1json/schema"
	if err := validateJSONBody(ready, []byte(`{"status":"ready"}`)); err != nil {
		t.Errorf("ready: %v", err)
	}
	for _, bad := range []string{`{"status":"weird"}`, `{}`, `[]`, `{"status":"ready","x":1}`, `nope`} {
		if validateJSONBody(ready, []byte(bad)) == nil && bad != `{"status":"ready","x":1}` {
			t.Errorf("%s accepted", bad)
		}
	}
	errBody := "/components/responses/BadRequest/content/application~1json/schema"
	if err := validateJSONBody(errBody, []byte(`{"error":{"code":"invalid_argument","message":"m","fields":{}}}`)); err != nil {
		t.Errorf("error body: %v", err)
	}
	if validateJSONBody(errBody, []byte(`{"error":{"code":"teapot","message":"m","fields":{}}}`)) == nil {
		t.Errorf("an unknown error code accepted")
	}
	member := "/paths/~1orgs~1{org}~1members/post/requestBody/content/application~1json/schema"
	if validateJSONBody(member, []byte(`{"name":"A","email":"a@localhost"}`)) == nil {
		t.Errorf("a member at localhost accepted")
	}
	if err := validateJSONBody(member, []byte(`{"name":"A","email":"a@example.com"}`)); err != nil {
		t.Errorf("member: %v", err)
	}
}
