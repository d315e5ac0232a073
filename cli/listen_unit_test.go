package cli

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestLocalAPI(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8080":       "http://127.0.0.1:8080",
		"http://0.0.0.0:8080":         "http://127.0.0.1:8080",
		"http://[::]:9000/":           "http://127.0.0.1:9000",
		"http://:8080":                "http://127.0.0.1:8080",
		"https://api.example.com/":    "https://api.example.com",
		"https://api.example.com:443": "https://api.example.com:443",
	} {
		if got := localAPI(in); got != want {
			t.Errorf("localAPI(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestListenEventIDIsStableAndShaped(t *testing.T) {
	a, b := listenEventID("org_1", "42"), listenEventID("org_1", "42")
	if a != b || !regexp.MustCompile(`^evt_[0-9A-Za-z]{20}$`).MatchString(a) {
		t.Fatalf("ids %q %q", a, b)
	}
	if a == listenEventID("org_1", "43") || a == listenEventID("org_2", "42") {
		t.Fatal("different stream events share an id")
	}
}

// TestReadSSE parses what the server writes: events, the id-only position block, heartbeat
// comments, and CRLF or multi-line data from other servers.
func TestReadSSE(t *testing.T) {
	in := "id: 7\n\n: ping\n\nid: 8\nevent: a.b\ndata: {\"x\":1}\n\nevent: c\r\ndata: l1\r\ndata: l2\r\n\r\n"
	var got []sseEvent
	alive := 0
	err := readSSE(strings.NewReader(in), func() { alive++ }, func(ev sseEvent) error {
		got = append(got, ev)
		return nil
	})
	want := []sseEvent{{id: "7", hasID: true}, {id: "8", typ: "a.b", data: `{"x":1}`, hasID: true, hasData: true},
		{typ: "c", data: "l1\nl2", hasData: true}}
	if err != nil || len(got) != len(want) || alive != 12 {
		t.Fatalf("got %+v (%v), %d lines", got, err, alive)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("block %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestListenOptionsNameEveryBadFlag(t *testing.T) {
	err := listenOptions{forwardTo: "localhost:3000", api: "ftp://x", org: "a/b", replayFrom: -2,
		events: []string{" "}}.validate()
	for _, f := range []string{"forward-to", "api", "key", "org", "replay-from", "timeout", "events"} {
		if err == nil || !strings.Contains(humanError(err), f) {
			t.Errorf("%v does not name %s", err, f)
		}
	}
	if err := (listenOptions{api: "http://127.0.0.1:8080", key: "sk_x", org: "c", timeout: time.Second}).validate(); err == nil ||
		!strings.Contains(humanError(err), "forward-to: is required") {
		t.Errorf("no --forward-to: %v", err)
	}
	ok := listenOptions{forwardTo: "http://localhost:3000/hooks", api: "http://127.0.0.1:8080", key: "sk_x",
		org: "c", replayFrom: -1, timeout: time.Second}
	if err := ok.validate(); err != nil {
		t.Fatal(err)
	}
}
