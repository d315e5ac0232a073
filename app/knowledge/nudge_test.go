package knowledge_test

import (
	"net/http/httptest"
	"testing"
	"time"

	"wsapi/cli"
)

// TestProcessorIsNudged: with a tick far beyond the test, new content and a retry are still
// processed at once, because the commit that queues them nudges the processor.
func TestProcessorIsNudged(t *testing.T) {
	t.Parallel()
	site := &switchSite{status: 500}
	s := httptest.NewServer(site)
	defer s.Close()
	e := newEnv(t, func(c *cli.Config) { c.Knowledge.Tick = time.Hour })
	asst := assistant(t, e)
	// The loop's first claim may come after this content; everything after it (the URL, the
	// retry) is added while the loop waits for its tick or a nudge.
	k := addText(t, e, asst, "Policy", "The refund window is thirty days.")
	waitStatus(t, e, asst, k.ID, "PROCESSED")

	u := settle(t, e, asst, addURL(t, e, asst, s.URL+"/", 1).ID)
	if u.Status != "FAILED" {
		t.Fatalf("first crawl %+v", u)
	}
	site.set(200, "narwhals")
	retry(e, asst, u.ID).Expect(202)
	waitStatus(t, e, asst, u.ID, "PROCESSED")
}
