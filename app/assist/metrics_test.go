package assist_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"wsapi/cli"
)

// A finished run moves the operator's metrics: runs by model and outcome, tokens by kind,
// and the time to the first token, scraped from GET /metrics like Prometheus would.
func TestRunMetricsAfterARun(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *cli.Config) { c.Metrics.Token = "scrape" })
	w := newWorld(t, e, e.AdminKey, "c", nil)
	w.learn(t, "Opening hours", "Our shop is open from nine to five on weekdays.")
	w.say(t, "user", "When is the shop open?")
	w.debounce()
	m := w.reply(t, 1)
	wants := []string{
		`wsapi_assistant_runs_total{model="builtin:retrieval",outcome="COMPLETED"} 1`,
		`wsapi_assistant_tokens_total{kind="output",model="builtin:retrieval"} ` + strconv.Itoa(int(m.Usage.OutputTokens)),
		`wsapi_assistant_first_token_seconds_count{model="builtin:retrieval"} 1`,
	}
	// The worker records a run's metrics just after the commit that readers see it through.
	var body string
	w.e.Eventually(5*time.Second, "the run's metrics", func() bool {
		body = scrape(t, e.Server.URL, "scrape")
		for _, want := range wants {
			if !strings.Contains(body, want+"\n") {
				return false
			}
		}
		return true
	})
}

func scrape(t *testing.T, base, token string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return string(body)
}
