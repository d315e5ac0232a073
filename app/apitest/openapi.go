package apitest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"wsapi/app/api"
)

func init() {
	// Bodies the API answers besides JSON: read as text or bytes so their schema (a string)
	// is checked instead of the validator refusing an unknown media type.
	for _, ct := range []string{"text/html", "text/event-stream"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.PlainBodyDecoder)
	}
	for _, ct := range []string{"image/gif", "audio/mpeg", "audio/wav", "audio/ogg", "audio/webm"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.FileBodyDecoder)
	}
}

// OpenAPI checks requests and answers against app/api/openapi.json with kin-openapi's
// openapi3filter: an answer that breaks its documented schema, status or media type is a
// test error, and so is a request the document does not describe.
type OpenAPI struct {
	t       testing.TB
	router  routers.Router
	mu      sync.Mutex
	invalid bool           // the next request is meant to break the document (ExpectInvalid)
	seen    map[string]int // "METHOD /path status" checked, for Report
}

// OpenAPI loads the document with its server set to this test server's address, so the
// router matches requests sent to it.
func (e *Env) OpenAPI() *OpenAPI {
	e.T.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(api.OpenAPIDocument)
	if err != nil {
		e.T.Fatalf("apitest: load openapi.json: %v", err)
	}
	doc.Servers = openapi3.Servers{{URL: e.Server.URL}}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		e.T.Fatalf("apitest: openapi.json does not validate: %v", err)
	}
	return &OpenAPI{t: e.T, router: router, seen: map[string]int{}}
}

// CheckOpenAPI makes every later Do and Send of e validate its request and answer against
// the document, so a test gets the documented shape of each answer checked without spelling
// it out. Redirects are then answered, not followed.
func (e *Env) CheckOpenAPI() *OpenAPI {
	e.checked = e.OpenAPI()
	return e.checked
}

// ExpectInvalid says the next request breaks the document on purpose (a 400 test): its
// validation must then fail, proving the document states the rule the server enforces.
func (v *OpenAPI) ExpectInvalid() {
	v.mu.Lock()
	v.invalid = true
	v.mu.Unlock()
}

// Client is an HTTP client whose every exchange is checked.
func (v *OpenAPI) Client() *http.Client {
	return &http.Client{Transport: v, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
}

// RoundTrip sends req and checks it and its answer against the document.
func (v *OpenAPI) RoundTrip(req *http.Request) (*http.Response, error) {
	v.mu.Lock()
	wantInvalid := v.invalid
	v.invalid = false
	v.mu.Unlock()
	body, err := readAll(req.Body)
	if err != nil {
		return nil, err
	}
	where := req.Method + " " + req.URL.Path
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		v.t.Errorf("openapi: %s: no documented operation: %v", where, err)
		req.Body = io.NopCloser(bytes.NewReader(body))
		return http.DefaultTransport.RoundTrip(req)
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true}}
	req.Body = io.NopCloser(bytes.NewReader(body))
	reqErr := openapi3filter.ValidateRequest(req.Context(), in)
	switch {
	case wantInvalid && reqErr == nil:
		v.t.Errorf("openapi: %s: the document accepts a request sent as invalid: %s", where, body)
	case !wantInvalid && reqErr != nil:
		v.t.Errorf("openapi: %s: request breaks the document: %v", where, reqErr)
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	v.checkResponse(in, route.Path, res)
	return res, nil
}

// checkResponse validates the answer's status, headers and body; a stream's body is left
// unread (it does not end) and only its status and media type are checked.
func (v *OpenAPI) checkResponse(in *openapi3filter.RequestValidationInput, path string, res *http.Response) {
	opts := &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.StatusCode,
		Header: res.Header, Options: opts}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		opts.ExcludeResponseBody = true
	} else {
		b, err := readAll(res.Body)
		if err != nil {
			v.t.Errorf("openapi: %s %s: reading the answer: %v", in.Request.Method, path, err)
		}
		res.Body = io.NopCloser(bytes.NewReader(b))
		out.SetBodyBytes(b)
	}
	key := fmt.Sprintf("%s %s %d", in.Request.Method, path, res.StatusCode)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		v.t.Errorf("openapi: %s: answer breaks the document: %v", key, err)
	}
	v.mu.Lock()
	v.seen[key]++
	v.mu.Unlock()
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
