package apitest

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/klauspost/compress/zstd"

	"wsapi/app/api"
)

func init() {
	// Bodies the API answers besides JSON: read as text or bytes so their schema (a string)
	// is checked instead of the validator refusing an unknown media type.
	for _, ct := range []string{"text/html", "text/event-stream", "text/javascript", "text/css"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.PlainBodyDecoder)
	}
	for _, ct := range []string{"image/gif", "image/jpeg", "image/png", "application/pdf", "application/octet-stream",
		"audio/mpeg", "audio/wav", "audio/ogg", "audio/webm"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.FileBodyDecoder)
	}
}

// OpenAPI checks requests and answers against app/api/openapi.json with kin-openapi's
// openapi3filter: an answer that breaks its documented schema, status or media type is a
// test error, and so is a request the document does not describe. Every Env checks every
// exchange of its test by default (New); a request that breaks the document on purpose says
// so with Invalid (or Env.DoInvalid).
type OpenAPI struct {
	t     testing.TB
	inner http.RoundTripper // the transport that reaches the server
	mu    sync.Mutex
	seen  map[string]int // "METHOD /path status" checked, for Checked
}

// document is openapi.json loaded and validated once per test binary, routed without its
// servers (the router then matches a request's path alone, whatever test server it went to).
// Its examples are not checked against their schemas here: that compiled a JSON Schema per
// example, 0.4 s of CPU in each of the dozen test binaries that use the harness (more under
// -race), for what TestOpenAPIDocumentValidates (app/api) checks once.
var document = sync.OnceValues(func() (routers.Router, error) {
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPIDocument)
	if err != nil {
		return nil, fmt.Errorf("load openapi.json: %w", err)
	}
	doc.Servers = nil
	router, err := legacy.NewRouter(doc, openapi3.DisableExamplesValidation())
	if err != nil {
		return nil, fmt.Errorf("openapi.json does not validate: %w", err)
	}
	// What kin validates itself is left once JSON bodies are checked here (bodies.go): the
	// parameters, the headers and the few bodies that are not JSON. For a 3.1 document kin
	// compiles a JSON Schema validator for every value it checks, which was 9% of app/api's
	// test CPU for schemas that JSON Schema 2020-12 and OpenAPI 3.0 read alike (a type, an
	// enum, bounds, a format: TestParameterSchemasAreOpenAPI30 keeps them so). Read as 3.0,
	// kin checks them with its own validator.
	doc.OpenAPI = "3.0.3"
	return router, nil
})

// OpenAPI is a fresh validator of the document for this test server, counting its own
// exchanges (Checked), for a client of its own (Client).
func (e *Env) OpenAPI() *OpenAPI {
	e.T.Helper()
	if _, err := document(); err != nil {
		e.T.Fatalf("apitest: %v", err)
	}
	return &OpenAPI{t: e.T, inner: e.transport, seen: map[string]int{}}
}

// Checker is the validator every Do, Send and stream of e goes through.
func (e *Env) Checker() *OpenAPI { return e.checked }

// invalidKey marks a request's context: the request breaks the document on purpose.
type invalidKey struct{}

// Invalid marks req as one that may break the document on purpose (a test of how the
// server refuses malformed input: bad JSON, a wrong media type, a value outside its schema,
// a route or method the document does not have, a CORS preflight). Its request is not held
// to the document; its answer still is when the route is documented, and when the document
// refuses the request the server must refuse it too (a 4xx), so the two state one rule.
func Invalid(req *http.Request) *http.Request {
	return req.WithContext(InvalidContext(req.Context()))
}

// InvalidContext is ctx for a request that may break the document on purpose (Invalid), for
// clients that take a context rather than a request (a generated client).
func InvalidContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, invalidKey{}, true)
}

// Unchecked marks req as one whose body is streamed and never whole (a test of a client that
// stops sending): the checker would wait for the whole body before sending it, so the
// request goes out as it is and neither it nor its answer is checked.
func Unchecked(req *http.Request) *http.Request {
	return req.WithContext(context.WithValue(req.Context(), uncheckedKey{}, true))
}

type uncheckedKey struct{}

// DoInvalid is Do of a request that breaks the document on purpose (Invalid).
func (e *Env) DoInvalid(method, path, key string, body any) *Response {
	e.T.Helper()
	return e.Send(Invalid(e.Request(method, path, key, body)))
}

