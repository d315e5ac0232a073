package knowledge_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/app/knowledge"
)

func assistant(t *testing.T, e *apitest.Env) string {
	var a app.Assistant
	e.Do("POST", "/orgs/c/assistants", e.AdminKey, map[string]any{"name": "Helper"}).Expect(201).JSON(&a)
	return a.ID
}

func waitStatus(t *testing.T, e *apitest.Env, asst, id string, want string) app.KnowledgeContent {
	var k app.KnowledgeContent
	e.Eventually(10*time.Second, "content "+want, func() bool {
		e.Do("GET", "/orgs/c/assistants/"+asst+"/knowledge/contents/"+id, e.AdminKey, nil).Expect(200).JSON(&k)
		return k.Status == want
	})
	return k
}

func TestTextIsChunkedAndSearchable(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	asst := assistant(t, e)
	text := strings.Repeat("Plain filler paragraph about nothing much at all.\n\n", 60) + "The refund window is thirty days.\n\n"
	var k app.KnowledgeContent
	e.Do("POST", "/orgs/c/assistants/"+asst+"/knowledge/contents", e.AdminKey, map[string]any{"title": "Policy",
		"content": map[string]any{"type": "TEXT", "text": text}}).Expect(201).JSON(&k)
	k = waitStatus(t, e, asst, k.ID, "PROCESSED")
	if k.ChunksCount < 3 || k.ChunksProcessed != k.ChunksCount {
		t.Fatalf("chunks %d/%d", k.ChunksProcessed, k.ChunksCount)
	}
	var hits []app.Chunk
	e.Do("GET", "/orgs/c/assistants/"+asst+"/knowledge/search?search=refund+window", e.AdminKey, nil).Expect(200).JSON(&hits)
	if len(hits) == 0 || hits[0].ContentID != k.ID || !strings.Contains(hits[0].Text, "refund window") {
		t.Fatalf("hits %+v", hits)
	}
}

func TestCrawlSameHostUpToMaxPages(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	for i := 0; i < 6; i++ {
		mux.HandleFunc(fmt.Sprintf("/p%d", i), func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<html><head><title>Page %d</title></head><body><p>Content of page %d.</p>
				<a href="/p%d">next</a> <a href="https://elsewhere.example/x">off</a></body></html>`, i, i, i+1)
		})
	}
	site := httptest.NewServer(mux)
	defer site.Close()
	e := apitest.New(t)
	asst := assistant(t, e)
	var k app.KnowledgeContent
	e.Do("POST", "/orgs/c/assistants/"+asst+"/knowledge/contents", e.AdminKey, map[string]any{
		"content": map[string]any{"type": "URL", "url": site.URL + "/p0", "max_pages": 3}}).Expect(201).JSON(&k)
	k = waitStatus(t, e, asst, k.ID, "PROCESSED")
	if len(k.Children) != 2 || k.Children[0].Title != "Page 1" || k.Children[1].Status != "PROCESSED" {
		t.Fatalf("children %+v", k.Children)
	}
	_ = knowledge.ChunkSize
}
