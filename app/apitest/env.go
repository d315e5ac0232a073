// Package apitest is the end-to-end test harness: a real server (the same wiring as
// `app serve`) over a real SQLite file in t.TempDir(), with helpers to make organizations,
// members and keys and to call the API over HTTP.
package apitest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/cli"
)

// Env is one running server and what a test needs to drive it.
type Env struct {
	T       testing.TB
	Runtime *cli.Runtime
	Server  *httptest.Server
	Clock   *app.ManualClock
	// AdminKey is an ADMIN key of Org, the bootstrap organization.
	AdminKey string
	Org      app.Org
	Owner    app.Member
	// checked validates every exchange of Do, Send, streams and Server.Client() against
	// openapi.json (openapi.go); client is the client Send uses, through it.
	checked *OpenAPI
	client  *http.Client
	// transport is the server's own client transport, which checked sends through.
	transport http.RoundTripper
}

// Start is the default moment of a test's manual clock.
var Start = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// New starts a server; configure may change the configuration before it is built.
func New(t testing.TB, configure ...func(*cli.Config)) *Env {
	t.Helper()
	return NewPrepared(t, nil, configure...)
}

// NewPrepared is New with prepare run on the wired runtime before its workers start, so a
// test can swap a collaborator (a sender that panics) without racing the workers.
func NewPrepared(t testing.TB, prepare func(*cli.Runtime), configure ...func(*cli.Config)) *Env {
	t.Helper()
	var w io.Writer
	if os.Getenv("APITEST_LOG") != "" {
		w = os.Stderr
	}
	return NewLogged(t, w, prepare, configure...)
}

// NewLogged is NewPrepared with the server's log written as text to w (nil: discarded), for
// tests of what the log says.
func NewLogged(t testing.TB, w io.Writer, prepare func(*cli.Runtime), configure ...func(*cli.Config)) *Env {
	t.Helper()
	return newEnv(t, w, nil, prepare, configure...)
}

// NewEdited is New with edit changing the service's collaborators before the service is made
// (a mailer or a resolver that panics, a logger to read), and the log written to w (nil:
// discarded).
func NewEdited(t testing.TB, w io.Writer, edit func(*app.Deps), configure ...func(*cli.Config)) *Env {
	t.Helper()
	return newEnv(t, w, edit, nil, configure...)
}

