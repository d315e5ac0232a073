package mail_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

// listTake is the page size of every walk: a third of the set, so each walk crosses pages.
const listTake = 50

// walk follows pagination-next from the first page of query and answers every item, failing
// on a page over take or a count header that disagrees.
func walk(t *testing.T, e *apitest.Env, query string) []map[string]any {
	t.Helper()
	var all []map[string]any
	next, count := "", ""
	for pages := 0; ; pages++ {
		q := query + "&take=" + fmt.Sprint(listTake)
		if next != "" {
			q += "&next=" + url.QueryEscape(next)
		}
		res := e.Do("GET", "/orgs/c/broadcasts/recipients?"+q, e.AdminKey, nil).Expect(200)
		l := res.List()
		if len(l) > listTake || pages > 10 {
			t.Fatalf("%s: page of %d, %d pages", query, len(l), pages)
		}
		if count != "" && res.Header.Get("pagination-count") != count {
			t.Fatalf("%s: pagination-count changed from %s to %s", query, count, res.Header.Get("pagination-count"))
		}
		count = res.Header.Get("pagination-count")
		all = append(all, l...)
		next = res.Header.Get("pagination-next")
		if next == "" {
			break
		}
		if len(l) != listTake {
			t.Fatalf("%s: short page of %d with a next cursor", query, len(l))
		}
	}
	if count != fmt.Sprint(len(all)) {
		t.Fatalf("%s: pagination-count %s, walked %d", query, count, len(all))
	}
	return all
}

func ids(l []map[string]any) []string {
	out := make([]string, len(l))
	for i, r := range l {
		out[i] = str(r, "id")
	}
	return out
}

// setContacts is how many contacts the big broadcast goes to (with the handle, setContacts+1
// recipients; with the small broadcast's two, setRecipients in all): three pages of listTake.
// It was 250 with pages of 100; every walk's pages are validated against the API document,
// and under -race the walks of 250 were 216 s of app/mail's 290 (load average 27).
const (
	setContacts   = 120
	setRecipients = setContacts + 3
)

// recipientSet builds a broadcast of setContacts+1 custom recipients plus a small email
// broadcast with one skipped and one sent recipient, and sets every event flag on some
// recipients.
func recipientSet(t *testing.T) (*emailSetup, app.Broadcast, app.Broadcast, app.Contact) {
	s := newEmailSetup(t, manyRequests)
	e := s.e
	var seg app.Segment
	e.Do("POST", "/orgs/c/segments", e.AdminKey, map[string]any{"name": "Many"}).Expect(201).JSON(&seg)
	var items []map[string]string
	for i := range setContacts {
		items = append(items, map[string]string{"email": fmt.Sprintf("u%03d@dest.test", i), "user_id": fmt.Sprintf("uid-%03d", i),
			"name": fmt.Sprintf("User %03d", i)})
	}
	e.Do("POST", "/orgs/c/contacts/bulk", e.AdminKey, map[string]any{"channels": items, "segment_ids": []string{seg.ID}}).Expect(200)
	var handle app.Contact
	e.Do("POST", "/orgs/c/contacts", e.AdminKey, map[string]any{"name": "Handle", "segment_ids": []string{seg.ID},
		"channels": []map[string]string{{"type": "custom", "username": "the_handle", "email": "Handle@Dest.test"}}}).Expect(201).JSON(&handle)
	var big app.Broadcast
	e.Do("POST", "/orgs/c/broadcasts", e.AdminKey, map[string]any{"name": "Big", "integration_id": "custom", "text": "x",
		"segment_ids": []string{seg.ID}}).Expect(201).JSON(&big)
	if big.Counts.Recipients != setContacts+1 {
		t.Fatalf("big broadcast %+v", big.Counts)
	}
	types := []string{"sent", "delivered", "bounced", "complained", "opened", "played", "failed", "unsubscribed", "sent", "opened"}
	for i, typ := range types {
		e.Clock.Advance(time.Second)
		r := recipients(t, e, fmt.Sprintf("broadcast_id=%s&user_id=uid-%03d", big.ID, 5+i*setContacts/len(types)))[0]
		postEvent(e, str(r, "id"), map[string]any{"type": typ}).Expect(200)
	}
	e.Clock.Advance(time.Second)
	skip, send := s.contact(t, "Skip", "skip@dest.test"), s.contact(t, "Send", "send@dest.test")
	e.Do("PATCH", "/orgs/c/contacts/"+skip.ID, e.AdminKey, map[string]any{"blocked": true}).Expect(200)
	small := s.broadcast(t, skip, send)
	waitBroadcast(t, e, small.ID, app.BroadcastSent)
	return s, big, small, handle
}

