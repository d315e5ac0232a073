package knowledge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/app/knowledge"
	"wsapi/cli"
)

// switchSite serves / (linking /child) and /child with a status and words a test changes.
type switchSite struct {
	mu     sync.Mutex
	status int
	word   string
}

func (s *switchSite) set(status int, word string) {
	s.mu.Lock()
	s.status, s.word = status, word
	s.mu.Unlock()
}

func (s *switchSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	status, word := s.status, s.word
	s.mu.Unlock()
	if status != 200 {
		http.Error(w, "down", status)
		return
	}
	w.Header().Set("Content-Type", "text/html")
	if r.URL.Path == "/child" {
		fmt.Fprint(w, page("Child", "The child page talks of "+word+" as well."))
		return
	}
	fmt.Fprint(w, page("Root", "The root page talks of "+word+".", "/child"))
}

func retry(e *apitest.Env, asst, id string) *apitest.Response {
	return e.Do("POST", contentsPath(asst)+"/"+id+"/retry", e.AdminKey, nil)
}

func TestRetryFailedThenRecrawl(t *testing.T) {
	t.Parallel()
	site := &switchSite{status: 500}
	s := httptest.NewServer(site)
	defer s.Close()
	e := newEnv(t)
	asst := assistant(t, e)
	k := settle(t, e, asst, addURL(t, e, asst, s.URL+"/", 5).ID)
	if k.Status != "FAILED" || k.Error == nil || !strings.Contains(*k.Error, "500") {
		t.Fatalf("first run %+v", k)
	}
	site.set(200, "narwhals")
	var queued app.KnowledgeContent
	retry(e, asst, k.ID).Expect(202).JSON(&queued)
	if queued.Status != "PENDING" || queued.Error != nil || queued.ID != k.ID {
		t.Fatalf("retry answered %+v", queued)
	}
	k = settle(t, e, asst, k.ID)
	requireNoError(t, k)
	if k.Status != "PROCESSED" || len(k.Children) != 1 || len(search(t, e, asst, "narwhals")) != 2 {
		t.Fatalf("retried %+v", k)
	}
	oldChild := k.Children[0].ID

	// A PROCESSED URL content is re-crawled: the new text replaces the old, children included.
	site.set(200, "walruses")
	retry(e, asst, k.ID).Expect(202)
	k = settle(t, e, asst, k.ID)
	requireNoError(t, k)
	if k.Status != "PROCESSED" || len(k.Children) != 1 || k.Children[0].ID == oldChild || k.ChunksCount != 1 ||
		k.ChunksProcessed != 1 {
		t.Fatalf("re-crawl %+v", k)
	}
	if hits := search(t, e, asst, "narwhals"); len(hits) != 0 {
		t.Fatalf("old text still found: %+v", hits)
	}
	if hits := search(t, e, asst, "walruses"); len(hits) != 2 {
		t.Fatalf("new text found %d times", len(hits))
	}
	e.Do("GET", contentsPath(asst)+"/"+oldChild, e.AdminKey, nil).ExpectError(404, "not_found")

	// A child is retried through its parent.
	retry(e, asst, k.Children[0].ID).ExpectError(409, "conflict")
	// A PROCESSED TEXT has nothing to refresh.
	text := settle(t, e, asst, addText(t, e, asst, "Note", "Nothing to refresh here.").ID)
	retry(e, asst, text.ID).ExpectError(409, "conflict")
	retry(e, asst, "kc_unknown000000000000000").ExpectError(404, "not_found")
	retry(e, assistant(t, e), text.ID).ExpectError(404, "not_found")
}

func TestRetryFailedFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	asst := assistant(t, e)
	var k app.KnowledgeContent
	upload(t, e, asst, "blank.md", "", []byte("\n\n   \n")).Expect(201).JSON(&k)
	k = settle(t, e, asst, k.ID)
	if k.Status != "FAILED" {
		t.Fatalf("blank %+v", k)
	}
	retry(e, asst, k.ID).Expect(202)
	k = settle(t, e, asst, k.ID)
	if k.Status != "FAILED" || k.Error == nil || k.Content.Filename != "blank.md" {
		t.Fatalf("retried file %+v", k)
	}
}

// call sends a JSON request to a bare handler server with a key.
func call(t *testing.T, base, key, method, path string, body any, out any) {
	t.Helper()
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, base+path, bytes.NewReader(data))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode >= 300 {
		t.Fatalf("%s %s: %d", method, path, res.StatusCode)
	}
	if err := json.NewDecoder(res.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
}