// Client is an HTTP client whose every exchange is checked; redirects are answered, not
// followed.
func (v *OpenAPI) Client() *http.Client {
	return &http.Client{Transport: v, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
}

// RoundTrip sends req and checks it and its answer against the document.
func (v *OpenAPI) RoundTrip(req *http.Request) (*http.Response, error) {
	if unchecked, _ := req.Context().Value(uncheckedKey{}).(bool); unchecked {
		return v.inner.RoundTrip(req)
	}
	wantInvalid, _ := req.Context().Value(invalidKey{}).(bool)
	body, err := readAll(req.Body)
	if err != nil {
		return nil, err
	}
	send := func() (*http.Response, error) {
		req.Body = nil
		if body != nil {
			req.Body = io.NopCloser(bytes.NewReader(body))
		}
		return v.inner.RoundTrip(req)
	}
	where := req.Method + " " + req.URL.Path + callSite()
	router, _ := document()
	route, params, err := router.FindRoute(req)
	if err != nil {
		if !wantInvalid {
			v.t.Errorf("openapi: %s: no documented operation: %v", where, err)
		}
		return send()
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}}
	req.Body = io.NopCloser(bytes.NewReader(body))
	jsonAt := ""
	if len(body) > 0 && isJSON(req.Header.Get("Content-Type")) {
		jsonAt = requestBodyPointer(route.Path, req.Method, route.Operation)
	}
	in.Options.ExcludeRequestBody = jsonAt != "" // validated below, by a schema compiled once (bodies.go)
	reqErr := openapi3filter.ValidateRequest(req.Context(), in)
	if jsonAt != "" {
		if err := validateJSONBody(jsonAt, body); err != nil {
			reqErr = errors.Join(reqErr, fmt.Errorf("request body: %w", err))
		}
	}
	if !wantInvalid && reqErr != nil {
		v.t.Errorf("openapi: %s: request breaks the document: %v", where, reqErr)
	}
	res, err := send()
	if err != nil {
		return nil, err
	}
	if wantInvalid && reqErr != nil && res.StatusCode < 400 {
		// The document refuses the request: the server must too.
		v.t.Errorf("openapi: %s: the server answered %d to a request the document refuses: %v", where, res.StatusCode, reqErr)
	}
	v.checkResponse(in, route.Path, where, res)
	return res, nil
}

// CloseIdleConnections closes the idle connections of the transport underneath, so a test
// that drops the server's connections can start afresh (http.Client.CloseIdleConnections).
func (v *OpenAPI) CloseIdleConnections() {
	if c, ok := v.inner.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// callSite names the test line that sent the request (the first frame in a _test.go file),
// so a report says which call to fix or to mark Invalid.
func callSite() string {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	for {
		f, more := frames.Next()
		if strings.HasSuffix(f.File, "_test.go") {
			return fmt.Sprintf(" (%s:%d)", filepath.Base(f.File), f.Line)
		}
		if !more {
			return ""
		}
	}
}

// checkResponse validates the answer's status, headers and body (inflated when the server
// compressed it); a stream's body is left unread (it does not end) and only its status and
// media type are checked.
func (v *OpenAPI) checkResponse(in *openapi3filter.RequestValidationInput, path, where string, res *http.Response) {
	opts := &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.StatusCode,
		Header: res.Header, Options: opts}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		opts.ExcludeResponseBody = true
	} else {
		b, err := readAll(res.Body)
		if err != nil {
			v.t.Errorf("openapi: %s: reading the answer: %v", where, err)
		}
		res.Body = io.NopCloser(bytes.NewReader(b))
		plain, err := inflate(res.Header.Get("Content-Encoding"), b)
		if err != nil {
			v.t.Errorf("openapi: %s: inflating the answer: %v", where, err)
		}
		out.SetBodyBytes(plain)
		if isJSON(res.Header.Get("Content-Type")) {
			if at := responseBodyPointer(path, in.Request.Method, in.Route.Operation, res.StatusCode); at != "" {
				opts.ExcludeResponseBody = true // validated here, by a schema compiled once (bodies.go)
				if err := validateJSONBody(at, plain); err != nil {
					v.t.Errorf("openapi: %s %d: answer breaks the document: body: %v", where, res.StatusCode, err)
				}
			}
		}
	}
	key := fmt.Sprintf("%s %s %d", in.Request.Method, path, res.StatusCode)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		v.t.Errorf("openapi: %s %d: answer breaks the document: %v", where, res.StatusCode, err)
	}
	v.mu.Lock()
	v.seen[key]++
	v.mu.Unlock()
}

// inflate answers a body as the server encoded it before compression (a client that sets
// Accept-Encoding itself gets the compressed bytes).
func inflate(encoding string, b []byte) ([]byte, error) {
	switch encoding {
	case "":
		return b, nil
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		return io.ReadAll(zr)
	case "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		return io.ReadAll(zr)
	}
	return nil, fmt.Errorf("unknown Content-Encoding %q", encoding)
}

// Checked lists the "METHOD /path status" exchanges checked so far, sorted.
func (v *OpenAPI) Checked() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make([]string, 0, len(v.seen))
	for k := range v.seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func readAll(r io.ReadCloser) ([]byte, error) {
	if r == nil {
		return nil, nil
	}
	defer r.Close()
	return io.ReadAll(r)
}
