package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"wsapi/app/api"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// TestOpenAPIDocumentValidates loads the document with kin-openapi (the loader oapi-codegen
// uses) and validates it, every request body's example included.
func TestOpenAPIDocumentValidates(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPIDocument)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if err := doc.Validate(context.Background(), openapi3.EnableExamplesValidation()); err != nil {
		t.Fatalf("openapi.json does not validate: %v", err)
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.RequestBody == nil {
				continue
			}
			for ct, mt := range op.RequestBody.Value.Content {
				if mt.Example == nil && len(mt.Examples) == 0 {
					t.Errorf("%s %s: request body %s has no example", method, path, ct)
				}
			}
		}
	}
}

// TestOpenAPIServedServers: the served document names http.public_url (without its trailing
// slash) as its only server, and is otherwise the document as kept.
func TestOpenAPIServedServers(t *testing.T) {
	e := apitest.New(t, func(c *cli.Config) { c.HTTP.PublicURL = "https://api.acme.example/" })
	served := e.Do("GET", "/openapi.json", "", nil).Expect(200).Body
	var got, kept map[string]json.RawMessage
	if err := json.Unmarshal(served, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(api.OpenAPIDocument, &kept); err != nil {
		t.Fatal(err)
	}
	var servers []struct{ URL string }
	if err := json.Unmarshal(got["servers"], &servers); err != nil || len(servers) != 1 || servers[0].URL != "https://api.acme.example" {
		t.Fatalf("servers %s, want the one public URL https://api.acme.example", got["servers"])
	}
	for k, v := range kept {
		if k != "servers" && !bytes.Equal(v, got[k]) {
			t.Errorf("served document differs from openapi.json at %q", k)
		}
	}
	if len(got) != len(kept) {
		t.Errorf("served document has %d top-level keys, openapi.json %d", len(got), len(kept))
	}
}
