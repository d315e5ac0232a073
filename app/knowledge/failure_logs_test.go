package knowledge_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"wsapi/app/apitest"
)

// TestFailedKnowledgeIsLogged: a URL whose fetch fails makes the content FAILED and writes
// a WARN line naming the organization, assistant, content and the reason.
func TestFailedKnowledgeIsLogged(t *testing.T) {
	t.Parallel()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "gone", http.StatusGone) }))
	defer s.Close()
	var log apitest.LogBuffer
	e := apitest.NewLogged(t, &log, nil, apitest.Unlimited)
	asst := assistant(t, e)
	k := settle(t, e, asst, addURL(t, e, asst, s.URL+"/doc", 1).ID)
	if k.Status != "FAILED" {
		t.Fatalf("content %s", k.Status)
	}
	if l := log.Line(5*time.Second, "level=WARN", `msg="knowledge: content failed"`, "org="+e.Org.ID, "assistant="+asst,
		"content="+k.ID, "type=URL", "410"); l == "" {
		t.Fatalf("no WARN line for the failed content:\n%s", log.String())
	}
}
