package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"wsapi/app/apitest"
)

// postWithKey sends an authenticated POST with an Idempotency-Key (none when idem is "-").
func postWithKey(t *testing.T, e *apitest.Env, path, key, idem string, body any) *apitest.Response {
	t.Helper()
	return e.Send(keyedPost(t, e, path, key, idem, body))
}

// keyedPost is the request postWithKey sends.
func keyedPost(t *testing.T, e *apitest.Env, path, key, idem string, body any) *http.Request {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest("POST", e.Server.URL+path, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	if idem != "-" {
		req.Header.Set("Idempotency-Key", idem)
	}
	return req
}

func idemEnv(t *testing.T) *apitest.Env {
	return apitest.New(t, apitest.Unlimited)
}

// TestIdempotentReplay: the first answer is stored per organization, key and route and
// replayed to a retry of the same request, which does not run again.
func TestIdempotentReplay(t *testing.T) {
	t.Parallel()
	e := idemEnv(t)
	body := map[string]any{"name": "Ann"}
	first := postWithKey(t, e, "/orgs/c/contacts", e.AdminKey, "order-1", body).Expect(201)
	if first.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first answer marked replayed")
	}
	again := postWithKey(t, e, "/orgs/c/contacts", e.AdminKey, "order-1", body).Expect(201)
	if again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.Body, first.Body) {
		t.Fatalf("retry: replayed %q, body %s, want %s", again.Header.Get("Idempotent-Replayed"), again.Body, first.Body)
	}
	if ct := again.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("replayed Content-Type %q", ct)
	}
	if n := e.Do("GET", "/orgs/c/contacts", e.AdminKey, nil).Expect(200).Header.Get("pagination-count"); n != "1" {
		t.Fatalf("%s contacts after a retry, want 1", n)
	}
	// Another body under the same key is a conflict naming the header; nothing is created.
	postWithKey(t, e, "/orgs/c/contacts", e.AdminKey, "order-1", map[string]any{"name": "Bob"}).
		ExpectError(409, "conflict", "Idempotency-Key")
	// The same key on another route, in another organization, or without a key: independent.
	postWithKey(t, e, "/orgs/c/segments", e.AdminKey, "order-1", map[string]any{"name": "S"}).Expect(201)
	sub, subKey := e.OrgWithAdmin("Sub")
	postWithKey(t, e, "/orgs/"+sub.ID+"/contacts", subKey, "order-1", body).Expect(201)
	postWithKey(t, e, "/orgs/c/contacts", e.AdminKey, "-", body).Expect(201)
	// Another API key of the same organization reusing the key: a different request.
	other := e.Key(e.AdminKey, e.Org.ID, e.Owner.ID)
	postWithKey(t, e, "/orgs/c/contacts", other, "order-1", body).ExpectError(409, "conflict", "Idempotency-Key")
	if n := e.Do("GET", "/orgs/c/contacts", e.AdminKey, nil).Expect(200).Header.Get("pagination-count"); n != "2" {
		t.Fatalf("%s contacts, want 2", n)
	}
}

// TestIdempotencyKeyBounds: 1 to 255 characters; validation answers (4xx) are kept too.
func TestIdempotencyKeyBounds(t *testing.T) {
	t.Parallel()
	e := idemEnv(t)
	e.Send(apitest.Invalid(keyedPost(t, e, "/orgs/c/contacts", e.AdminKey, strings.Repeat("k", 256), map[string]any{"name": "A"}))).
		ExpectError(400, "invalid_argument", "Idempotency-Key")
	e.Send(apitest.Invalid(keyedPost(t, e, "/orgs/c/contacts", e.AdminKey, "", map[string]any{"name": "A"}))).
		ExpectError(400, "invalid_argument", "Idempotency-Key")
	postWithKey(t, e, "/orgs/c/contacts", e.AdminKey, strings.Repeat("k", 255), map[string]any{"name": "A"}).Expect(201)

	bad := map[string]any{"name": "A", "bogus": 1}
	e.Send(apitest.Invalid(keyedPost(t, e, "/orgs/c/contacts", e.AdminKey, "bad-1", bad))).ExpectError(400, "invalid_argument", "bogus")
	r := e.Send(apitest.Invalid(keyedPost(t, e, "/orgs/c/contacts", e.AdminKey, "bad-1", bad))).ExpectError(400, "invalid_argument", "bogus")
	if r.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("a stored 400 is replayed")
	}
}

