package api_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/api"
	"wsapi/app/apitest"
)

// TestIdempotencyReadsNoBodyOnABodilessRoute: a route that takes no body has none read to
// hash its Idempotency-Key. A request that declares 16 MiB and sends a few bytes is answered
// at once, before the body arrives (reading it would hold the request until the body's
// deadline, and 16 MiB of memory per request once it came).
func TestIdempotencyReadsNoBodyOnABodilessRoute(t *testing.T) {
	t.Parallel()
	e := idemEnv(t)
	var nk app.NewKey
	e.Do("POST", "/orgs/c/keys", e.AdminKey, map[string]any{"name": "spare"}).Expect(201).JSON(&nk)
	pr, pw := io.Pipe()
	defer pw.CloseWithError(io.ErrUnexpectedEOF)
	req, _ := http.NewRequest("POST", e.Server.URL+"/orgs/c/keys/"+nk.ID+"/rotate", pr)
	req.ContentLength = 16 << 20
	req.Header.Set("Authorization", "Bearer "+e.AdminKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", "rotate-1")
	go pw.Write([]byte(`{"padding": "`)) // and nothing more
	type answer struct {
		res *http.Response
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := e.Server.Client().Do(apitest.Unchecked(req))
		done <- answer{res, err}
	}()
	var a answer
	select {
	case a = <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("rotate with an unsent body not answered within 5 s: the server waits for the body")
	}
	if a.err != nil {
		t.Fatalf("rotate with an unsent body: %v", a.err)
	}
	a.res.Body.Close()
	if a.res.StatusCode != 200 {
		t.Fatalf("rotate: %d, want 200", a.res.StatusCode)
	}
	// The body is no part of the request on such a route: a retry with another body replays.
	again := postWithKey(t, e, "/orgs/c/keys/"+nk.ID+"/rotate", e.AdminKey, "rotate-1", map[string]any{"other": 1}).Expect(200)
	if again.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry of the rotate not replayed")
	}
	// A route that takes a body still bounds it by http.max_body_bytes, before reading.
	req = e.Request("POST", "/orgs/c/contacts", e.AdminKey, nil)
	req.Body, req.ContentLength = io.NopCloser(io.LimitReader(spaces{}, 16<<20+1)), 16<<20+1
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", "big")
	e.Send(apitest.Invalid(req)).ExpectError(413, "payload_too_large") // 16 MiB of blanks: no JSON object
}

// spaces reads as endless blanks.
type spaces struct{}

