package knowledge_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

// listPage answers one page of the contents list and its next cursor.
func listPage(t *testing.T, e *apitest.Env, asst, query string) ([]app.KnowledgeContent, *apitest.Response) {
	t.Helper()
	var l []app.KnowledgeContent
	res := e.Do("GET", contentsPath(asst)+"?"+query, e.AdminKey, nil).Expect(200)
	res.JSON(&l)
	return l, res
}

func TestListPaginationByCursorAndPage(t *testing.T) {
	t.Parallel()
	s := crawlSite(t)
	e := newEnv(t)
	asst := assistant(t, e)
	crawl := settle(t, e, asst, addURL(t, e, asst, s.URL+"/", 3).ID)
	if len(crawl.Children) != 2 {
		t.Fatalf("crawl %+v", crawl)
	}
	all := map[string]app.Time{crawl.ID: crawl.CreatedAt}
	for i := 0; i < 120; i++ {
		if i%7 == 0 {
			e.Clock.Advance(time.Millisecond) // runs of equal created_at, broken by id
		}
		k := addText(t, e, asst, fmt.Sprintf("Text %03d", i), "Body.")
		all[k.ID] = k.CreatedAt
	}
	// The cursor walk: no repeat, no gap, newest first, children left out.
	var walk []app.KnowledgeContent
	next := ""
	for pages := 0; ; pages++ {
		l, res := listPage(t, e, asst, "take=50&next="+url.QueryEscape(next))
		if res.Header.Get("pagination-count") != "121" || res.Header.Get("pagination-take") != "50" {
			t.Fatalf("headers %v", res.Header)
		}
		walk = append(walk, l...)
		next = res.Header.Get("pagination-next")
		if next == "" {
			if pages != 2 || len(l) != 21 {
				t.Fatalf("last page %d holds %d", pages, len(l))
			}
			break
		}
		if len(l) != 50 || pages > 3 {
			t.Fatalf("page %d holds %d", pages, len(l))
		}
	}
	seen := map[string]bool{}
	for i, k := range walk {
		if seen[k.ID] || all[k.ID].IsZero() {
			t.Fatalf("item %d %s repeated or unknown", i, k.ID)
		}
		seen[k.ID] = true
		if i > 0 {
			p := walk[i-1]
			if p.CreatedAt.Before(k.CreatedAt.Time) || (p.CreatedAt.Equal(k.CreatedAt.Time) && p.ID < k.ID) {
				t.Fatalf("order broken at %d", i)
			}
		}
	}
	if len(seen) != len(all) {
		t.Fatalf("walk saw %d of %d", len(seen), len(all))
	}
	// page/take answer the same sequence.
	var paged []app.KnowledgeContent
	for p := 1; p <= 3; p++ {
		l, res := listPage(t, e, asst, fmt.Sprintf("page=%d&take=50", p))
		if res.Header.Get("pagination-page") != fmt.Sprint(p) || (p == 3) != (res.Header.Get("pagination-next") == "") {
			t.Fatalf("page %d headers %v", p, res.Header)
		}
		paged = append(paged, l...)
	}
	if len(paged) != len(walk) {
		t.Fatalf("pages hold %d", len(paged))
	}
	for i := range paged {
		if paged[i].ID != walk[i].ID {
			t.Fatalf("page and cursor differ at %d", i)
		}
	}
	// The next of a page/take page continues after it.
	_, res := listPage(t, e, asst, "page=2&take=50")
	l, _ := listPage(t, e, asst, "take=50&next="+url.QueryEscape(res.Header.Get("pagination-next")))
	if len(l) != 21 || l[0].ID != walk[100].ID {
		t.Fatalf("cursor after page 2 starts at %v", l[0].ID)
	}
	for _, bad := range []string{"take=101", "take=0", "page=0", "next=garbage", "next=" + url.QueryEscape("eyJ4Ijoy")} {
		e.DoInvalid("GET", contentsPath(asst)+"?"+bad, e.AdminKey, nil).ExpectError(400, "invalid_argument", strings.Split(bad, "=")[0])
	}
}