func newEnv(t testing.TB, w io.Writer, editDeps func(*app.Deps), prepare func(*cli.Runtime), configure ...func(*cli.Config)) *Env {
	t.Helper()
	cfg := cli.DefaultConfig()
	cfg.DB.Path = filepath.Join(t.TempDir(), "test.db")
	cfg.Secrets.KeyFile = filepath.Join(filepath.Dir(cfg.DB.Path), "app.key")
	// Receivers listen on loopback with httptest's certificate; tests that check the address
	// rules turn AllowPrivateTargets off again.
	cfg.Webhooks.AllowPrivateTargets = true
	cfg.Webhooks.CAFile = testCAFile(t)
	// The webhook, e-mail and run workers keep their production tick: commits that queue work
	// nudge them, so does the start of the runtime (work a crashed process left: the restart
	// tests of app/mail used to wait for the e-mail sender's first tick, which is why it ticked
	// at 50 ms here), and so does every move of the manual clock (below), which is what makes
	// retries and lapsed leases due. Nothing nudges the knowledge processor yet, so it ticks
	// faster than in production, though not every 10 ms: each idle tick reads the database,
	// and at 10 ms the ticks of every test's processor were a fifth of the CPU of the e-mail
	// tests under -race.
	cfg.Knowledge.Tick = 50 * time.Millisecond
	cfg.Email.CAFile = cfg.Webhooks.CAFile
	// Tests never reach Meta: a WhatsApp integration's set-up check fails at once on a closed
	// local port, unless the test points the channel at its whatsapptest server.
	cfg.Channels.WhatsApp.APIURL = "http://127.0.0.1:1/v21.0"
	// Tests never reach Telegram: a bot's set-up check fails at once on a closed local port,
	// unless the test points the channel at its telegramtest server.
	cfg.Channels.Telegram.APIURL = "http://127.0.0.1:1"
	for _, f := range configure {
		f(&cfg)
	}
	if err := placeTemplate(cfg.DB.Path); err != nil {
		t.Fatalf("apitest: %v", err)
	}
	clock := app.NewManualClock(Start)
	log := slog.New(slog.DiscardHandler)
	if w != nil {
		log = slog.New(slog.NewTextHandler(w, nil))
	}
	opts := cli.Options{Clock: clock, Log: log, Resolver: Resolver, EditDeps: func(d *app.Deps) {
		d.DKIMKeys = DKIMKeys()
		if editDeps != nil {
			editDeps(d)
		}
	}}
	rt, err := cli.Build(context.Background(), cfg, opts)
	if err != nil {
		t.Fatalf("apitest: build: %v", err)
	}
	e := &Env{T: t, Runtime: rt, Clock: clock}
	clock.OnMove(rt.NudgeWorkers)
	nk, ok, err := rt.Service.Bootstrap(context.Background(), "test admin")
	if err == nil && !ok { // an existing database (restart tests): a fresh key for its owner
		nk, err = rt.Service.CreateKeyAsOperator(context.Background(), "", "", "test admin")
	}
	if err != nil {
		t.Fatalf("apitest: bootstrap: %v", err)
	}
	e.AdminKey = nk.Token
	e.Org, _ = rt.Service.GetOrg(context.Background(), nk.OrgID)
	e.Owner, _ = rt.Service.GetMember(context.Background(), nk.OrgID, nk.MemberID)
	if prepare != nil {
		prepare(rt)
	}
	e.Server = httptest.NewServer(rt.Handler)
	e.checkEverything()
	// The SMTP listener is bound before the workers start, as serve does: Start would bind it
	// on a goroutine of its own, racing a test that reads its address.
	if err := rt.OpenInbound(); err != nil {
		t.Fatalf("apitest: %v", err)
	}
	rt.Start()
	t.Cleanup(func() {
		rt.Hub.Close() // open streams end, or the server's Close would wait on them
		e.Server.Close()
		rt.Close()
	})
	return e
}

// checkEverything makes every exchange of the test go through the document's validator:
// Do and Send, and whatever uses the server's own client (streams, raw requests). Every
// test is then a conformance test of openapi.json; a request that breaks the document on
// purpose says so (Invalid, DoInvalid).
func (e *Env) checkEverything() {
	if e.client != nil {
		return
	}
	srv := e.Server.Client()
	e.transport = srv.Transport
	e.checked = e.OpenAPI()
	e.client = e.checked.Client()
	srv.Transport = e.checked
}

// checkedClient is the client of Send: an Env that a test put together itself (not New)
// gets its validator on its first request.
func (e *Env) checkedClient() *http.Client {
	e.checkEverything()
	return e.client
}

// Response is a finished API call.
type Response struct {
	T      testing.TB
	Status int
	Header http.Header
	Body   []byte
}

// Do calls the API. body may be nil, a string or []byte (sent as is), or a value (sent as
// JSON); key may be "" for no credential.
func (e *Env) Do(method, path, key string, body any) *Response {
	e.T.Helper()
	return e.Send(e.Request(method, path, key, body))
}

