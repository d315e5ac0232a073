package knowledge_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// newEnv starts a server whose rate limit does not get in the way of polling. The .invalid
// names that tests use for content that never loads answer "no such host" without asking DNS.
func newEnv(t *testing.T, configure ...func(*cli.Config)) *apitest.Env {
	t.Helper()
	apitest.Resolver.Set("example.invalid")
	apitest.Resolver.Set("docs.example.invalid")
	return apitest.New(t, append([]func(*cli.Config){apitest.Unlimited}, configure...)...)
}

// contentsPath is the knowledge contents collection of an assistant.
func contentsPath(asst string) string { return "/orgs/c/assistants/" + asst + "/knowledge/contents" }

// addText creates TEXT content and answers it as created (PENDING).
func addText(t *testing.T, e *apitest.Env, asst, title, text string) app.KnowledgeContent {
	t.Helper()
	var k app.KnowledgeContent
	e.Do("POST", contentsPath(asst), e.AdminKey, map[string]any{"title": title,
		"content": map[string]any{"type": "TEXT", "text": text}}).Expect(201).JSON(&k)
	return k
}

// addURL creates URL content with max_pages (0: left out).
func addURL(t *testing.T, e *apitest.Env, asst, u string, maxPages int) app.KnowledgeContent {
	t.Helper()
	content := map[string]any{"type": "URL", "url": u}
	if maxPages != 0 {
		content["max_pages"] = maxPages
	}
	var k app.KnowledgeContent
	e.Do("POST", contentsPath(asst), e.AdminKey, map[string]any{"content": content}).Expect(201).JSON(&k)
	return k
}

// upload sends a multipart FILE upload (title may be empty) and answers the response.
func upload(t *testing.T, e *apitest.Env, asst, filename, title string, data []byte) *apitest.Response {
	t.Helper()
	return e.Send(uploadRequest(t, e, asst, filename, title, data))
}

// uploadRequest is the request upload sends.
func uploadRequest(t *testing.T, e *apitest.Env, asst, filename, title string, data []byte) *http.Request {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if title != "" {
		if err := w.WriteField("title", title); err != nil {
			t.Fatal(err)
		}
	}
	fw, err := w.CreateFormFile("file", filename)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest("POST", e.Server.URL+contentsPath(asst), &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.AdminKey)
	req.Header.Set("Content-Type", w.FormDataContentType())
	return req
}

// getContent reads one content.
func getContent(t *testing.T, e *apitest.Env, asst, id string) app.KnowledgeContent {
	t.Helper()
	var k app.KnowledgeContent
	e.Do("GET", contentsPath(asst)+"/"+id, e.AdminKey, nil).Expect(200).JSON(&k)
	return k
}

// settle waits until a content is PROCESSED or FAILED and answers it.
func settle(t *testing.T, e *apitest.Env, asst, id string) app.KnowledgeContent {
	t.Helper()
	var k app.KnowledgeContent
	// A ceiling, not a wait: a nine-page crawl under -race on a machine at load average 27
	// took over 10 s (TestCrawlRespectsMaxPagesAndHost failed so in two runs of two).
	e.Eventually(30*time.Second, "content "+id+" settles", func() bool {
		k = getContent(t, e, asst, id)
		return k.Status == "PROCESSED" || k.Status == "FAILED"
	})
	return k
}

// search answers the assistant's chunks for q.
func search(t *testing.T, e *apitest.Env, asst, q string) []app.Chunk {
	t.Helper()
	var hits []app.Chunk
	e.Do("GET", "/orgs/c/assistants/"+asst+"/knowledge/search?take=100&search="+url.QueryEscape(q), e.AdminKey, nil).
		Expect(200).JSON(&hits)
	return hits
}

// hitsOf keeps the chunks of one content.
func hitsOf(hits []app.Chunk, id string) []app.Chunk {
	var out []app.Chunk
	for _, h := range hits {
		if h.ContentID == id {
			out = append(out, h)
		}
	}
	return out
}

// page answers a small HTML page with a title, a paragraph and links.
func page(title, text string, links ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<html><head><title>%s</title></head><body><p>%s</p>", title, text)
	for _, l := range links {
		fmt.Fprintf(&b, `<a href="%s">link</a> `, l)
	}
	b.WriteString("</body></html>")
	return b.String()
}

// requireNoError fails unless a content's error is null.
func requireNoError(t *testing.T, k app.KnowledgeContent) {
	t.Helper()
	if k.Error != nil {
		t.Fatalf("content %s: error %q", k.ID, *k.Error)
	}
}