// TestRecipientList runs the filter and order checks on one shared set of recipients:
// building it (the contacts, a broadcast, its events) is much of the cost, and the checks
// only read it. The subtests run one after the other; neither changes the set until the
// filters' last step, which adds another organization and reads nothing of c's.
func TestRecipientList(t *testing.T) {
	t.Parallel()
	s, big, small, handle := recipientSet(t)
	// Each subtest drives the server as itself, so a failed call fails the subtest.
	on := func(t *testing.T) *apitest.Env {
		e := *s.e
		e.T = t
		return &e
	}
	t.Run("SortAndCursor", func(t *testing.T) { recipientSortAndCursor(t, on(t), big) })
	t.Run("Filters", func(t *testing.T) { recipientFilters(t, on(t), big, small, handle) })
}

func recipientFilters(t *testing.T, e *apitest.Env, big, small app.Broadcast, handle app.Contact) {
	all := walk(t, e, "status=ALL")
	if len(all) != setRecipients {
		t.Fatalf("%d recipients", len(all))
	}
	type check struct {
		query string
		keep  func(r map[string]any) bool
	}
	checks := []check{
		{"status=SENDING", func(r map[string]any) bool { return r["status"] == "SENDING" }},
		{"status=PROCESSED", func(r map[string]any) bool { return r["status"] == "PROCESSED" }},
		{"integration_id=email", func(r map[string]any) bool { return r["integration_id"] == "email" }},
		{"integration_id=custom", func(r map[string]any) bool { return r["integration_id"] == "custom" }},
		{"integration_id=internal", func(r map[string]any) bool { return false }},
		{"broadcast_id=" + small.ID, func(r map[string]any) bool { return r["broadcast_id"] == small.ID }},
		{"broadcast_id=" + big.ID, func(r map[string]any) bool { return r["broadcast_id"] == big.ID }},
		{"broadcast_id=bc_nothere", func(r map[string]any) bool { return false }},
		{"contact_id=" + handle.ID, func(r map[string]any) bool { return r["contact"].(map[string]any)["id"] == handle.ID }},
		{"user_id=uid-042", func(r map[string]any) bool { return r["user_id"] == "uid-042" }},
		{"username=the_handle", func(r map[string]any) bool { return r["username"] == "the_handle" }},
		{"email=handle@dest.TEST", func(r map[string]any) bool { return r["email"] == "Handle@Dest.test" }},
		{"email=u007@dest.test", func(r map[string]any) bool { return r["email"] == "u007@dest.test" }},
		{"status=SENDING&broadcast_id=" + small.ID, func(r map[string]any) bool { return false }},
		{"is_sent=true&is_opened=true", func(r map[string]any) bool { return isTrue(r, "sent") && isTrue(r, "opened") }},
	}
	for _, flag := range app.RecipientFlags {
		checks = append(checks,
			check{"is_" + flag + "=true", func(r map[string]any) bool { return isTrue(r, flag) }},
			check{"is_" + flag + "=false", func(r map[string]any) bool { return !isTrue(r, flag) }},
			check{"is_" + flag + "=true&status=PROCESSED&broadcast_id=" + big.ID, func(r map[string]any) bool {
				return isTrue(r, flag) && r["status"] == "PROCESSED" && r["broadcast_id"] == big.ID
			}})
	}
	for _, c := range checks {
		var want []string
		for _, r := range all {
			if c.keep(r) {
				want = append(want, str(r, "id"))
			}
		}
		got := ids(walk(t, e, c.query))
		if !slices.Equal(got, want) {
			t.Fatalf("%s: %d recipients %v, want %d %v", c.query, len(got), got, len(want), want)
		}
		if strings.HasSuffix(c.query, "=true") && strings.HasPrefix(c.query, "is_") && !strings.Contains(c.query, "&") && len(want) == 0 {
			t.Fatalf("%s matches nothing: the check proves nothing", c.query)
		}
	}
	for _, bad := range []string{"status=DONE", "is_sent=yes", "is_opened=1", "integration_id=nope", "sort_field=name",
		"sort_field=id", "sort_direction=up", "sort_direction=DESC", "take=101", "take=0", "page=0", "next=garbage"} {
		field := strings.SplitN(bad, "=", 2)[0]
		e.DoInvalid("GET", "/orgs/c/broadcasts/recipients?"+bad, e.AdminKey, nil).ExpectError(400, "invalid_argument", field)
	}
	// Another organization lists none of these.
	_, otherKey := e.OrgWithAdmin("Other")
	if l := e.Do("GET", "/orgs/c/broadcasts/recipients", otherKey, nil).Expect(200).List(); len(l) != 0 {
		t.Fatalf("other org lists %d", len(l))
	}
	if l := e.Do("GET", "/orgs/c/broadcasts/recipients?broadcast_id="+big.ID, otherKey, nil).Expect(200).List(); len(l) != 0 {
		t.Fatalf("other org lists %d", len(l))
	}
}

