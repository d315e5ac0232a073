package apitest

import (
	"bytes"
	"fmt"
	"mime"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"wsapi/app/api"
)

// JSON bodies are validated here, not by kin-openapi: for an OpenAPI 3.1 document kin
// compiles a JSON Schema validator of the body's schema on every call, which was about a
// third of the CPU of app/api's tests once every exchange was checked. The schemas are the
// document's own, compiled once each (JSON Schema 2020-12, the dialect of OpenAPI 3.1, by the
// same library kin uses) and kept by their place in the document; kin still checks the
// statuses, headers, parameters and media types.

// bodySchemas compiles the schemas of openapi.json, by JSON pointer.
type bodySchemas struct {
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
}

const documentURL = "mem:///openapi.json"

var schemas = sync.OnceValues(func() (*bodySchemas, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(api.OpenAPIDocument))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(documentURL, doc); err != nil {
		return nil, err
	}
	return &bodySchemas{compiler: c, compiled: map[string]*jsonschema.Schema{}}, nil
})

// at answers the compiled schema at pointer (RFC 6901) in the document.
func (b *bodySchemas) at(pointer string) (*jsonschema.Schema, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.compiled[pointer]; ok {
		return s, nil
	}
	s, err := b.compiler.Compile(documentURL + "#" + pointer)
	if err != nil {
		return nil, err
	}
	b.compiled[pointer] = s
	return s, nil
}

// pointerEscape escapes one reference token of a JSON pointer.
func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// isJSON tells a JSON media type.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// validateJSONBody checks body against the schema at pointer.
func validateJSONBody(pointer string, body []byte) error {
	b, err := schemas()
	if err != nil {
		return err
	}
	s, err := b.at(pointer)
	if err != nil {
		return fmt.Errorf("schema at %s: %w", pointer, err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("body is not JSON: %w", err)
	}
	return s.Validate(v)
}

// requestBodyPointer is where the JSON schema of the operation's request body is, "" when
// it has none.
func requestBodyPointer(path, method string, op *openapi3.Operation) string {
	if op.RequestBody == nil || op.RequestBody.Value == nil || op.RequestBody.Value.Content.Get("application/json") == nil {
		return ""
	}
	return "/paths/" + pointerEscape(path) + "/" + strings.ToLower(method) + "/requestBody/content/application~1json/schema"
}

// responseBodyPointer is where the JSON schema of the answer with status is, "" when the
// operation lists no JSON body for it.
func responseBodyPointer(path, method string, op *openapi3.Operation, status int) string {
	code := fmt.Sprint(status)
	r := op.Responses.Value(code)
	if r == nil || r.Value == nil || r.Value.Content.Get("application/json") == nil {
		return ""
	}
	at := "/paths/" + pointerEscape(path) + "/" + strings.ToLower(method) + "/responses/" + code
	if r.Ref != "" {
		at = strings.TrimPrefix(r.Ref, "#")
	}
	return at + "/content/application~1json/schema"
}
