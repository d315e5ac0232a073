package api_test

import (
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"wsapi/app/apitest"
)

// TestConcurrentInboxReadersAndWriter: readers list the same inbox views (the cached path and
// its shared misses) while messages move chats to the top. Every answer is whole (the count
// never changes, no chat twice), and once the writer stops the view shows its last write.
// Under -race this also checks the inbox cache and the shared reads. 20 writes against 4
// readers: under -race, 40 against 8 took 10 s of the suite's two cores for no other
// interleaving than these find.
func TestConcurrentInboxReadersAndWriter(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, apitest.Unlimited, apitest.NoRuns)
	const chats = 30
	var ids []string
	for i := range chats {
		ids = append(ids, chConversation(e, e.AdminKey, "c", fmt.Sprint("Reader ", i))["id"].(string))
	}
	client, base := e.Server.Client(), e.Server.URL
	views := []string{"/orgs/c/inbox?take=10", "/orgs/c/inbox?take=10&search=reader", "/orgs/c/inbox?take=100"}
	var stop atomic.Bool
	var last atomic.Value
	errs := make(chan error, 16)
	var wg sync.WaitGroup
	wg.Go(func() {
		defer stop.Store(true)
		for i := range 20 {
			id := ids[(i*7)%chats]
			e.Clock.Advance(time.Millisecond) // the order is by last activity: make each later
			status, body, err := rawRequest(client, "POST", base+"/orgs/c/chats/"+id+"/messages", e.AdminKey,
				map[string]any{"role": "user", "messages": chText("user", fmt.Sprint("write ", i))})
			if err != nil || status != 201 {
				errs <- fmt.Errorf("message %d: %d %s %v", i, status, body, err)
				return
			}
			last.Store(id)
		}
	})
	for r := range 4 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				view := views[(r+i)%len(views)]
				status, body, err := rawRequest(client, "GET", base+view, e.AdminKey, nil)
				if err != nil || status != 200 {
					errs <- fmt.Errorf("GET %s: %d %s %v", view, status, body, err)
					return
				}
				var page []struct{ ID string }
				if err := json.Unmarshal(body, &page); err != nil {
					errs <- err
					return
				}
				seen := map[string]bool{}
				for _, c := range page {
					if seen[c.ID] {
						errs <- fmt.Errorf("GET %s: %s twice", view, c.ID)
						return
					}
					seen[c.ID] = true
				}
				if want := min(chats, 100); view == views[2] && len(page) != want {
					errs <- fmt.Errorf("GET %s: %d chats, want %d", view, len(page), want)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, view := range views {
		if n := e.Count(e.AdminKey, view); n != chats {
			t.Fatalf("GET %s: pagination-count %d, want %d", view, n, chats)
		}
		if top := chInbox(e, e.AdminKey, view[len("/orgs/c/inbox?"):])[0]; top != last.Load() {
			t.Fatalf("GET %s: first chat %s, want the last one written to, %s", view, top, last.Load())
		}
	}
}
