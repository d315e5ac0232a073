package api_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"wsapi/app/api"
	"wsapi/app/apitest"
)

// httpMethods are the operation keys of an OpenAPI path item.
var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// servedDocument fetches GET /openapi.json from a running server, without a credential.
func servedDocument(t *testing.T) map[string]any {
	t.Helper()
	e := apitest.New(t)
	res := e.Do("GET", "/openapi.json", "", nil).Expect(200)
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	var doc map[string]any
	if err := json.Unmarshal(res.Body, &doc); err != nil {
		t.Fatalf("GET /openapi.json is not JSON: %v", err)
	}
	if v, _ := doc["openapi"].(string); !strings.HasPrefix(v, "3.1") {
		t.Fatalf("openapi version %q, want 3.1.x", v)
	}
	return doc
}

// operations lists the document's operations keyed by "METHOD /path".
func operations(t *testing.T, doc map[string]any) map[string]map[string]any {
	t.Helper()
	paths, ok := doc["paths"].(map[string]any)
	if !ok {
		t.Fatalf("document has no paths object")
	}
	ops := map[string]map[string]any{}
	for path, item := range paths {
		pi, ok := item.(map[string]any)
		if !ok {
			t.Errorf("path %s is not an object", path)
			continue
		}
		for _, m := range httpMethods {
			if o, ok := pi[m].(map[string]any); ok {
				ops[strings.ToUpper(m)+" "+path] = o
			}
		}
	}
	return ops
}

var paramName = regexp.MustCompile(`\{[^}]*\}`)

func TestOpenAPI(t *testing.T) {
	doc := servedDocument(t)
	ops := operations(t, doc)
	keys := make([]string, 0, len(ops))
	for k := range ops {
		keys = append(keys, k)
	}
	sort.Strings(keys)

	t.Run("every registered route is documented and nothing else", func(t *testing.T) {
		registered := map[string]api.RouteInfo{}
		for _, r := range append(api.Routes(), api.MetricsRoute) {
			registered[r.Method+" "+r.Path] = r
		}
		// A route and an operation whose paths differ only in parameter names are reported
		// together, so a renamed parameter reads as one problem.
		shape := func(key string) string { return paramName.ReplaceAllString(key, "{}") }
		documentedShapes := map[string]string{}
		for k := range ops {
			documentedShapes[shape(k)] = k
		}
		var missing, extra []string
		for k := range registered {
			if _, ok := ops[k]; !ok {
				msg := k
				if d, ok := documentedShapes[shape(k)]; ok {
					msg += fmt.Sprintf(" (documented as %s: parameter names differ)", d)
				}
				missing = append(missing, msg)
			}
		}
		for k := range ops {
			if _, ok := registered[k]; !ok {
				extra = append(extra, k)
			}
		}
		sort.Strings(missing)
		sort.Strings(extra)
		for _, k := range missing {
			t.Errorf("registered route missing from openapi.json: %s", k)
		}
		for _, k := range extra {
			t.Errorf("documented route not registered in routes.go: %s", k)
		}
	})

	t.Run("access rules match the route table", func(t *testing.T) {
		for _, r := range append(api.Routes(), api.MetricsRoute) {
			key := r.Method + " " + r.Path
			o, ok := ops[key]
			if !ok {
				continue // reported above
			}
			perm, _ := o["x-permission"].(string)
			sec, hasSec := o["security"].([]any)
			if r.Public {
				if perm != "public" {
					t.Errorf("%s: x-permission %q, want \"public\"", key, perm)
				}
				if !hasSec || len(sec) != 0 {
					t.Errorf("%s: public route must have security: []", key)
				}
				continue
			}
			if perm != string(r.Permission) {
				t.Errorf("%s: x-permission %q, route table says %q", key, perm, r.Permission)
			}
			if hasSec && len(sec) == 0 {
				t.Errorf("%s: credential route documented with security: []", key)
			}
		}
	})

	t.Run("every operation has a response", func(t *testing.T) {
		for _, key := range keys {
			rs, _ := ops[key]["responses"].(map[string]any)
			if len(rs) == 0 {
				t.Errorf("%s: no responses", key)
			}
		}
	})

	t.Run("every path parameter is declared", func(t *testing.T) {
		paths := doc["paths"].(map[string]any)
		for _, key := range keys {
			o := ops[key]
			method, path, _ := strings.Cut(key, " ")
			declared := map[string]bool{}
			var params []any
			if pi, ok := paths[path].(map[string]any); ok {
				params, _ = pi["parameters"].([]any)
			}
			own, _ := o["parameters"].([]any)
			for _, p := range append(params, own...) {
				pm, _ := resolve(doc, p).(map[string]any)
				if pm["in"] == "path" {
					name, _ := pm["name"].(string)
					declared[name] = true
				}
			}
			for _, m := range paramName.FindAllString(path, -1) {
				if name := m[1 : len(m)-1]; !declared[name] {
					t.Errorf("%s %s: path parameter %q is not declared", method, path, name)
				}
			}
		}
	})

	t.Run("every $ref resolves", func(t *testing.T) {
		var walk func(at string, v any)
		walk = func(at string, v any) {
			switch x := v.(type) {
			case map[string]any:
				if r, ok := x["$ref"]; ok {
					s, _ := r.(string)
					if _, ok := pointer(doc, s); !ok {
						t.Errorf("%s: $ref %q does not resolve", at, r)
					}
				}
				for k, c := range x {
					walk(at+"/"+k, c)
				}
			case []any:
				for i, c := range x {
					walk(fmt.Sprintf("%s/%d", at, i), c)
				}
			}
		}
		walk("#", doc)
	})
}

// resolve follows a $ref (local only); anything else is answered as is.
func resolve(doc map[string]any, v any) any {
	for range 10 {
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		r, ok := m["$ref"].(string)
		if !ok {
			return v
		}
		if v, ok = pointer(doc, r); !ok {
			return nil
		}
	}
	return nil
}

// pointer evaluates a local JSON pointer reference such as "#/components/schemas/Error".
func pointer(doc map[string]any, ref string) (any, bool) {
	rest, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	var cur any = doc
	if rest == "" {
		return cur, true
	}
	if !strings.HasPrefix(rest, "/") {
		return nil, false
	}
	for _, tok := range strings.Split(rest[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[tok]; !ok {
			return nil, false
		}
	}
	return cur, true
}
