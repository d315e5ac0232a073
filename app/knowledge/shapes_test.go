package knowledge_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var (
	kcIDRE = regexp.MustCompile(`^kc_[0-9A-Za-z]{20,}$`)
	tsRE   = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
)

// keysOf answers the sorted keys of a JSON object.
func keysOf(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

// checkContent checks the fields every content carries, whatever its type.
func checkContent(t *testing.T, m map[string]any, typ, status string) {
	t.Helper()
	if id, _ := m["id"].(string); !kcIDRE.MatchString(id) {
		t.Errorf("id %v", m["id"])
	}
	if _, ok := m["title"].(string); !ok {
		t.Errorf("title %v", m["title"])
	}
	if m["type"] != typ || m["status"] != status {
		t.Errorf("type %v status %v, want %s %s", m["type"], m["status"], typ, status)
	}
	if c, _ := m["content"].(map[string]any); c == nil || c["type"] != typ {
		t.Errorf("content %v", m["content"])
	}
	for _, f := range []string{"size", "chunks_processed", "chunks_count"} {
		if _, ok := m[f].(float64); !ok {
			t.Errorf("%s is %v (%T), want a number", f, m[f], m[f])
		}
	}
	if v, ok := m["error"]; !ok || (status != "FAILED" && v != nil) {
		t.Errorf("error %v (present %v)", v, ok)
	}
	for _, f := range []string{"created_at", "updated_at"} {
		if s, _ := m[f].(string); !tsRE.MatchString(s) {
			t.Errorf("%s %v", f, m[f])
		}
	}
}

func TestTextContentShape(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	asst := assistant(t, e)
	text := "Opening hours are nine to five.\n\nWe are closed on Sundays."
	created := e.Do("POST", contentsPath(asst), e.AdminKey, map[string]any{"title": "Hours",
		"content": map[string]any{"type": "TEXT", "text": text}}).Expect(201).Map()
	checkContent(t, created, "TEXT", "PENDING")
	if got := keysOf(created); got != "chunks_count,chunks_processed,content,created_at,error,id,size,status,title,type,updated_at" {
		t.Fatalf("keys %s", got)
	}
	if c := created["content"].(map[string]any); keysOf(c) != "text,type" || c["text"] != text {
		t.Fatalf("content %v", c)
	}
	if created["title"] != "Hours" || created["size"] != float64(len(text)) || created["chunks_count"] != 0.0 ||
		created["error"] != nil {
		t.Fatalf("created %v", created)
	}
	id := created["id"].(string)
	settle(t, e, asst, id)
	got := e.Do("GET", contentsPath(asst)+"/"+id, e.AdminKey, nil).Expect(200).Map()
	checkContent(t, got, "TEXT", "PROCESSED")
	if got["chunks_count"] != 1.0 || got["chunks_processed"] != 1.0 || got["created_at"] != created["created_at"] {
		t.Fatalf("processed %v", got)
	}
	if _, ok := got["children"]; ok {
		t.Fatalf("TEXT content has children: %v", got)
	}
	if _, ok := got["parent_content_id"]; ok {
		t.Fatalf("top-level content has parent_content_id: %v", got)
	}
	// The list answers the same shape.
	list := e.Do("GET", contentsPath(asst), e.AdminKey, nil).Expect(200).List()
	if len(list) != 1 || keysOf(list[0]) != keysOf(got) {
		t.Fatalf("list %v", list)
	}
	e.Do("GET", contentsPath(asst)+"/kc_doesnotexist0000000000", e.AdminKey, nil).ExpectError(404, "not_found")
}

// crawlSite serves /, /a and /b, linking each other.
func crawlSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page("Home", "Welcome to the shop of alpacas.", "/a", "/b"))
	})
	for _, p := range []string{"a", "b"} {
		mux.HandleFunc("/"+p, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, page("Page "+p, "Details of section "+p+" about llamas.", "/"))
		})
	}
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func TestCrawlShapeParentAndChildren(t *testing.T) {
	t.Parallel()
	s := crawlSite(t)
	e := newEnv(t)
	asst := assistant(t, e)
	created := e.Do("POST", contentsPath(asst), e.AdminKey, map[string]any{
		"content": map[string]any{"type": "URL", "url": s.URL + "/", "max_pages": 5}}).Expect(201).Map()
	checkContent(t, created, "URL", "PENDING")
	if c := created["content"].(map[string]any); c["url"] != s.URL+"/" || c["max_pages"] != 5.0 {
		t.Fatalf("content %v", c)
	}
	if created["title"] != s.URL+"/" {
		t.Fatalf("title defaults to the URL: %v", created["title"])
	}
	id := created["id"].(string)
	settle(t, e, asst, id)
	got := e.Do("GET", contentsPath(asst)+"/"+id, e.AdminKey, nil).Expect(200).Map()
	checkContent(t, got, "URL", "PROCESSED")
	children, _ := got["children"].([]any)
	if len(children) != 2 {
		t.Fatalf("children %v", got["children"])
	}
	want := "chunks_count,chunks_processed,content,created_at,error,id,parent_content_id,size,status,title,type,updated_at"
	for i, c := range children {
		m := c.(map[string]any)
		checkContent(t, m, "URL", "PROCESSED")
		if keysOf(m) != want {
			t.Fatalf("child keys %s", keysOf(m))
		}
		if m["parent_content_id"] != id || m["size"].(float64) <= 0 || m["chunks_count"] != 1.0 ||
			m["chunks_processed"] != 1.0 {
			t.Fatalf("child %v", m)
		}
		name := []string{"a", "b"}[i]
		if m["title"] != "Page "+name || m["content"].(map[string]any)["url"] != s.URL+"/"+name {
			t.Fatalf("child %d: %v", i, m)
		}
	}
	// A child is readable on its own, with its parent's id.
	child := e.Do("GET", contentsPath(asst)+"/"+children[0].(map[string]any)["id"].(string), e.AdminKey, nil).Expect(200).Map()
	if child["parent_content_id"] != id {
		t.Fatalf("child %v", child)
	}
}