func (spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// TestEveryBodilessRouteIsDocumentedWithoutABody: the route table's "takes a body" agrees
// with the document's requestBody on every POST, PATCH and PUT, so a route that reads a
// body is never marked bodiless (its body would go unhashed) and one that reads none is.
func TestEveryBodilessRouteIsDocumentedWithoutABody(t *testing.T) {
	t.Parallel()
	ops := operations(t, servedDocument(t))
	for _, r := range api.Routes() {
		if r.Method != "POST" && r.Method != "PATCH" && r.Method != "PUT" {
			continue
		}
		op, ok := ops[r.Method+" "+r.Path]
		if !ok {
			continue // TestOpenAPI reports it
		}
		_, documented := op["requestBody"]
		if documented != r.Body {
			t.Errorf("%s %s: takes a body %v in the route table, requestBody documented %v", r.Method, r.Path, r.Body, documented)
		}
	}
}

// TestIdempotentReplayNeverShowsAStaleSecret: an answer that showed a secret (a key's token,
// a webhook's signing secret) is replayed only while that secret is current; after a rotate
// or a delete the replay is refused with 409 and the old secret is not in it.
func TestIdempotentReplayNeverShowsAStaleSecret(t *testing.T) {
	t.Parallel()
	e := idemEnv(t)
	refused := func(r *apitest.Response, secret string) {
		t.Helper()
		r.ExpectError(409, "conflict", "Idempotency-Key")
		if strings.Contains(string(r.Body), secret) {
			t.Fatalf("the refusal shows the old secret: %s", r.Body)
		}
	}

	var nk app.NewKey
	postWithKey(t, e, "/orgs/c/keys", e.AdminKey, "key-1", map[string]any{"name": "ci"}).Expect(201).JSON(&nk)
	replayed := postWithKey(t, e, "/orgs/c/keys", e.AdminKey, "key-1", map[string]any{"name": "ci"}).Expect(201)
	if replayed.Header.Get("Idempotent-Replayed") != "true" || !strings.Contains(string(replayed.Body), nk.Token) {
		t.Fatalf("a retry while the token is current must get it again: %s", replayed.Body)
	}
	// Rotated: the create's replay is refused, and so is the replay of that first rotate
	// once a second rotate replaced its token.
	var rotated app.NewKey
	postWithKey(t, e, "/orgs/c/keys/"+nk.ID+"/rotate", e.AdminKey, "rot-1", nil).Expect(200).JSON(&rotated)
	refused(postWithKey(t, e, "/orgs/c/keys", e.AdminKey, "key-1", map[string]any{"name": "ci"}), nk.Token)
	postWithKey(t, e, "/orgs/c/keys/"+nk.ID+"/rotate", e.AdminKey, "rot-1", nil).Expect(200)
	e.Do("POST", "/orgs/c/keys/"+nk.ID+"/rotate", e.AdminKey, nil).Expect(200)
	refused(postWithKey(t, e, "/orgs/c/keys/"+nk.ID+"/rotate", e.AdminKey, "rot-1", nil), rotated.Token)
	// Deleted: no token of it is current.
	var doomed app.NewKey
	postWithKey(t, e, "/orgs/c/keys", e.AdminKey, "key-2", map[string]any{"name": "doomed"}).Expect(201).JSON(&doomed)
	e.Do("DELETE", "/orgs/c/keys/"+doomed.ID, e.AdminKey, nil).Expect(204)
	refused(postWithKey(t, e, "/orgs/c/keys", e.AdminKey, "key-2", map[string]any{"name": "doomed"}), doomed.Token)

	// A webhook's signing secret, rotated.
	rcv := apitest.NewReceiver(t)
	body := map[string]any{"name": "hook", "url": rcv.URL, "events": []string{"contact.blocked"}}
	var w app.Webhook
	postWithKey(t, e, "/orgs/c/webhooks", e.AdminKey, "hook-1", body).Expect(201).JSON(&w)
	postWithKey(t, e, "/orgs/c/webhooks", e.AdminKey, "hook-1", body).Expect(201)
	e.Do("POST", "/orgs/c/webhooks/"+w.ID+"/rotate", e.AdminKey, nil).Expect(200)
	refused(postWithKey(t, e, "/orgs/c/webhooks", e.AdminKey, "hook-1", body), w.Secret)
}

// TestObjectRoutesBoundTheirBody: a route that takes one plain object bounds its body at
// 1 MiB, below http.max_body_bytes, with or without an Idempotency-Key and whether the length
// is declared or not; a route of big bodies (the bulk import) still takes more.
func TestObjectRoutesBoundTheirBody(t *testing.T) {
	t.Parallel()
	e := idemEnv(t)
	const bound = 1 << 20
	sized := func(n int) string { // a valid member body padded with spaces to n bytes
		b := `{"name":"n","email":"m` + strconv.Itoa(n) + `@example.com"}`
		return b + strings.Repeat(" ", n-len(b))
	}
	send := func(body string, chunked bool, idem string) *apitest.Response {
		var rd io.Reader = strings.NewReader(body)
		if chunked {
			rd = io.MultiReader(rd)
		}
		req, _ := http.NewRequest("POST", e.Server.URL+"/orgs/c/members", rd)
		req.Header.Set("Authorization", "Bearer "+e.AdminKey)
		req.Header.Set("Content-Type", "application/json")
		if idem != "" {
			req.Header.Set("Idempotency-Key", idem)
		}
		return e.Send(req)
	}
	send(sized(bound), false, "").Expect(201)
	send(sized(bound+1), false, "").ExpectError(413, "payload_too_large")
	send(sized(bound+1), true, "").ExpectError(413, "payload_too_large")
	send(sized(bound-1), false, "m-1").Expect(201)
	send(sized(bound+1), false, "m-2").ExpectError(413, "payload_too_large")
	send(sized(bound+1), true, "m-3").ExpectError(413, "payload_too_large")
	// 2 MiB of bulk import passes the object bound.
	rows := strings.Repeat(`{"email":"a@example.com"},`, 2*bound/26)
	bulk := `{"channels":[` + rows + `{"email":"b@example.com"}]}`
	if r := e.DoInvalid("POST", "/orgs/c/contacts/bulk/dry", e.AdminKey, bulk); r.Status == 413 { // more rows than a bulk takes: refused, but not at the object bound
		t.Fatalf("a 2 MiB bulk import refused at the object bound")
	}
}