func TestProcessingResumesAfterACrash(t *testing.T) {
	// Not parallel: its waits (leases, restarts) have tight ceilings under -race.
	dir := t.TempDir()
	dbPath, keyFile := filepath.Join(dir, "test.db"), filepath.Join(dir, "app.key")
	cfg := cli.DefaultConfig()
	cfg.DB.Path, cfg.Secrets.KeyFile = dbPath, keyFile
	ctx := context.Background()
	// The first process: its workers never run; the test does the processor's first steps.
	rt, err := cli.Build(ctx, cfg, cli.Options{Clock: app.NewManualClock(apitest.Start), Resolver: apitest.Resolver})
	if err != nil {
		t.Fatal(err)
	}
	nk, _, err := rt.Service.Bootstrap(ctx, "first")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rt.Handler)
	var asst app.Assistant
	call(t, srv.URL, nk.Token, "POST", "/orgs/c/assistants", map[string]any{"name": "Helper"}, &asst)
	var paras []string
	// About 27 chunks, 12 saved before the crash (it was 130 paragraphs and 50 saved: more
	// chunks to index under -race in a test that runs alone, for the same proof).
	for i := 0; i < 60; i++ {
		paras = append(paras, paragraph(fmt.Sprintf("unique%03d", i), 450))
	}
	text := strings.Join(paras, "\n\n")
	chunks := knowledge.Chunk(text, knowledge.ChunkSize)
	var k app.KnowledgeContent
	call(t, srv.URL, nk.Token, "POST", contentsPath(asst.ID), map[string]any{"title": "Big",
		"content": map[string]any{"type": "TEXT", "text": text}}, &k)
	ks, err := rt.Service.ClaimKnowledge(ctx, app.ClaimRoom{Limit: 1})
	if err != nil || len(ks) != 1 || ks[0].ID != k.ID || ks[0].Status != "PROCESSING" {
		t.Fatalf("claim %v %+v", err, ks)
	}
	claimed := ks[0]
	if err := rt.Service.SetChunkTotal(ctx, &claimed, len(chunks)); err != nil {
		t.Fatal(err)
	}
	if err := rt.Service.SaveChunks(ctx, &claimed, chunks[:12]); err != nil {
		t.Fatal(err)
	}
	// Nothing else can claim it while the lease holds.
	if ks, _ := rt.Service.ClaimKnowledge(ctx, app.ClaimRoom{Limit: 1}); len(ks) > 0 {
		t.Fatal("a leased content was claimed twice")
	}
	srv.Close()
	if err := rt.Close(); err != nil { // the crash: the content stays PROCESSING with its lease
		t.Fatal(err)
	}

	e := newEnv(t, func(c *cli.Config) { c.DB.Path, c.Secrets.KeyFile = dbPath, keyFile })
	e.WaitIdle() // a claim after the start found nothing due
	got := getContent(t, e, asst.ID, k.ID)
	if got.Status != "PROCESSING" || got.ChunksProcessed != 12 || got.ChunksCount != len(chunks) {
		t.Fatalf("before the lease ends %+v", got)
	}
	e.Clock.Advance(app.KnowledgeLease - time.Second)
	e.WaitIdle()
	if got = getContent(t, e, asst.ID, k.ID); got.Status != "PROCESSING" {
		t.Fatalf("taken before the lease ended: %+v", got)
	}
	e.Clock.Advance(2 * time.Second)
	got = settle(t, e, asst.ID, k.ID)
	requireNoError(t, got)
	if got.Status != "PROCESSED" || got.ChunksCount != len(chunks) || got.ChunksProcessed != len(chunks) {
		t.Fatalf("after resume %+v, want %d chunks", got, len(chunks))
	}
	for _, q := range []string{"unique000", "unique030", "unique059"} {
		if hits := search(t, e, asst.ID, q); len(hits) != 1 {
			t.Fatalf("%s found %d times", q, len(hits))
		}
	}
	var stored int
	err = e.Runtime.DB.Read(ctx, func(tx app.Tx) error {
		cs, err := tx.SearchChunks(e.Org.ID, asst.ID, "word1", 1000)
		stored = len(cs)
		return err
	})
	if err != nil || stored != len(chunks) {
		t.Fatalf("%d chunks stored, want %d (%v)", stored, len(chunks), err)
	}
}
