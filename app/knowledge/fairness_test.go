package knowledge_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"wsapi/app"
)

// One organization queues many URL contents on a site that answers slowly; another
// organization's TEXT content, made after them, is still processed at once: the processor
// works on several contents at a time, claimed round-robin across organizations, and leaves
// the first one only its share. Before, it processed one content at a time, oldest first,
// so the TEXT waited for every crawl.
func TestSlowCrawlsDoNotDelayOtherOrgs(t *testing.T) {
	e := newEnv(t)
	var fetching atomic.Int32
	release := make(chan struct{})
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetching.Add(1)
		select { // slow: answers when the client gives up or the test ends
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(site.Close)
	t.Cleanup(func() { close(release) }) // runs first, so the server can close
	asst := assistant(t, e)
	for i := 0; i < 12; i++ {
		addURL(t, e, asst, fmt.Sprintf("%s/page%d", site.URL, i), 1)
	}
	e.Eventually(5*time.Second, "the slow crawls to start", func() bool { return fetching.Load() > 0 })

	other, key := e.TenantWithAdmin("Other")
	var a app.Assistant
	e.Do("POST", "/orgs/"+other.ID+"/assistants", key, map[string]any{"name": "Other helper"}).Expect(201).JSON(&a)
	path := "/orgs/" + other.ID + "/assistants/" + a.ID + "/knowledge/contents"
	start := time.Now()
	var k app.KnowledgeContent
	e.Do("POST", path, key, map[string]any{"title": "Hours",
		"content": map[string]any{"type": "TEXT", "text": "We open at nine."}}).Expect(201).JSON(&k)
	e.Eventually(2*time.Second, "the other organization's TEXT to be PROCESSED", func() bool {
		e.Do("GET", path+"/"+k.ID, key, nil).Expect(200).JSON(&k)
		return k.Status == "PROCESSED"
	})
	t.Logf("the other organization's TEXT was PROCESSED in %s beside %d slow fetches", time.Since(start), fetching.Load())
	cfg := e.Runtime.Config.Knowledge
	if n, perOrg := int(fetching.Load()), app.OrgShare(cfg.MaxInFlightPerOrg, cfg.Workers); n != perOrg {
		t.Fatalf("%d slow fetches at once, want the organization's share of %d", n, perOrg)
	}
}
