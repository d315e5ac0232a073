package mail_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/http"
	"net/mail"
	"regexp"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

// recipientFields are every field of the spec's Broadcast recipient.
var recipientFields = []string{"id", "broadcast_id", "broadcast_name", "integration_id", "user_id", "name", "username",
	"phone", "email", "status", "is_skipped", "is_failed", "is_bounced", "is_sent", "is_delivered", "is_complained",
	"is_unsubscribed", "is_opened", "is_played", "is_skipped_at", "is_failed_at", "is_bounced_at", "is_sent_at",
	"is_delivered_at", "is_complained_at", "is_unsubscribed_at", "is_opened_at", "is_played_at", "error_message",
	"external_message_id", "created_at", "updated_at"}

// manyRequests lifts the per-IP rate limit for tests that make hundreds of calls.
var manyRequests = apitest.Unlimited

// recipients lists recipients through the API with a query such as "broadcast_id=...".
func recipients(t *testing.T, e *apitest.Env, query string) []map[string]any {
	t.Helper()
	return e.Do("GET", "/orgs/c/broadcasts/recipients?take=100&"+query, e.AdminKey, nil).Expect(200).List()
}

// recipientOf answers the one recipient of a broadcast for an address.
func recipientOf(t *testing.T, e *apitest.Env, broadcastID, email string) map[string]any {
	t.Helper()
	l := recipients(t, e, "broadcast_id="+broadcastID+"&email="+email)
	if len(l) != 1 {
		t.Fatalf("recipients of %s for %s: %d, want 1", broadcastID, email, len(l))
	}
	return l[0]
}

// waitBroadcast polls the broadcast until it has status.
func waitBroadcast(t *testing.T, e *apitest.Env, id, status string) app.Broadcast {
	t.Helper()
	var b app.Broadcast
	e.Eventually(15*time.Second, "broadcast "+id+" "+status, func() bool {
		e.Do("GET", "/orgs/c/broadcasts/"+id, e.AdminKey, nil).Expect(200).JSON(&b)
		return b.Status == status
	})
	return b
}

// events decodes the envelopes a receiver got, keeping those of type typ ("" for all).
func events(r *apitest.Receiver, typ string) []map[string]any {
	var out []map[string]any
	for _, rq := range r.Requests() {
		var env map[string]any
		if json.Unmarshal(rq.Body, &env) == nil && (typ == "" || env["type"] == typ) {
			out = append(out, env)
		}
	}
	return out
}

// waitEvents waits until the receiver got n events of typ and answers their data.
func waitEvents(t *testing.T, r *apitest.Receiver, typ string, n int) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(events(r, typ)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("receiver: %d %s event(s), want %d", len(events(r, typ)), typ, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	var data []map[string]any
	for _, env := range events(r, typ) {
		d, _ := env["data"].(map[string]any)
		data = append(data, d)
	}
	return data
}

// parsed is a received message with its decoded text and HTML parts.
type parsed struct {
	Header mail.Header
	Text   string
	HTML   string
}

func parseMail(t *testing.T, m apitest.Mail) parsed {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(m.Data))
	if err != nil {
		t.Fatalf("parse mail: %v", err)
	}
	p := parsed{Header: msg.Header}
	readPart(t, &p, msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body)
	return p
}

func readPart(t *testing.T, p *parsed, ctype, cte string, body io.Reader) {
	t.Helper()
	mt, params, err := mime.ParseMediaType(ctype)
	if err != nil {
		t.Fatalf("content type %q: %v", ctype, err)
	}
	if strings.HasPrefix(mt, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			part, err := mr.NextRawPart()
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatalf("multipart: %v", err)
			}
			readPart(t, p, part.Header.Get("Content-Type"), part.Header.Get("Content-Transfer-Encoding"), part)
		}
	}
	if strings.EqualFold(cte, "quoted-printable") {
		body = quotedprintable.NewReader(body)
	}
	data, err := io.ReadAll(body)
	if err != nil {
		t.Fatalf("read part: %v", err)
	}
	switch mt {
	case "text/plain":
		p.Text = string(data)
	case "text/html":
		p.HTML = string(data)
	}
}

// mailTo picks the one message sent to an address.
func mailTo(t *testing.T, mails []apitest.Mail, to string) apitest.Mail {
	t.Helper()
	var found []apitest.Mail
	for _, m := range mails {
		if len(m.To) == 1 && m.To[0] == to {
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d message(s) to %s, want 1", len(found), to)
	}
	return found[0]
}

// linkPath answers the path (from /u/, /t/o/ or /t/c/ on) of the first link matching re.
func linkPath(t *testing.T, s, prefix string) string {
	t.Helper()
	m := regexp.MustCompile(`https?://[^"'<>\s]*` + regexp.QuoteMeta(prefix) + `[A-Za-z0-9_\-.]+`).FindString(s)
	if m == "" {
		t.Fatalf("no %s link in %q", prefix, s)
	}
	return m[strings.Index(m, prefix):]
}

// noRedirect calls the server without following redirects.
func noRedirect(t *testing.T, e *apitest.Env, path string) *http.Response {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(e.Server.URL + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

// tamper changes the first character of a token's signature (the last one may only carry
// padding bits).
func tamper(path string) string {
	i := strings.LastIndex(path, ".") + 1
	repl := byte('A')
	if path[i] == 'A' {
		repl = 'B'
	}
	return path[:i] + string(repl) + path[i+1:]
}

// customContact makes a contact whose only channel is `custom` with an email address.
func customContact(t *testing.T, e *apitest.Env, name, email string, segments ...string) app.Contact {
	t.Helper()
	var c app.Contact
	e.Do("POST", "/orgs/c/contacts", e.AdminKey, map[string]any{"name": name, "segment_ids": orEmpty(segments),
		"channels": []map[string]string{{"type": "custom", "email": email}}}).Expect(201).JSON(&c)
	return c
}

func orEmpty(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// isTrue reads a recipient flag: true, or null when unset.
func isTrue(r map[string]any, flag string) bool { return r["is_"+flag] == true }

// str reads a string field, "" for null.
func str(r map[string]any, field string) string {
	s, _ := r[field].(string)
	return s
}
