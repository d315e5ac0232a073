package assist_test

import (
	"strings"
	"testing"
	"time"

	"wsapi/app/apitest"
	"wsapi/cli"
)

// TestFailedRunsAndProviderErrorsAreLogged: a provider that refuses the call writes a WARN
// line for the call (status, model) and one for the run that failed (organization, chat,
// message), and neither shows the provider's API key.
func TestFailedRunsAndProviderErrorsAreLogged(t *testing.T) {
	t.Parallel()
	oa := apitest.NewOpenAIServer(t)
	oa.Reply(apitest.LLMReply{Status: 400, Message: "no such model"})
	var log apitest.LogBuffer
	e := apitest.NewLogged(t, &log, nil, func(c *cli.Config) {
		c.Assistants.Tick, c.Assistants.FlushInterval, c.Assistants.Retries = 5*time.Millisecond, 20*time.Millisecond, 0
	}, apitest.WithModelProvider("oa", "openai", oa, 5*time.Second))
	w := newWorld(t, e, e.AdminKey, "c", modelConfig("oa:m"))
	w.say(t, "user", "Hello?")
	w.debounce()
	m := w.reply(t, 1)
	if m.Status != "FAILED" {
		t.Fatalf("run ended %s", m.Status)
	}
	if l := log.Line(5*time.Second, "level=WARN", `msg="assistants: provider call failed"`, "model=oa:m", "status=400"); l == "" {
		t.Errorf("no WARN line for the provider's error:\n%s", log.String())
	}
	if l := log.Line(5*time.Second, "level=WARN", `msg="assistants: run failed"`, "chat="+w.chat, "message="+m.ID, "no such model"); l == "" {
		t.Errorf("no WARN line for the failed run:\n%s", log.String())
	}
	if strings.Contains(log.String(), apitest.TestProviderKey) {
		t.Error("the log shows the provider's API key")
	}
}
