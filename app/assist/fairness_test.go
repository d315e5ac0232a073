package assist_test

import (
	"testing"
	"time"

	"wsapi/app/apitest"
	"wsapi/cli"
)

// One organization whose provider hangs cannot hold every run worker: with four workers and
// eight of its runs under way or due, another organization's run is still answered at once.
func TestRunsAreFairAcrossOrganizations(t *testing.T) {
	t.Parallel()
	hung := apitest.NewOpenAIServer(t)
	hung.Default(apitest.LLMReply{Hang: true})
	e := newEnv(t, provider("slow", "openai", hung, 30*time.Second), func(c *cli.Config) { c.Assistants.Workers = 4 })
	var x *world
	for range 8 {
		x = newWorld(t, e, e.AdminKey, "c", modelConfig("slow:gpt-4o-mini"))
		x.say(t, "user", "hello?")
	}
	x.debounce()
	e.Eventually(20*time.Second, "the hanging organization to take its share of the workers", func() bool {
		return len(hung.Requests()) == 3 // three quarters of four workers
	})
	other, otherKey := e.TenantWithAdmin("Other")
	y := newWorld(t, e, otherKey, other.ID, modelConfig("builtin:retrieval"))
	y.learn(t, "Opening hours", "The shop opens at nine.")
	y.say(t, "user", "When does the shop open?")
	y.debounce()
	started := time.Now()
	m := y.reply(t, 1)
	if m.Status != "COMPLETED" {
		t.Fatalf("the other organization's run: %s %v", m.Status, m.Error)
	}
	if waited := time.Since(started); waited > 2*time.Second {
		t.Fatalf("the other organization's run waited %s", waited)
	}
	if n := len(hung.Requests()); n != 3 {
		t.Fatalf("%d runs of the hanging organization under way, want its cap of 3", n)
	}
}
