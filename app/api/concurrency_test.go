package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"

	"wsapi/app"
	"wsapi/app/apitest"
)

// send is a goroutine-safe request: it reports instead of failing the test.
func rawRequest(client *http.Client, method, url, key string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	return res.StatusCode, data, err
}

// TestConcurrentWrites: many clients writing at once all succeed; the single writer
// connection serializes them without SQLITE_BUSY, and readers see every write.
func TestConcurrentWrites(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	const n = 40
	client := e.Server.Client()
	base := e.Server.URL
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if i%2 == 0 {
				// A member, a key acting as it, and a read with that key.
				status, body, err := rawRequest(client, "POST", base+"/orgs/c/members", e.AdminKey,
					map[string]any{"name": fmt.Sprint("m", i), "email": fmt.Sprintf("m%d@example.com", i)})
				if err != nil || status != 201 {
					errs <- fmt.Errorf("member %d: %d %s %v", i, status, body, err)
					return
				}
				var m app.Member
				_ = json.Unmarshal(body, &m)
				status, body, err = rawRequest(client, "POST", base+"/orgs/c/keys", e.AdminKey, map[string]any{"name": "k", "member_id": m.ID})
				if err != nil || status != 201 {
					errs <- fmt.Errorf("key %d: %d %s %v", i, status, body, err)
					return
				}
				var nk app.NewKey
				_ = json.Unmarshal(body, &nk)
				if status, body, err = rawRequest(client, "GET", base+"/orgs/c/members/"+m.ID, nk.Token, nil); err != nil || status != 200 {
					errs <- fmt.Errorf("read %d: %d %s %v", i, status, body, err)
				}
				return
			}
			status, body, err := rawRequest(client, "POST", base+"/orgs/c/sub-orgs", e.AdminKey, map[string]any{"name": fmt.Sprint("o", i)})
			if err != nil || status != 201 {
				errs <- fmt.Errorf("sub-org %d: %d %s %v", i, status, body, err)
				return
			}
			if status, body, err = rawRequest(client, "GET", base+"/orgs/c/sub-orgs", e.AdminKey, nil); err != nil || status != 200 {
				errs <- fmt.Errorf("list %d: %d %s %v", i, status, body, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := e.Do("GET", "/orgs/c/members", e.AdminKey, nil).Expect(200).Header.Get("pagination-count"); got != fmt.Sprint(n/2+1) {
		t.Errorf("members %s, want %d", got, n/2+1)
	}
	if got := e.Do("GET", "/orgs/c/sub-orgs", e.AdminKey, nil).Expect(200).Header.Get("pagination-count"); got != fmt.Sprint(n/2) {
		t.Errorf("sub-orgs %s, want %d", got, n/2)
	}
	if got := e.Do("GET", "/orgs/c/keys", e.AdminKey, nil).Expect(200).Header.Get("pagination-count"); got != fmt.Sprint(n/2+1) {
		t.Errorf("keys %s, want %d", got, n/2+1)
	}
}

// TestConcurrentConflicts: racing creates of the same email end in one 201 and 409s, never a
// 500: the UNIQUE constraint decides.
func TestConcurrentConflicts(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	const n = 20
	statuses := make(chan int, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			status, _, err := rawRequest(e.Server.Client(), "POST", e.Server.URL+"/orgs/c/members", e.AdminKey,
				map[string]any{"name": "Same", "email": "same@example.com"})
			if err != nil {
				t.Error(err)
			}
			statuses <- status
		})
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	if count[201] != 1 || count[409] != n-1 {
		t.Errorf("statuses %v: want one 201 and %d 409", count, n-1)
	}
}