func TestListFilters(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	asst := assistant(t, e)
	text := settle(t, e, asst, addText(t, e, asst, "Refund policy", "Refunds within thirty days.").ID)
	var file app.KnowledgeContent
	upload(t, e, asst, "faq_50%.txt", "", []byte("Questions and answers.")).Expect(201).JSON(&file)
	file = settle(t, e, asst, file.ID)
	var failed app.KnowledgeContent
	upload(t, e, asst, "empty.md", "Blank", []byte(" ")).Expect(201).JSON(&failed)
	failed = settle(t, e, asst, failed.ID)
	pending := addURL(t, e, asst, "https://docs.example.invalid/refund", 1) // fails later; filtered while it lasts
	if failed.Status != "FAILED" || file.Status != "PROCESSED" {
		t.Fatalf("setup %+v %+v", file, failed)
	}
	ids := func(query string) string {
		l, res := listPage(t, e, asst, query)
		var out []string
		for _, k := range l {
			out = append(out, k.ID)
		}
		if res.Header.Get("pagination-count") != fmt.Sprint(len(l)) {
			t.Fatalf("%s: count %s for %d", query, res.Header.Get("pagination-count"), len(l))
		}
		return strings.Join(out, ",")
	}
	cases := map[string]string{
		"type=TEXT":                          text.ID,
		"type=FILE":                          failed.ID + "," + file.ID,
		"type=URL":                           pending.ID,
		"type=ALL&status=ALL":                pending.ID + "," + failed.ID + "," + file.ID + "," + text.ID,
		"status=PROCESSED&type=FILE":         file.ID,
		"search=REFUND":                      pending.ID + "," + text.ID, // title or URL, any case
		"search=refund&type=TEXT":            text.ID,
		"search=50%25":                       file.ID, // % is a literal
		"search=_":                           file.ID, // so is _
		"search=nothing+like+this":           "",
		"search=" + strings.Repeat("é", 256): "",
	}
	// Order is checked by the pagination test; here the sets matter.
	e.Eventually(10*time.Second, "the URL content fails", func() bool {
		return getContent(t, e, asst, pending.ID).Status == "FAILED"
	})
	cases["status=FAILED"] = pending.ID + "," + failed.ID
	for q, want := range cases {
		if got := ids(q); !sameSet(got, want) {
			t.Errorf("%s: got %s, want %s", q, got, want)
		}
	}
	for _, bad := range []string{"search=" + strings.Repeat("é", 257), "type=PDF", "type=text", "status=DONE"} {
		e.DoInvalid("GET", contentsPath(asst)+"?"+bad, e.AdminKey, nil).ExpectError(400, "invalid_argument", strings.Split(bad, "=")[0])
	}
	e.Do("GET", contentsPath("asst_unknown00000000000000"), e.AdminKey, nil).ExpectError(404, "not_found")
}

func sameSet(a, b string) bool {
	as, bs := strings.Split(a, ","), strings.Split(b, ",")
	if len(as) != len(bs) {
		return false
	}
	m := map[string]bool{}
	for _, x := range as {
		m[x] = true
	}
	for _, x := range bs {
		if !m[x] {
			return false
		}
	}
	return true
}

func TestSearchRankingScopeAndBounds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	asst := assistant(t, e)
	once := settle(t, e, asst, addText(t, e, asst, "Once", "The quokka lives on an island near the city of Perth in Australia.").ID)
	often := settle(t, e, asst, addText(t, e, asst, "Often", "Quokka quokka. The quokka smiles; a quokka is a small quokka.").ID)
	other := assistant(t, e)
	settle(t, e, other, addText(t, e, other, "Other", "Quokka quokka quokka quokka quokka quokka.").ID)
	org, key := e.OrgWithAdmin("Elsewhere")
	var foreign app.Assistant
	e.Do("POST", "/orgs/"+org.ID+"/assistants", key, map[string]any{"name": "Foreign"}).Expect(201).JSON(&foreign)
	e.Do("POST", "/orgs/"+org.ID+"/assistants/"+foreign.ID+"/knowledge/contents", key, map[string]any{"title": "F",
		"content": map[string]any{"type": "TEXT", "text": "Quokka quokka quokka quokka."}}).Expect(201)

	hits := search(t, e, asst, "quokka")
	if len(hits) != 2 || hits[0].ContentID != often.ID || hits[1].ContentID != once.ID || hits[0].Score <= hits[1].Score {
		t.Fatalf("ranking %+v", hits)
	}
	if hits[0].Title != "Often" || hits[0].Position != 0 || !strings.Contains(hits[0].Text, "smiles") {
		t.Fatalf("hit %+v", hits[0])
	}
	// Prefix match per word, all words required.
	if h := search(t, e, asst, "quok island"); len(h) != 1 || h[0].ContentID != once.ID {
		t.Fatalf("prefix search %+v", h)
	}
	var few []app.Chunk
	e.Do("GET", "/orgs/c/assistants/"+asst+"/knowledge/search?take=1&search=quokka", e.AdminKey, nil).Expect(200).JSON(&few)
	if len(few) != 1 || few[0].ContentID != often.ID {
		t.Fatalf("take=1 %+v", few)
	}
	// The parent org's key reaches the sub-org; the sub-org's content stays with its assistant.
	e.Do("GET", "/orgs/"+org.ID+"/assistants/"+asst+"/knowledge/search?search=quokka", key, nil).ExpectError(404, "not_found")
	e.Do("GET", "/orgs/c/assistants/"+foreign.ID+"/knowledge/search?search=quokka", key, nil).Expect(200)
	for _, q := range []string{`"quokka`, "quokka OR", "NEAR(quokka)", "*", "!!!", "quokka AND -x"} {
		e.Do("GET", "/orgs/c/assistants/"+asst+"/knowledge/search?search="+url.QueryEscape(q), e.AdminKey, nil).Expect(200)
	}
	path := "/orgs/c/assistants/" + asst + "/knowledge/search"
	e.Do("GET", path+"?search="+strings.Repeat("é", 256), e.AdminKey, nil).Expect(200)
	e.DoInvalid("GET", path+"?search="+strings.Repeat("é", 257), e.AdminKey, nil).ExpectError(400, "invalid_argument", "search")
	e.DoInvalid("GET", path+"?search=", e.AdminKey, nil).ExpectError(400, "invalid_argument", "search")
	e.DoInvalid("GET", path, e.AdminKey, nil).ExpectError(400, "invalid_argument", "search")
	e.DoInvalid("GET", path+"?search=x&take=101", e.AdminKey, nil).ExpectError(400, "invalid_argument", "take")
}
