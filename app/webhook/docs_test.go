package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/webhook"
)

// docBlock answers the first fenced block of lang in docs/clients.md that contains marker.
func docBlock(t *testing.T, lang, marker string) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "clients.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("(?s)```"+lang+"\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		if strings.Contains(m[1], marker) {
			return m[1]
		}
	}
	t.Fatalf("docs/clients.md has no %s block with %q", lang, marker)
	return ""
}

// TestDocsGoVerifierIsTheTestedOne: the Go verifier in docs/clients.md is, character for
// character, the function Example_verifyWebhook runs.
func TestDocsGoVerifierIsTheTestedOne(t *testing.T) {
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fn := regexp.MustCompile(`(?s)func verifyWebhook\(.*?\n}\n`).Find(src)
	if doc := docBlock(t, "go", "func verifyWebhook("); doc != string(fn) {
		t.Fatalf("docs/clients.md's verifyWebhook differs from example_test.go's:\n%s\n---\n%s", doc, fn)
	}
}

// TestDocsNodeVerifier runs the Node verifier of docs/clients.md on a real delivery, on the
// same delivery with a changed body, and on one an hour old.
func TestDocsNodeVerifier(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the Node verifier of docs/clients.md is not run")
	}
	t.Parallel()
	harness := docBlock(t, "js", "function verifyWebhook(") + `
const input = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
try {
  verifyWebhook(input.secret, input.headers, Buffer.from(input.body, "base64"), input.now);
  console.log("ok");
} catch (e) { console.log(e.message); }
`
	script := filepath.Join(t.TempDir(), "verify.js")
	if err := os.WriteFile(script, []byte(harness), 0o600); err != nil {
		t.Fatal(err)
	}
	secret := app.SecretPrefix + app.RandomBase62(43)
	_, body, _ := app.NewEvent("org_1", app.EventContactBlocked, map[string]any{"name": "Zoë ✓"}, app.At(time.Now()))
	job := app.Job{URL: "http://localhost/hooks", Secret: secret, EventID: "evt_1", EventType: app.EventContactBlocked, Body: body, Attempt: 1}
	req, _ := webhook.NewRequest(context.Background(), job, time.Now().Unix())
	sent, _ := io.ReadAll(req.Body)
	headers := map[string]string{} // as Node's http module gives them: lower-case names
	for k := range req.Header {
		headers[strings.ToLower(k)] = req.Header.Get(k)
	}
	now := float64(time.Now().Unix())
	for _, c := range []struct {
		body []byte
		now  float64
		want string
	}{
		{sent, now, "ok"},
		{append(bytes.Clone(sent), ' '), now, "webhook: bad signature"},
		{sent, now + 3600, "webhook: timestamp too far from now (replayed?)"},
	} {
		in, _ := json.Marshal(map[string]any{"secret": secret, "headers": headers, "body": c.body, "now": c.now})
		cmd := exec.Command(node, script)
		cmd.Stdin = bytes.NewReader(in)
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != c.want {
			t.Errorf("node verifier: %q (%v), want %q", out, err, c.want)
		}
	}
}
