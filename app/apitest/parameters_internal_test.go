package apitest

import (
	"encoding/json"
	"strings"
	"testing"

	"wsapi/app/api"
)

// TestParameterSchemasAreOpenAPI30 holds the schemas of parameters and response headers to
// what OpenAPI 3.0 and JSON Schema 2020-12 read alike, because the harness has kin check them
// as 3.0 (document, in openapi.go): a keyword of 3.1 alone there would go unchecked.
func TestParameterSchemasAreOpenAPI30(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(api.OpenAPIDocument, &doc); err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{"type": true, "enum": true, "default": true, "minimum": true, "maximum": true,
		"minLength": true, "maxLength": true, "pattern": true, "format": true, "examples": true, "description": true}
	checked := 0
	check := func(where string, schema any) {
		m, _ := resolve(doc, schema).(map[string]any)
		for k, v := range m {
			if !allowed[k] {
				t.Errorf("%s: schema keyword %q is not read alike by OpenAPI 3.0", where, k)
			}
			if _, ok := v.(string); k == "type" && !ok {
				t.Errorf("%s: type %v must be one name", where, v)
			}
		}
		checked++
	}
	paths, _ := doc["paths"].(map[string]any)
	for path, item := range paths {
		item, _ := item.(map[string]any)
		for method, op := range item {
			op, ok := op.(map[string]any)
			if !ok {
				continue
			}
			params, _ := op["parameters"].([]any)
			shared, _ := item["parameters"].([]any)
			for _, p := range append(params, shared...) {
				p, _ := resolve(doc, p).(map[string]any)
				check(method+" "+path+" parameter "+stringOf(p["name"]), p["schema"])
			}
			responses, _ := op["responses"].(map[string]any)
			for code, r := range responses {
				r, _ := resolve(doc, r).(map[string]any)
				headers, _ := r["headers"].(map[string]any)
				for name, h := range headers {
					h, _ := resolve(doc, h).(map[string]any)
					check(method+" "+path+" "+code+" header "+name, h["schema"])
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d parameter and header schemas found: is the walk still right?", checked)
	}
}

// resolve follows a local $ref of the document.
func resolve(doc map[string]any, v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	ref, ok := m["$ref"].(string)
	if !ok {
		return v
	}
	var at any = doc
	for _, token := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		token = strings.ReplaceAll(strings.ReplaceAll(token, "~1", "/"), "~0", "~")
		next, _ := at.(map[string]any)
		at = next[token]
	}
	return resolve(doc, at)
}

func stringOf(v any) string { s, _ := v.(string); return s }
