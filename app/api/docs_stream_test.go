package api_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"wsapi/app/apitest"
)

// browserStream is the fetch()-based stream reader of docs/clients.md ("In a browser"),
// with a harness that prints each event as a JSON line and exits after n (its last argument).
func browserStream(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "clients.md"))
	if err != nil {
		t.Fatal(err)
	}
	fn := regexp.MustCompile(`(?s)async function stream\(.*?\n}\n`).Find(doc)
	if fn == nil {
		t.Fatal("docs/clients.md has no `async function stream(`")
	}
	script := filepath.Join(t.TempDir(), "stream.js")
	harness := string(fn) + `
const [api, key, path, lastId, n] = process.argv.slice(2);
let seen = 0;
stream(api, key, path, (type, data, id) => {
  console.log(JSON.stringify({ type, id, data }));
  if (++seen === Number(n)) process.exit(0);
}, lastId).catch((e) => { console.log(e.message); process.exit(3); });
`
	if err := os.WriteFile(script, []byte(harness), 0o600); err != nil {
		t.Fatal(err)
	}
	return script
}

type jsEvent struct {
	Type string         `json:"type"`
	ID   string         `json:"id"`
	Data map[string]any `json:"data"`
}

// TestDocsBrowserStreamResumes runs the browser example of docs/clients.md under Node (whose
// fetch and streams are the browser's): it reads the organization stream with the bearer
// key, and after its connection is cut it reconnects with Last-Event-ID and gets the event
// made meanwhile, once. A bad key stops it with the 401.
func TestDocsBrowserStreamResumes(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the browser stream example of docs/clients.md is not run")
	}
	t.Parallel()
	e := apitest.New(t)
	script := browserStream(t)
	first := e.Do("POST", "/orgs/c/contacts", e.AdminKey, map[string]any{"name": "Ann"}).Expect(201).Map()

	cmd := exec.Command(node, script, e.Server.URL, e.AdminKey, "/orgs/c/events/stream?types=contact.created", "0", "2")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var mu sync.Mutex
	var lines []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for sc := bufio.NewScanner(out); sc.Scan(); {
			mu.Lock()
			lines = append(lines, sc.Text())
			mu.Unlock()
		}
	}()
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(lines) }
	deadline := time.Now().Add(10 * time.Second)
	for count() < 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	e.Server.CloseClientConnections()        // the stream drops; the example waits a second, then resumes
	e.Server.Client().CloseIdleConnections() // the test's own pooled connection went with it
	second := e.Do("POST", "/orgs/c/contacts", e.AdminKey, map[string]any{"name": "Bob"}).Expect(201).Map()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatalf("the example printed %v and did not finish", lines)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(lines) != 2 {
		t.Fatalf("the example printed %v, want two events", lines)
	}
	var got [2]jsEvent
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &got[i]); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
	}
	if got[0].Type != "contact.created" || got[0].Data["id"] != first["id"] || got[1].Data["id"] != second["id"] ||
		got[0].ID == "" || got[0].ID == got[1].ID {
		t.Fatalf("events %+v, want Ann's then Bob's contact.created", got)
	}

	bad, _ := exec.Command(node, script, e.Server.URL, "sk_wrong", "/orgs/c/events/stream", "", "1").CombinedOutput()
	if !strings.Contains(string(bad), "stream: HTTP 401") {
		t.Fatalf("a bad key: %q", bad)
	}
}
