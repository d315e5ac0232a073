package cli_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// listenLineRE is the line listen prints per event: time, stream id, type, envelope id, the
// local answer's status and the latency.
var listenLineRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\s+(\d+)\s+(\S+)\s+(evt_[0-9A-Za-z]{20})\s+-> (\d{3})\s+\d+\.\d ms$`)

// envelope is a delivery's body.
type envelope struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	OrgID     string          `json:"org_id"`
	CreatedAt string          `json:"created_at"`
	Data      json.RawMessage `json:"data"`
}

func decodeEnvelope(t *testing.T, d delivery) (envelope, []string) {
	t.Helper()
	var e envelope
	var keys map[string]any
	if json.Unmarshal(d.body, &e) != nil || json.Unmarshal(d.body, &keys) != nil {
		t.Fatalf("delivery body %s", d.body)
	}
	return e, slices.Sorted(maps.Keys(keys))
}

// TestListenForwardsSignedDeliveries runs the real binary: `app serve`, a local receiver that
// also holds a real webhook endpoint, and `app listen` sessions (every type; --events; a
// --replay-from). Changes made through the API reach the receiver through listen signed with
// the printed session secret, with the headers and envelope of a real delivery, once each,
// in stream order, across a server restart on the same database file.
func TestListenForwardsSignedDeliveries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, addr := filepath.Join(dir, "app.db"), freeAddr(t)
	rcv := newReceiver(t, map[string]int{"/replay": 503})
	realRcv, ca := newTLSReceiver(t)
	serverEnv := []string{"APP_WEBHOOKS_ALLOW_PRIVATE_TARGETS=true", "APP_WEBHOOKS_CA_FILE=" + ca, "APP_EVENTS_STREAM_HEARTBEAT=100ms"}
	srv := startServeAt(t, dir, db, addr, serverEnv...)
	api := "http://" + srv.addr
	token := bannerTokenRE.FindString(srv.log())

	code, wh := call(t, "POST", api+"/orgs/c/webhooks", token, map[string]any{"name": "real", "url": realRcv.URL + "/real",
		"events": []string{"contact.blocked"}})
	if code != 201 {
		t.Fatalf("create webhook: %d %v", code, wh)
	}
	_, org := call(t, "GET", api+"/orgs/c", token, nil)
	start := len(storedEvents(t, api, token, 0))

	all, allSecret := startListen(t, []string{"APP_API_KEY=" + token}, "--forward-to", rcv.URL+"/all", "--api", api)
	blocked, blockedSecret := startListen(t, nil, "--forward-to", rcv.URL+"/blocked", "--api", api, "--key", token,
		"--events", "contact.blocked", "--json")
	if allSecret == blockedSecret {
		t.Fatal("two sessions printed the same secret")
	}

	changeContacts(t, api, token, "Ann")
	want := storedEvents(t, api, token, 0)[start:]
	waitFor(t, 10*time.Second, "listen's forwards and the real delivery", func() bool {
		return len(rcv.at("/all")) >= len(want) && len(realRcv.at("/real")) >= 1 && len(rcv.at("/blocked")) >= 1 &&
			eventLines(all.lines()) >= len(want)
	})
	got := checkForwards(t, rcv.at("/all"), want, allSecret, org["id"].(string))
	checkLines(t, all.lines(), want, "200")
	sameAsRealDelivery(t, realRcv.at("/real")[0], wh["secret"].(string), forwardOf(t, rcv.at("/all"), "contact.blocked"))

	// --events: only the blocked event, with the same envelope id as the other session's.
	onlyBlocked := rcv.at("/blocked")
	if len(onlyBlocked) != 1 || onlyBlocked[0].header.Get("x-webhook-id") != got["contact.blocked"] ||
		!verifySignature(blockedSecret, onlyBlocked[0].header, onlyBlocked[0].body) {
		t.Fatalf("--events contact.blocked forwarded %d deliveries: %v", len(onlyBlocked), onlyBlocked)
	}

	// --replay-from the first stream id: everything again, same ids and data; the receiver's
	// 503 is printed and does not stop the stream.
	replay, replaySecret := startListen(t, []string{"APP_API_KEY=" + token}, "--forward-to", rcv.URL+"/replay",
		"--api", api, "--replay-from", want[0].id)
	waitFor(t, 10*time.Second, "the replayed events", func() bool {
		return len(rcv.at("/replay")) >= len(want) && eventLines(replay.lines()) >= len(want)
	})
	checkForwards(t, rcv.at("/replay"), want, replaySecret, org["id"].(string))
	for i, d := range rcv.at("/replay") {
		if d.header.Get("x-webhook-id") != rcv.at("/all")[i].header.Get("x-webhook-id") {
			t.Errorf("replayed event %d has another id than the first time", i)
		}
	}
	checkLines(t, replay.lines(), want, "503")
	if code := replay.interrupt(); code != 0 || !strings.Contains(replay.log(), "listen: stopped") {
		t.Fatalf("Ctrl-C: exit %d\n%s", code, replay.log())
	}

	// A server restart on the same file: changes made while listen reconnects arrive once.
	if code := srv.stop(); code != 0 {
		t.Fatalf("serve exit %d", code)
	}
	startServeAt(t, dir, db, addr, serverEnv...)
	changeContacts(t, api, token, "Bob")
	changeContacts(t, api, token, "Cy")
	want = storedEvents(t, api, token, 0)[start:]
	waitFor(t, 20*time.Second, "the forwards after the restart", func() bool {
		// listen prints a line once the receiver has answered, so the lines trail the forwards.
		return len(rcv.at("/all")) >= len(want) && len(rcv.at("/blocked")) >= 3 &&
			eventLines(all.lines()) >= len(want) && len(blocked.lines()) >= 1+3
	})
	checkForwards(t, rcv.at("/all"), want, allSecret, org["id"].(string))
	checkLines(t, all.lines(), want, "200")
	if n := len(rcv.at("/blocked")); n != 3 {
		t.Errorf("--events session: %d deliveries after the restart, want 3", n)
	}
	checkJSONLines(t, blocked.lines(), blockedSecret, rcv.at("/blocked"))
	if !strings.Contains(all.log(), "connected again") {
		t.Errorf("no reconnect reported:\n%s", all.log())
	}
	for _, p := range []*listenProc{all, blocked} {
		if code := p.interrupt(); code != 0 {
			t.Errorf("Ctrl-C: exit %d\n%s", code, p.log())
		}
	}
	if n := len(rcv.at("/all")); n != len(want) {
		t.Errorf("%d forwards, want %d (one per stored event)", n, len(want))
	}
}

// changeContacts makes a contact and blocks it: contact.created, contact.blocked (a webhook
// type) and contact.updated.
func changeContacts(t *testing.T, api, token, name string) {
	t.Helper()
	code, c := call(t, "POST", api+"/orgs/c/contacts", token, map[string]any{"name": name})
	if code != 201 {
		t.Fatalf("create contact: %d %v", code, c)
	}
	if code, m := call(t, "PATCH", api+"/orgs/c/contacts/"+c["id"].(string), token, map[string]any{"blocked": true}); code != 200 {
		t.Fatalf("block contact: %d %v", code, m)
	}
}

// checkForwards wants one forward per stored event, in stream order, each a signed webhook
// delivery of that event; it answers the envelope id of each type's first forward.
func checkForwards(t *testing.T, got []delivery, want []streamBlock, secret, orgID string) map[string]string {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d forwards for %d stored events", len(got), len(want))
	}
	ids, seen := map[string]string{}, map[string]bool{}
	for i, d := range got {
		e, _ := decodeEnvelope(t, d)
		h := d.header
		if e.Type != want[i].typ || !bytes.Equal(e.Data, []byte(want[i].data)) || e.OrgID != orgID {
			t.Fatalf("forward %d is %s %s of %s, want %s %s", i, e.Type, e.Data, e.OrgID, want[i].typ, want[i].data)
		}
		if h.Get("x-webhook-id") != e.ID || h.Get("x-webhook-event") != e.Type || h.Get("x-webhook-attempt") != "1" ||
			!verifySignature(secret, h, d.body) || seen[e.ID] {
			t.Fatalf("forward %d: headers %v, body %s (signature or id wrong, or repeated)", i, h, d.body)
		}
		seen[e.ID] = true
		if _, ok := ids[e.Type]; !ok {
			ids[e.Type] = e.ID
		}
	}
	return ids
}

// checkLines wants one printed line per event, naming its stream id and type and status.
func checkLines(t *testing.T, lines []string, want []streamBlock, status string) {
	t.Helper()
	var events []string
	for _, l := range lines {
		if m := listenLineRE.FindStringSubmatch(l); m != nil {
			if m[4] != status {
				t.Errorf("line %q: status %s, want %s", l, m[4], status)
			}
			events = append(events, m[1]+" "+m[2])
		} else if strings.HasPrefix(l, "20") {
			t.Errorf("line %q has not the per-event form", l)
		}
	}
	var wantEvents []string
	for _, w := range want {
		wantEvents = append(wantEvents, w.id+" "+w.typ)
	}
	if !slices.Equal(events, wantEvents) {
		t.Errorf("printed events %v, want %v\n%s", events, wantEvents, strings.Join(lines, "\n"))
	}
}

// eventLines counts the per-event lines printed so far.
func eventLines(lines []string) int {
	n := 0
	for _, l := range lines {
		if listenLineRE.MatchString(l) {
			n++
		}
	}
	return n
}

// forwardOf is the first forward of a type.
func forwardOf(t *testing.T, ds []delivery, typ string) delivery {
	t.Helper()
	for _, d := range ds {
		if d.header.Get("x-webhook-event") == typ {
			return d
		}
	}
	t.Fatalf("no %s forward", typ)
	return delivery{}
}

// sameAsRealDelivery compares listen's forward of an event with the dispatcher's delivery
// of the same event: the same header names and fixed values, the same envelope fields and
// data; each verifies with its own secret.
func sameAsRealDelivery(t *testing.T, real delivery, realSecret string, fwd delivery) {
	t.Helper()
	if !verifySignature(realSecret, real.header, real.body) {
		t.Fatalf("the real delivery does not verify: %v", real.header)
	}
	if a, b := slices.Sorted(maps.Keys(real.header)), slices.Sorted(maps.Keys(fwd.header)); !slices.Equal(a, b) {
		t.Errorf("header names: real %v, listen %v", a, b)
	}
	for _, h := range []string{"Content-Type", "User-Agent", "X-Webhook-Event", "X-Webhook-Attempt"} {
		if real.header.Get(h) != fwd.header.Get(h) {
			t.Errorf("%s: real %q, listen %q", h, real.header.Get(h), fwd.header.Get(h))
		}
	}
	re, rkeys := decodeEnvelope(t, real)
	fe, fkeys := decodeEnvelope(t, fwd)
	if !slices.Equal(rkeys, fkeys) || re.Type != fe.Type || re.OrgID != fe.OrgID || !bytes.Equal(re.Data, fe.Data) {
		t.Errorf("envelopes differ:\nreal   %s\nlisten %s", real.body, fwd.body)
	}
	if _, err := time.Parse("2006-01-02T15:04:05.000Z", fe.CreatedAt); err != nil {
		t.Errorf("listen's created_at %q is not the API's timestamp form", fe.CreatedAt)
	}
	if ts, err := strconv.ParseInt(fwd.header.Get("x-webhook-timestamp"), 10, 64); err != nil || time.Since(time.Unix(ts, 0)) > time.Minute {
		t.Errorf("listen's timestamp %q is not now", fwd.header.Get("x-webhook-timestamp"))
	}
}

// TestListenRefusesBadFlags: bad flags are named all at once before any connection; an
// unknown event type is the server's 400, which ends listen with its message.
func TestListenRefusesBadFlags(t *testing.T) {
	t.Parallel()
	p := runListen(t, nil, "--forward-to", "localhost:3000", "--api", "http://127.0.0.1:1", "--timeout", "0s")
	if code := p.wait(); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	for _, field := range []string{"forward-to", "key", "timeout", "APP_API_KEY"} {
		if !strings.Contains(p.log(), field) {
			t.Errorf("stderr does not name %s:\n%s", field, p.log())
		}
	}

	dir := t.TempDir()
	srv := startServe(t, dir, filepath.Join(dir, "app.db"))
	token := bannerTokenRE.FindString(srv.log())
	p = runListen(t, []string{"APP_API_KEY=" + token}, "--forward-to", "http://127.0.0.1:1/hooks",
		"--api", "http://"+srv.addr, "--events", "contact.blocked,no.such")
	if code := p.wait(); code != 1 || !strings.Contains(p.log(), `unknown event type "no.such"`) {
		t.Fatalf("exit %d, want 1 naming the type:\n%s", code, p.log())
	}
	p = runListen(t, []string{"APP_API_KEY=sk_wrong"}, "--forward-to", "http://127.0.0.1:1/hooks", "--api", "http://"+srv.addr)
	if code := p.wait(); code != 1 || !strings.Contains(p.log(), "401") {
		t.Fatalf("a bad key: exit %d, want 1 with the 401:\n%s", code, p.log())
	}
}

// checkJSONLines: with --json the banner and each event are one JSON object per line.
func checkJSONLines(t *testing.T, lines []string, secret string, got []delivery) {
	t.Helper()
	var banner struct {
		Secret string `json:"secret"`
		OrgID  string `json:"org_id"`
	}
	if len(lines) != 1+len(got) || json.Unmarshal([]byte(lines[0]), &banner) != nil || banner.Secret != secret {
		t.Fatalf("--json printed %v for %d deliveries", lines, len(got))
	}
	for i, l := range lines[1:] {
		var line struct {
			StreamID  string  `json:"stream_id"`
			EventID   string  `json:"event_id"`
			Type      string  `json:"type"`
			Status    int     `json:"status"`
			LatencyMs float64 `json:"latency_ms"`
		}
		if err := json.Unmarshal([]byte(l), &line); err != nil || line.Status != 200 || line.Type != "contact.blocked" ||
			line.StreamID == "" || line.EventID != got[i].header.Get("x-webhook-id") {
			t.Errorf("--json line %q (%v)", l, err)
		}
	}
}