// TestIdempotentConcurrent: while the first request with a key runs, a second one with the
// same key is 409 and does not run; once the first finished, a retry gets its answer.
func TestIdempotentConcurrent(t *testing.T) {
	t.Parallel()
	e := idemEnv(t)
	rcv := apitest.NewReceiver(t)
	release := make(chan struct{})
	rcv.Respond(func(w http.ResponseWriter, _ *http.Request) {
		<-release
		w.WriteHeader(http.StatusOK)
	})
	wh := e.Webhook(e.AdminKey, "c", rcv.Server.URL, "contact.blocked")
	path := "/orgs/c/webhooks/" + wh.ID + "/test"
	firstDone := make(chan *apitest.Response, 1)
	go func() { firstDone <- postWithKey(t, e, path, e.AdminKey, "ping-1", map[string]any{}) }()
	rcv.Wait(t, 1, 10*time.Second) // the first request is inside its handler

	postWithKey(t, e, path, e.AdminKey, "ping-1", map[string]any{}).ExpectError(409, "conflict", "Idempotency-Key")
	close(release)
	first := (<-firstDone).Expect(200)
	replay := postWithKey(t, e, path, e.AdminKey, "ping-1", map[string]any{}).Expect(200)
	if replay.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(replay.Body, first.Body) {
		t.Fatalf("replay %s, first %s", replay.Body, first.Body)
	}
	if n := len(rcv.Requests()); n != 1 {
		t.Fatalf("the test ping ran %d times, want 1", n)
	}
}

// TestIdempotencyKeysExpire: after 24 h the janitor purges the stored answers, and the key
// runs a new request.
func TestIdempotencyKeysExpire(t *testing.T) {
	t.Parallel()
	e := idemEnv(t)
	body := map[string]any{"name": "Ann"}
	postWithKey(t, e, "/orgs/c/contacts", e.AdminKey, "k", body).Expect(201)
	e.Clock.Advance(23 * time.Hour)
	e.Runtime.Janitor.RunOnce(context.Background())
	if postWithKey(t, e, "/orgs/c/contacts", e.AdminKey, "k", body).Expect(201).Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("not replayed within 24 h")
	}
	e.Clock.Advance(2 * time.Hour)
	e.Runtime.Janitor.RunOnce(context.Background())
	if postWithKey(t, e, "/orgs/c/contacts", e.AdminKey, "k", body).Expect(201).Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("replayed after 24 h")
	}
	if n := e.Do("GET", "/orgs/c/contacts", e.AdminKey, nil).Expect(200).Header.Get("pagination-count"); n != "2" {
		t.Fatalf("%s contacts, want 2", n)
	}
}

// TestIdempotentSecretsSealed: a replayed new API key carries its token again, but the
// stored answer is sealed: the token is nowhere in the database files.
func TestIdempotentSecretsSealed(t *testing.T) {
	t.Parallel()
	e := idemEnv(t)
	in := map[string]any{"name": "ci key", "member_id": e.Owner.ID}
	first := postWithKey(t, e, "/orgs/c/keys", e.AdminKey, "key-1", in).Expect(201)
	again := postWithKey(t, e, "/orgs/c/keys", e.AdminKey, "key-1", in).Expect(201)
	var nk struct {
		Token string `json:"token"`
	}
	first.JSON(&nk)
	if nk.Token == "" || !bytes.Equal(first.Body, again.Body) {
		t.Fatalf("first %s, replay %s", first.Body, again.Body)
	}
	for _, suffix := range []string{"", "-wal"} {
		data, err := os.ReadFile(e.Runtime.Config.DB.Path + suffix)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(nk.Token)) {
			t.Fatalf("the token is stored in the clear in %s", e.Runtime.Config.DB.Path+suffix)
		}
	}
}
