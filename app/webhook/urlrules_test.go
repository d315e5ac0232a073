package webhook_test

import (
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

func strictEnv(t *testing.T) *apitest.Env {
	return apitest.New(t, func(c *cli.Config) { c.Webhooks.AllowPrivateTargets = false })
}

func createBody(url string) map[string]any {
	return map[string]any{"name": "hook", "url": url, "events": []string{app.EventContactBlocked}}
}

// TestCreateRefusesEveryForbiddenTarget walks the address classes of DESIGN.md's "Events"
// section: each is a 400 invalid_argument whose fields.url says why.
func TestCreateRefusesEveryForbiddenTarget(t *testing.T) {
	t.Parallel()
	e := strictEnv(t)
	apitest.Resolver.Set("internal.example.test", apitest.Addrs("10.0.0.5"))
	apitest.Resolver.Set("mixed.example.test", apitest.Addrs("93.184.216.34", "192.168.7.7"))
	apitest.Resolver.Set("nx.example.test") // no answer: NXDOMAIN
	apitest.Resolver.Set("mixed6.example.test", apitest.Addrs("2606:2800:220:1::1", "fd00::7"))
	cases := []struct{ url, why string }{
		{"http://93.184.216.34/hook", "must use https"},
		{"https://user:pass@93.184.216.34/hook", "credentials"},
		{"https://user@93.184.216.34/hook", "credentials"},
		{"https://localhost/hook", "localhost"},
		{"https://LOCALHOST./hook", "localhost"},
		{"https://foo.localhost/hook", "localhost"},
		{"https://127.0.0.1/hook", "loopback"},
		{"https://127.0.0.1:8443/hook", "loopback"},
		{"https://[::1]/hook", "loopback"},
		{"https://10.0.0.1/hook", "private"},
		{"https://172.16.5.4/hook", "private"},
		{"https://172.31.255.255/hook", "private"},
		{"https://192.168.1.1/hook", "private"},
		{"https://169.254.169.254/latest/meta-data", "link-local"},
		{"https://[fe80::1]/hook", "link-local"},
		{"https://[fe80::1%25eth0]/hook", "link-local"},
		{"https://100.64.0.1/hook", "CGNAT"},
		{"https://0.0.0.0/hook", "unspecified"},
		{"https://198.18.0.1/hook", "benchmark"},
		{"https://240.0.0.1/hook", "reserved"},
		{"https://255.255.255.255/hook", "broadcast"},
		{"https://224.0.0.1/hook", "multicast"},
		{"https://[ff02::1]/hook", "multicast"},
		{"https://[::]/hook", "unspecified"},
		{"https://[fc00::1]/hook", "unique-local"},
		{"https://[fd12:3456::1]/hook", "unique-local"},
		{"https://[::ffff:127.0.0.1]/hook", "loopback"},
		{"https://[::ffff:10.0.0.1]/hook", "private"},
		{"https://[64:ff9b::7f00:1]/hook", "loopback (embedded in IPv6)"},
		{"https://[2002:7f00:1::1]/hook", "loopback (embedded in IPv6)"},
		{"https://2130706433/hook", "loopback"},
		{"https://0x7f000001/hook", "loopback"},
		{"https://0177.0.0.1/hook", "loopback"},
		{"https://127.1/hook", "loopback"},
		{"https://internal.example.test/hook", "private address (10.0.0.5)"},
		{"https://mixed.example.test/hook", "private address (192.168.7.7)"},
		{"https://mixed6.example.test/hook", "unique-local address (fd00::7)"},
		{"https://nx.example.test/hook", "does not resolve"},
		{"not a url", "absolute https URL"},
		{"https:///hook", "absolute https URL"},
	}
	for _, c := range cases {
		r := e.DoInvalid("POST", "/orgs/c/webhooks", e.AdminKey, createBody(c.url))
		if r.Status != 400 || r.ErrorCode() != "invalid_argument" {
			t.Errorf("%s: status %d, body %s; want 400 invalid_argument", c.url, r.Status, r.Body)
			continue
		}
		if why := r.ErrorFields()["url"]; !strings.Contains(why, c.why) {
			t.Errorf("%s: fields.url %q does not say %q", c.url, why, c.why)
		}
	}
	var l []app.Webhook
	e.Do("GET", "/orgs/c/webhooks", e.AdminKey, nil).Expect(200).JSON(&l)
	if len(l) != 0 {
		t.Fatalf("refused URLs left %d endpoints", len(l))
	}
}

func TestCreateAcceptsPublicTargets(t *testing.T) {
	t.Parallel()
	e := strictEnv(t)
	apitest.Resolver.Set("public.example.test", apitest.Addrs("93.184.216.34"))
	apitest.Resolver.Set("public6.example.test", apitest.Addrs("2606:2800:220:1:248:1893:25c8:1946", "93.184.216.34"))
	for _, u := range []string{
		"https://public.example.test/hook",
		"https://public6.example.test:8443/hooks?x=1",
		"https://93.184.216.34/hook",
		"https://[2606:2800:220:1:248:1893:25c8:1946]/hook",
	} {
		var w app.Webhook
		e.Do("POST", "/orgs/c/webhooks", e.AdminKey, createBody(u)).Expect(201).JSON(&w)
		if w.URL != u || !w.Enabled {
			t.Fatalf("created %+v for %s", w, u)
		}
	}
}

func TestPatchWithForbiddenURLChangesNothing(t *testing.T) {
	t.Parallel()
	e := strictEnv(t)
	apitest.Resolver.Set("patch.example.test", apitest.Addrs("93.184.216.34"))
	apitest.Resolver.Set("patch-internal.example.test", apitest.Addrs("127.0.0.2"))
	w := e.Webhook(e.AdminKey, "c", "https://patch.example.test/hook", app.EventContactBlocked)
	var before app.Webhook
	e.Do("GET", "/orgs/c/webhooks/"+w.ID, e.AdminKey, nil).Expect(200).JSON(&before)
	e.Clock.Advance(time.Second)
	for _, u := range []string{"http://patch.example.test/hook", "https://10.1.2.3/hook", "https://patch-internal.example.test/"} {
		r := e.DoInvalid("PATCH", "/orgs/c/webhooks/"+w.ID, e.AdminKey, map[string]any{"url": u, "name": "renamed"})
		r.ExpectError(400, "invalid_argument", "url")
	}
	var after app.Webhook
	e.Do("GET", "/orgs/c/webhooks/"+w.ID, e.AdminKey, nil).Expect(200).JSON(&after)
	if after.URL != before.URL || after.Name != before.Name || !after.UpdatedAt.Equal(before.UpdatedAt.Time) {
		t.Fatalf("refused PATCH changed the endpoint: %+v -> %+v", before, after)
	}
}
