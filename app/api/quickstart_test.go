package api_test

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

// TestQuickstartRunsAsWritten runs docs/quickstart.md: every sh block of it, in order, in one
// bash (so the ids its commands keep reach the next ones), against a real server with the
// address and token substituted for the guide's placeholders, as .ci/readme does for the
// README. Every curl fails on an HTTP error (--fail-with-body); one with --max-time that
// times out has done what the guide says. Then the conversation the guide built is checked
// through the API: the guide cannot rot without this test failing.
func TestQuickstartRunsAsWritten(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			// Not a skip: a guide nobody runs rots. -short lets a machine without them pass.
			if testing.Short() {
				t.Skipf("%s is not installed: the quickstart needs it", tool)
			}
			t.Fatalf("%s is not installed: the quickstart test runs the guide's commands with it (apt-get install %s, or go test -short)", tool, tool)
		}
	}
	guide, err := os.ReadFile("../../docs/quickstart.md")
	if err != nil {
		t.Fatal(err)
	}
	e := apitest.New(t)
	// The server's clock follows real time, as in production: the guide's run waits out
	// assistants.debounce (1 s) while its stream is open.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		const step = 20 * time.Millisecond
		for {
			select {
			case <-stop:
				return
			case <-time.After(step):
				e.Clock.Advance(step)
			}
		}
	}()

	blocks := shBlocks(string(guide))
	if len(blocks) < 8 {
		t.Fatalf("the guide has %d sh blocks; its steps are gone", len(blocks))
	}
	script := []string{`set -euo pipefail
curl() {
  local rc=0
  command curl --fail-with-body "$@" || rc=$?
  if [ "$rc" -eq 28 ] && [[ " $* " == *" --max-time "* ]]; then return 0; fi
  return "$rc"
}`}
	for i, b := range blocks {
		if strings.TrimSpace(b) == "go run . serve" {
			continue // the server is this test's
		}
		b = strings.ReplaceAll(b, "http://127.0.0.1:8080", e.Server.URL)
		b = strings.ReplaceAll(b, "sk_...", e.AdminKey)
		script = append(script, "echo '### block "+strconv.Itoa(i)+"'", b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", strings.Join(script, "\n"))
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	shown := strings.ReplaceAll(string(out), e.AdminKey, "sk_***")
	if err != nil {
		t.Fatalf("the guide failed: %v\n%s", err, shown)
	}
	if !strings.Contains(shown, "event: message.delta") {
		t.Errorf("the guide's stream showed no message.delta:\n%s", shown)
	}

	chat := regexp.MustCompile(`chat_[A-Za-z0-9]+`).FindString(shown)
	if chat == "" {
		t.Fatalf("no chat id in the guide's output:\n%s", shown)
	}
	var c app.Chat
	e.Do("GET", "/orgs/c/chats/"+chat, e.AdminKey, nil).Expect(200).JSON(&c)
	if c.State == nil || c.State.AIEnabled || c.State.AssignedUser == nil || c.State.AssignedUser.ID != e.Owner.ID {
		t.Errorf("after the guide the chat is %+v, want AI off and the owner assigned", c.State)
	}
	var msgs []app.Message
	e.Do("GET", "/orgs/c/chats/"+chat+"/messages", e.AdminKey, nil).Expect(200).JSON(&msgs)
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.Role+":"+m.Status)
	}
	want := "user:COMPLETED assistant:COMPLETED user:COMPLETED assistant:COMPLETED admin:COMPLETED"
	if strings.Join(roles, " ") != want {
		t.Fatalf("the conversation is %v, want %s\n%s", roles, want, shown)
	}
	if answer := messageText(msgs[1]); !strings.Contains(answer, "10:00 to 14:00") {
		t.Errorf("the assistant's answer does not quote the knowledge: %q", answer)
	}
}

// shBlocks are the bodies of a Markdown text's sh code blocks, in order.
func shBlocks(md string) []string {
	var blocks []string
	var cur []string
	in := false
	for _, line := range strings.Split(md, "\n") {
		switch {
		case !in && line == "```sh":
			in, cur = true, nil
		case in && line == "```":
			in = false
			blocks = append(blocks, strings.Join(cur, "\n"))
		case in:
			cur = append(cur, line)
		}
	}
	return blocks
}

// messageText joins a message's text parts.
func messageText(m app.Message) string {
	var b strings.Builder
	for _, turn := range m.Messages {
		for _, p := range turn.Parts {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}
