package api_test

import (
	neturl "net/url"
	"sort"
	"strconv"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

// ctMemories creates n memories with few distinct importances and timestamps, so that
// every level of the sort order (importance, created_at, id) decides somewhere, and answers
// them in the order the list must show.
func ctMemories(e *apitest.Env, contactID string, n int) []app.Memory {
	e.T.Helper()
	importances := []float64{0.9, 0.5, 0.5, 0.1, 0.3, 1, 0, 0.5}
	var all []app.Memory
	for i := range n {
		if i%3 == 0 { // three memories share each timestamp
			e.Clock.Advance(time.Millisecond)
		}
		var m app.Memory
		e.Do("POST", "/orgs/c/contacts/"+contactID+"/memories", e.AdminKey, map[string]any{
			"type": app.MemoryTypes[i%4], "importance": importances[i%len(importances)], "content": "memory " + strconv.Itoa(i),
		}).Expect(201).JSON(&m)
		all = append(all, m)
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.Importance != b.Importance {
			return a.Importance > b.Importance
		}
		if !a.CreatedAt.Equal(b.CreatedAt.Time) {
			return a.CreatedAt.After(b.CreatedAt.Time)
		}
		return a.ID > b.ID
	})
	return all
}

// ctMemoryPage lists one page and answers its ids and pagination-next.
func ctMemoryPage(e *apitest.Env, path string) ([]string, string, *apitest.Response) {
	e.T.Helper()
	res := e.Do("GET", path, e.AdminKey, nil).Expect(200)
	var ms []app.Memory
	res.JSON(&ms)
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	return ids, res.Header.Get("pagination-next"), res
}

func TestMemoriesCursorWalk(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	id := ctNamed(e, "Well known")
	other := ctNamed(e, "Other")
	e.Do("POST", "/orgs/c/contacts/"+other+"/memories", e.AdminKey, map[string]any{"type": "FACT", "importance": 0.5, "content": "x"}).Expect(201)
	want := ctMemories(e, id, 250)
	base := "/orgs/c/contacts/" + id + "/memories"

	var got []string
	next := ""
	for page := 1; ; page++ {
		if page > 3 {
			t.Fatalf("more than three pages of 100 for 250 memories")
		}
		path := base + "?take=100"
		if next != "" {
			path += "&next=" + neturl.QueryEscape(next)
		}
		ids, n, res := ctMemoryPage(e, path)
		if res.Header.Get("pagination-count") != "250" || res.Header.Get("pagination-take") != "100" {
			t.Errorf("page %d headers: count %s, take %s", page, res.Header.Get("pagination-count"), res.Header.Get("pagination-take"))
		}
		wantLen := map[int]int{1: 100, 2: 100, 3: 50}[page]
		if len(ids) != wantLen {
			t.Fatalf("page %d has %d memories, want %d", page, len(ids), wantLen)
		}
		got = append(got, ids...)
		if page < 3 && n == "" {
			t.Fatalf("page %d: empty pagination-next", page)
		}
		if page == 3 {
			if n != "" {
				t.Errorf("last page: pagination-next %q, want empty", n)
			}
			break
		}
		next = n
	}
	ctSameOrder(t, "cursor walk", got, want)

	// page/take mode walks the same order.
	var paged []string
	for page := 1; page <= 3; page++ {
		ids, _, res := ctMemoryPage(e, base+"?take=100&page="+strconv.Itoa(page))
		if res.Header.Get("pagination-page") != strconv.Itoa(page) {
			t.Errorf("pagination-page %q, want %d", res.Header.Get("pagination-page"), page)
		}
		paged = append(paged, ids...)
	}
	ctSameOrder(t, "page/take walk", paged, want)
	if ids, n, _ := ctMemoryPage(e, base+"?take=100&page=4"); len(ids) != 0 || n != "" {
		t.Errorf("page past the end: %d memories, next %q", len(ids), n)
	}

	// Smaller pages across the runs of equal importance and equal timestamps.
	got, next = nil, ""
	for range 100 {
		path := base + "?take=7"
		if next != "" {
			path += "&next=" + neturl.QueryEscape(next)
		}
		ids, n, _ := ctMemoryPage(e, path)
		got = append(got, ids...)
		if next = n; next == "" {
			break
		}
	}
	ctSameOrder(t, "take=7 walk", got, want)

	// The default page is 100, most important first.
	if ids, _, _ := ctMemoryPage(e, base); len(ids) != 100 || ids[0] != want[0].ID {
		t.Errorf("default page: %d memories, first %v", len(ids), ids[:1])
	}
	e.Do("GET", base+"?next=not-a-cursor", e.AdminKey, nil).ExpectError(400, "invalid_argument", "next")
	e.DoInvalid("GET", base+"?take=101", e.AdminKey, nil).ExpectError(400, "invalid_argument", "take")
}

func TestMemoriesCursorSeesNewMemoriesOnlyAfterIt(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited)
	id := ctNamed(e, "Growing")
	want := ctMemories(e, id, 6)
	base := "/orgs/c/contacts/" + id + "/memories"
	ids, next, _ := ctMemoryPage(e, base+"?take=3")
	ctSameOrder(t, "first page", ids, want[:3])
	// A memory more important than everything lands before the cursor: the walk neither
	// repeats nor skips what the first page did not show.
	e.Do("POST", base, e.AdminKey, map[string]any{"type": "GOAL", "importance": 1, "content": "new top"}).Expect(201)
	rest, last, _ := ctMemoryPage(e, base+"?take=3&next="+neturl.QueryEscape(next))
	ctSameOrder(t, "second page", rest, want[3:])
	if last != "" {
		t.Errorf("pagination-next %q on the last page", last)
	}
}

func ctSameOrder(t *testing.T, what string, got []string, want []app.Memory) {
	t.Helper()
	seen := map[string]bool{}
	for _, id := range got {
		if seen[id] {
			t.Errorf("%s: %s repeated", what, id)
		}
		seen[id] = true
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d memories, want %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i].ID {
			t.Fatalf("%s: position %d is %s, want %s (importance %v, created_at %s)", what, i, got[i], want[i].ID,
				want[i].Importance, want[i].CreatedAt)
		}
	}
}
