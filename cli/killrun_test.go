package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"wsapi/app/apitest"
)

// TestKilledMidRunEndsInterrupted: the real binary streams an answer from an OpenAI fake
// that stalls mid-answer; the process is killed with SIGKILL (nothing can run on the way
// out), and the next process on the same database ends the run FAILED "interrupted" with
// the text that had been written, instead of leaving it RUNNING forever.
func TestKilledMidRunEndsInterrupted(t *testing.T) {
	t.Parallel()
	oa := apitest.NewOpenAIServer(t)
	step := make(chan struct{})
	oa.Reply(apitest.LLMReply{Text: []string{"Half ", "an answer", " never sent"}, Step: step})
	dir := t.TempDir()
	db := filepath.Join(dir, "app.db")
	// Provider settings are a map (models.providers.<name>): a config file says them plainly.
	config := fmt.Sprintf(`models:
  default: oa:gpt-4o-mini
  providers:
    oa:
      type: openai
      base_url: %s
      api_key: %s
      timeout: 60s
assistants:
  tick: 20ms
  debounce: 10ms
  flush_interval: 1ms
`, oa.URL, apitest.TestProviderKey)
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, dir, db)
	token := bannerTokenRE.FindString(s.log())
	chatURL := startChat(t, s, token)
	if code, m := call(t, "POST", chatURL+"/messages", token, map[string]any{"role": "user",
		"messages": []map[string]any{{"role": "user", "parts": []map[string]any{{"type": "text", "text": "hi"}}}}}); code != 201 {
		t.Fatalf("post message: %d %v", code, m)
	}
	step <- struct{}{}
	step <- struct{}{}
	waitReply(t, chatURL, token, "RUNNING", "Half an answer")

	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	s.wait()
	s2 := startServe(t, dir, db)
	chatURL = strings.Replace(chatURL, s.addr, s2.addr, 1)
	m := waitReply(t, chatURL, token, "FAILED", "Half an answer")
	if m["error"] != "interrupted" {
		t.Fatalf("reply error %v, want interrupted", m["error"])
	}
	if code := s2.stop(); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, s2.log())
	}
}

// startChat makes an assistant, a contact and their chat in org c; it answers the chat's URL.
func startChat(t *testing.T, s *serveProc, token string) string {
	t.Helper()
	base := "http://" + s.addr + "/orgs/c"
	ids := map[string]string{}
	for _, step := range []struct {
		name, path string
		body       map[string]any
	}{
		{"assistant", "/assistants", map[string]any{"name": "Helper"}},
		{"contact", "/contacts", map[string]any{"name": "Ana",
			"channels": []map[string]any{{"type": "custom", "user_id": "ana-1"}}}},
		{"chat", "/chats", nil},
	} {
		if step.name == "chat" {
			step.body = map[string]any{"contact_id": ids["contact"], "assistant_id": ids["assistant"]}
		}
		code, m := call(t, "POST", base+step.path, token, step.body)
		if code != 201 {
			t.Fatalf("create %s: %d %v", step.name, code, m)
		}
		ids[step.name], _ = m["id"].(string)
	}
	return base + "/chats/" + ids["chat"]
}

// waitReply polls the chat until its last message is the assistant's with status and text.
func waitReply(t *testing.T, chatURL, token, status, text string) map[string]any {
	t.Helper()
	var last map[string]any
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		_, chat := call(t, "GET", chatURL, token, nil)
		last, _ = chat["last_message"].(map[string]any)
		if last != nil && last["role"] == "assistant" && last["status"] == status && messageText(last) == text {
			return last
		}
	}
	t.Fatalf("the chat's last message %v, want the assistant's %s with %q", last, status, text)
	return nil
}

// messageText joins a message's text parts.
func messageText(m map[string]any) string {
	var b strings.Builder
	turns, _ := m["messages"].([]any)
	for _, turn := range turns {
		parts, _ := turn.(map[string]any)["parts"].([]any)
		for _, p := range parts {
			text, _ := p.(map[string]any)["text"].(string)
			b.WriteString(text)
		}
	}
	return b.String()
}
