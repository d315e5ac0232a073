package api_test

import (
	"net/url"
	"strings"
	"sync"
	"testing"
)

// TestOAuthStateIsSingleUse: a state answers one validation; any later one, however soon and
// however many at once, is refused before the provider is asked.
func TestOAuthStateIsSingleUse(t *testing.T) {
	e, p := cnOAuthEnv(t)
	state := cnAuthorize(e, e.AdminKey, "HUBSPOT")
	good := url.Values{"code": {"good-code"}, "state": {state}}
	cnValidate(e, e.AdminKey, "HUBSPOT", good, "acme").Expect(200)
	res := cnValidate(e, e.AdminKey, "HUBSPOT", good, "acme").ExpectError(400, "invalid_argument", "validation_url")
	if !strings.Contains(res.ErrorFields()["validation_url"], "used") {
		t.Fatalf("second use: %s", res.Body)
	}
	if n := p.tokenCalls.Load(); n != 1 {
		t.Fatalf("the provider was asked %d times, want 1", n)
	}

	// Many validations of one fresh state at once: exactly one gets through.
	fresh := url.Values{"code": {"good-code"}, "state": {cnAuthorize(e, e.AdminKey, "HUBSPOT")}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	for range 8 {
		wg.Go(func() {
			body := map[string]any{"type": "HUBSPOT", "subdomain": "acme", "validation_url": cnRedirect + "?" + fresh.Encode()}
			r := e.Do("POST", "/orgs/c/connections/oauth/validate", e.AdminKey, body)
			mu.Lock()
			statuses[r.Status]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if statuses[200] != 1 || statuses[400] != 7 {
		t.Fatalf("statuses %v, want one 200 and seven 400", statuses)
	}
}