func recipientSortAndCursor(t *testing.T, e *apitest.Env, big app.Broadcast) {
	var ref []string
	for _, field := range []string{"created_at", "updated_at"} {
		for _, dir := range []string{"asc", "desc"} {
			q := "sort_field=" + field + "&sort_direction=" + dir
			l := walk(t, e, q)
			got := ids(l)
			if len(got) != setRecipients {
				t.Fatalf("%s: %d recipients", q, len(got))
			}
			seen := map[string]bool{}
			for _, id := range got {
				if seen[id] {
					t.Fatalf("%s: %s twice", q, id)
				}
				seen[id] = true
			}
			if ref == nil {
				ref = slices.Sorted(func(yield func(string) bool) {
					for id := range seen {
						if !yield(id) {
							return
						}
					}
				})
			}
			if !slices.Equal(slices.Sorted(slices.Values(got)), ref) {
				t.Fatalf("%s: not the same recipients", q)
			}
			// The order is (field, id) in the direction asked.
			for i := 1; i < len(l); i++ {
				a, b := str(l[i-1], field)+str(l[i-1], "id"), str(l[i], field)+str(l[i], "id")
				if (dir == "asc" && a >= b) || (dir == "desc" && a <= b) {
					t.Fatalf("%s: %s before %s", q, a, b)
				}
			}
			// Page numbers give the same order as the cursor.
			var byPage []string
			for page := 1; page <= 3; page++ {
				byPage = append(byPage, ids(e.Do("GET", fmt.Sprintf("/orgs/c/broadcasts/recipients?%s&take=%d&page=%d", q, listTake, page), e.AdminKey, nil).Expect(200).List())...)
			}
			if !slices.Equal(byPage, got) {
				t.Fatalf("%s: pages and cursor disagree", q)
			}
		}
	}
	// Default order is created_at ascending.
	if got, want := ids(walk(t, e, "")), ids(walk(t, e, "sort_field=created_at&sort_direction=asc")); !slices.Equal(got, want) {
		t.Fatalf("default order differs")
	}
	// A cursor walk with a filter sees exactly the filtered set, and the last page has no next.
	l := walk(t, e, "broadcast_id="+big.ID+"&status=SENDING&sort_direction=desc")
	if len(l) != setContacts+1-10 { // the ten with an event are PROCESSED
		t.Fatalf("%d sending", len(l))
	}
	res := e.Do("GET", "/orgs/c/broadcasts/recipients?broadcast_id="+big.ID+"&status=PROCESSED", e.AdminKey, nil).Expect(200)
	if len(res.List()) != 10 || res.Header.Get("pagination-next") != "" || res.Header.Get("pagination-count") != "10" {
		t.Fatalf("processed page: %d, next %q", len(res.List()), res.Header.Get("pagination-next"))
	}
}