func TestDeleteRemovesChunksAndChildren(t *testing.T) {
	t.Parallel()
	s := crawlSite(t)
	e := newEnv(t)
	asst := assistant(t, e)
	parent := settle(t, e, asst, addURL(t, e, asst, s.URL+"/", 3).ID)
	text := settle(t, e, asst, addText(t, e, asst, "Zebras", "Zebras sleep standing up.\n\nZebras live in herds.").ID)
	keep := settle(t, e, asst, addText(t, e, asst, "Llamas too", "Llamas hum when they are content.").ID)
	if len(parent.Children) != 2 || len(hitsOf(search(t, e, asst, "llamas"), parent.Children[0].ID)) == 0 {
		t.Fatalf("crawl %+v", parent)
	}
	if len(search(t, e, asst, "zebras")) == 0 {
		t.Fatal("text not searchable")
	}
	e.Do("DELETE", contentsPath(asst)+"/"+text.ID, e.AdminKey, nil).Expect(204)
	e.Do("GET", contentsPath(asst)+"/"+text.ID, e.AdminKey, nil).ExpectError(404, "not_found")
	if hits := search(t, e, asst, "zebras"); len(hits) != 0 {
		t.Fatalf("deleted chunks still found: %+v", hits)
	}
	e.Do("DELETE", contentsPath(asst)+"/"+parent.ID, e.AdminKey, nil).Expect(204)
	for _, c := range parent.Children {
		e.Do("GET", contentsPath(asst)+"/"+c.ID, e.AdminKey, nil).ExpectError(404, "not_found")
	}
	for _, q := range []string{"alpacas", "llamas"} {
		for _, h := range search(t, e, asst, q) {
			if h.ContentID != keep.ID {
				t.Fatalf("%q still finds %s", q, h.ContentID)
			}
		}
	}
	if len(search(t, e, asst, "llamas")) != 1 {
		t.Fatal("the other content's chunk went too")
	}
	e.Do("DELETE", contentsPath(asst)+"/"+parent.ID, e.AdminKey, nil).ExpectError(404, "not_found")
	// Another assistant's path does not reach the content.
	other := assistant(t, e)
	e.Do("DELETE", contentsPath(other)+"/"+keep.ID, e.AdminKey, nil).ExpectError(404, "not_found")
	if k := getContent(t, e, asst, keep.ID); k.Status != "PROCESSED" {
		t.Fatalf("kept content %+v", k)
	}
}

func TestKnowledgeOutOfReach(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	asst := assistant(t, e)
	k := settle(t, e, asst, addText(t, e, asst, "Secret plan", "The plan involves marmots.").ID)
	_, subKey := e.OrgWithAdmin("Subsidiary")
	// A sub-organization's key does not reach its parent's assistants.
	for _, path := range []string{contentsPath(asst), contentsPath(asst) + "/" + k.ID,
		"/orgs/c/assistants/" + asst + "/knowledge/search?search=marmots"} {
		e.Do("GET", path, subKey, nil).ExpectError(404, "not_found")
	}
	e.Do("DELETE", contentsPath(asst)+"/"+k.ID, subKey, nil).ExpectError(404, "not_found")
	// A deleted assistant's knowledge is gone with it.
	e.Do("DELETE", "/orgs/c/assistants/"+asst, e.AdminKey, nil).Expect(204)
	for _, path := range []string{contentsPath(asst), contentsPath(asst) + "/" + k.ID,
		"/orgs/c/assistants/" + asst + "/knowledge/search?search=marmots"} {
		e.Do("GET", path, e.AdminKey, nil).ExpectError(404, "not_found")
	}
	e.Do("POST", contentsPath(asst), e.AdminKey, map[string]any{"title": "T",
		"content": map[string]any{"type": "TEXT", "text": "x"}}).ExpectError(404, "not_found")
	e.Do("POST", contentsPath(asst)+"/"+k.ID+"/retry", e.AdminKey, nil).ExpectError(404, "not_found")
	e.Do("DELETE", contentsPath(asst)+"/"+k.ID, e.AdminKey, nil).ExpectError(404, "not_found")
	// Permissions: knowledge:read reads, knowledge:write is needed to change.
	other := assistant(t, e)
	reader := e.RoleKey(e.Org.ID, "knowledge:read")
	e.Do("GET", contentsPath(other), reader, nil).Expect(200)
	e.Do("POST", contentsPath(other), reader, map[string]any{"title": "T",
		"content": map[string]any{"type": "TEXT", "text": "x"}}).ExpectError(403, "permission_denied")
	e.Do("GET", contentsPath(other), e.RoleKey(e.Org.ID, "assistants:read"), nil).ExpectError(403, "permission_denied")
}