// Request builds the request Do sends, for a test that adds headers first.
func (e *Env) Request(method, path, key string, body any) *http.Request {
	e.T.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			e.T.Fatalf("apitest: marshal: %v", err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, e.Server.URL+path, rd)
	if err != nil {
		e.T.Fatalf("apitest: request: %v", err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

// Send runs a prepared request.
func (e *Env) Send(req *http.Request) *Response {
	e.T.Helper()
	res, err := e.checkedClient().Do(req)
	if err != nil {
		e.T.Fatalf("apitest: %s %s: %v", req.Method, req.URL.Path, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		e.T.Fatalf("apitest: read body: %v", err)
	}
	return &Response{T: e.T, Status: res.StatusCode, Header: res.Header, Body: data}
}

// Expect fails the test unless the status is want; it returns the response for chaining.
func (r *Response) Expect(want int) *Response {
	r.T.Helper()
	if r.Status != want {
		r.T.Fatalf("status %d, want %d; body: %s", r.Status, want, r.Body)
	}
	return r
}

// JSON decodes the body into v.
func (r *Response) JSON(v any) {
	r.T.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		r.T.Fatalf("decode %s: %v", r.Body, err)
	}
}

// Gunzipped is the body inflated, for a request that set Accept-Encoding itself (the
// transport then leaves the body as sent); the test fails unless it was sent gzipped.
func (r *Response) Gunzipped() []byte {
	r.T.Helper()
	if enc := r.Header.Get("Content-Encoding"); enc != "gzip" {
		r.T.Fatalf("Content-Encoding %q, want gzip", enc)
	}
	zr, err := gzip.NewReader(bytes.NewReader(r.Body))
	if err != nil {
		r.T.Fatalf("gzip: %v", err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		r.T.Fatalf("gzip: %v", err)
	}
	return b
}

// Map decodes the body as a JSON object.
func (r *Response) Map() map[string]any {
	r.T.Helper()
	var m map[string]any
	r.JSON(&m)
	return m
}

// List decodes the body as a JSON array of objects.
func (r *Response) List() []map[string]any {
	r.T.Helper()
	var l []map[string]any
	r.JSON(&l)
	return l
}

// ErrorCode is error.code of an error body.
func (r *Response) ErrorCode() string {
	r.T.Helper()
	var b struct {
		Error struct {
			Code   string            `json:"code"`
			Fields map[string]string `json:"fields"`
		} `json:"error"`
	}
	r.JSON(&b)
	return b.Error.Code
}

// ErrorFields is error.fields of an error body.
func (r *Response) ErrorFields() map[string]string {
	r.T.Helper()
	var b struct {
		Error struct {
			Fields map[string]string `json:"fields"`
		} `json:"error"`
	}
	r.JSON(&b)
	return b.Error.Fields
}

// ExpectError checks status, error code and, when given, that fields names field.
func (r *Response) ExpectError(status int, code string, field ...string) *Response {
	r.T.Helper()
	r.Expect(status)
	if got := r.ErrorCode(); got != code {
		r.T.Fatalf("error code %q, want %q; body: %s", got, code, r.Body)
	}
	fields := r.ErrorFields()
	for _, f := range field {
		if _, ok := fields[f]; !ok {
			r.T.Fatalf("error fields %v do not name %q", fields, f)
		}
	}
	return r
}

// SubOrg creates a sub-organization of parent through the API with key.
func (e *Env) SubOrg(key, parent, name string) app.Org {
	e.T.Helper()
	var o app.Org
	e.Do("POST", "/orgs/"+parent+"/sub-orgs", key, map[string]any{"name": name}).Expect(201).JSON(&o)
	return o
}

// Member creates a member of org with role through the API with key.
func (e *Env) Member(key, org, name, role string) app.Member {
	e.T.Helper()
	var m app.Member
	email := strings.ToLower(strings.ReplaceAll(name, " ", ".")) + "@example.com"
	e.Do("POST", "/orgs/"+org+"/members", key, map[string]any{"name": name, "email": email, "role": role}).Expect(201).JSON(&m)
	return m
}

// Key creates a key acting as member in org through the API with key, and answers its token.
func (e *Env) Key(key, org, memberID string) string {
	e.T.Helper()
	var nk app.NewKey
	e.Do("POST", "/orgs/"+org+"/keys", key, map[string]any{"name": "test key", "member_id": memberID}).Expect(201).JSON(&nk)
	return nk.Token
}

// OrgWithAdmin makes a sub-organization of the bootstrap org with its own ADMIN key.
func (e *Env) OrgWithAdmin(name string) (app.Org, string) {
	e.T.Helper()
	o := e.SubOrg(e.AdminKey, e.Org.ID, name)
	m := e.Member(e.AdminKey, o.ID, name+" admin", app.RoleAdmin)
	return o, e.Key(e.AdminKey, o.ID, m.ID)
}

// TenantWithAdmin makes another top-level organization (a tenant of its own, as `app orgs
// create` does) with its owner's ADMIN key: work is shared fairly between tenants, while a
// tenant's sub-organizations (OrgWithAdmin) share its one share.
func (e *Env) TenantWithAdmin(name string) (app.Org, string) {
	e.T.Helper()
	ctx := context.Background()
	o, err := e.Runtime.Service.CreateOrg(ctx, app.OrgInput{Name: name}, "")
	if err != nil {
		e.T.Fatalf("apitest: tenant: %v", err)
	}
	nk, err := e.Runtime.Service.CreateKeyAsOperator(ctx, o.ID, "", name+" admin")
	if err != nil {
		e.T.Fatalf("apitest: tenant key: %v", err)
	}
	return o, nk.Token
}

// RoleKey makes a custom role with perms in org, a member holding it, and its key.
func (e *Env) RoleKey(org string, perms ...string) string {
	e.T.Helper()
	var role app.Role
	e.Do("POST", "/orgs/"+org+"/roles", e.AdminKey, map[string]any{"name": "role " + app.RandomBase62(6), "permissions": perms}).Expect(201).JSON(&role)
	m := e.Member(e.AdminKey, org, "member "+app.RandomBase62(6), role.ID)
	return e.Key(e.AdminKey, org, m.ID)
}

// Webhook creates an endpoint through the API and answers it with its full secret.
func (e *Env) Webhook(key, org, url string, events ...string) app.Webhook {
	e.T.Helper()
	var w app.Webhook
	e.Do("POST", "/orgs/"+org+"/webhooks", key, map[string]any{"name": "hook", "url": url, "events": events}).Expect(201).JSON(&w)
	return w
}

// Emit writes an event into the outbox as a feature would, in its own transaction. A nil
// data is sent as {}: every event of the product carries an object, and the document says
// so (a null would break the answers that show the event, such as deliveries).
func (e *Env) Emit(org, typ string, data any) app.Event {
	e.T.Helper()
	if data == nil {
		data = map[string]any{}
	}
	var evt app.Event
	svc := e.Runtime.Service
	err := svc.Store().Write(context.Background(), func(tx app.Tx) (err error) {
		evt, err = svc.Emit(tx, org, typ, data)
		return err
	})
	if err != nil {
		e.T.Fatalf("apitest: emit: %v", err)
	}
	return evt
}

// Deliveries lists an endpoint's deliveries through the API.
func (e *Env) Deliveries(key, org, webhookID, query string) []app.Delivery {
	e.T.Helper()
	var ds []app.Delivery
	e.Do("GET", "/orgs/"+org+"/webhooks/"+webhookID+"/deliveries"+query, key, nil).Expect(200).JSON(&ds)
	return ds
}

// WaitIdle waits until the server's workers have nothing due, claimed or under way
// (Runtime.WaitIdle): what a test asserts did not happen would have happened by then. It
// fails the test after 10 s.
func (e *Env) WaitIdle() {
	e.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.Runtime.WaitIdle(ctx); err != nil {
		e.T.Fatalf("apitest: the workers did not fall idle: %v", err)
	}
}

// Eventually polls cond every 5 ms until it holds, failing the test after timeout.
func (e *Env) Eventually(timeout time.Duration, what string, cond func() bool) {
	e.T.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			e.T.Fatalf("apitest: %s did not happen within %s", what, timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
