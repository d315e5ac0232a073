package api_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"wsapi/app/apitest"
	"wsapi/cli"
)

const scrapeToken = "scrape-secret-token"

// metricsEnv is a server whose /metrics answers a bearer of scrapeToken.
func metricsEnv(t *testing.T, configure ...func(*cli.Config)) *apitest.Env {
	return apitest.New(t, append([]func(*cli.Config){func(c *cli.Config) {
		c.Metrics.Token = scrapeToken
		c.HTTP.RateLimitPerMinute = 1 << 20
	}}, configure...)...)
}

// scrape reads GET /metrics with the token and parses the text format.
func scrape(t *testing.T, e *apitest.Env) map[string]*dto.MetricFamily {
	t.Helper()
	req := withAuthorization(t, e, "GET", "/metrics", "Bearer "+scrapeToken)
	res := e.Send(req).Expect(200)
	return parseMetrics(t, res.Body)
}

func parseMetrics(t *testing.T, body []byte) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parse metrics: %v\n%s", err, body)
	}
	return fams
}

// metricValue is the value of name's series with exactly these labels (pairs), a
// histogram's sample count; -1 when there is no such series.
func metricValue(fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	f := fams[name]
	if f == nil {
		return -1
	}
next:
	for _, m := range f.Metric {
		if len(m.Label) != len(labels)/2 {
			continue
		}
		for i := 0; i < len(labels); i += 2 {
			found := false
			for _, l := range m.Label {
				if l.GetName() == labels[i] && l.GetValue() == labels[i+1] {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	return -1
}

func wantMetric(t *testing.T, fams map[string]*dto.MetricFamily, want float64, name string, labels ...string) {
	t.Helper()
	if got := metricValue(fams, name, labels...); got != want {
		t.Errorf("%s%v = %v, want %v", name, labels, got, want)
	}
}

// TestMetricsEndpointGuard: /metrics on the API listener only to a bearer of metrics.token;
// without a token configured it is not there at all.
func TestMetricsEndpointGuard(t *testing.T) {
	t.Parallel()
	e := metricsEnv(t)
	e.Do("GET", "/metrics", "", nil).ExpectError(401, "unauthenticated")
	e.Send(withAuthorization(t, e, "GET", "/metrics", "Bearer wrong-token")).ExpectError(401, "unauthenticated")
	e.Send(withAuthorization(t, e, "GET", "/metrics", "Bearer "+scrapeToken)).Expect(200)
	e.Do("GET", "/metrics", e.AdminKey, nil).ExpectError(401, "unauthenticated") // an API key is not the scrape token

	plain := apitest.New(t)
	plain.Do("GET", "/metrics", "", nil).ExpectError(404, "not_found")
	plain.Send(withAuthorization(t, plain, "GET", "/metrics", "Bearer "+scrapeToken)).ExpectError(404, "not_found")
}

// TestMetricsHTTPCounters: requests are counted by route pattern (never the raw path),
// method and status, with a latency histogram and the in-flight gauge.
func TestMetricsHTTPCounters(t *testing.T) {
	t.Parallel()
	e := metricsEnv(t)
	for range 3 {
		e.Do("GET", "/orgs/c", e.AdminKey, nil).Expect(200)
	}
	e.Do("GET", "/orgs/c/contacts/ct_doesnotexist", e.AdminKey, nil).Expect(404)
	e.DoInvalid("GET", "/no/such/path", "", nil).Expect(404)
	fams := scrape(t, e)
	wantMetric(t, fams, 3, "wsapi_http_requests_total", "route", "/orgs/{org}", "method", "get", "code", "200")
	wantMetric(t, fams, 1, "wsapi_http_requests_total", "route", "/orgs/{org}/contacts/{id}", "method", "get", "code", "404")
	wantMetric(t, fams, 1, "wsapi_http_requests_total", "route", "(unmatched)", "method", "get", "code", "404")
	wantMetric(t, fams, 3, "wsapi_http_request_duration_seconds", "route", "/orgs/{org}", "method", "get")
	wantMetric(t, fams, 1, "wsapi_http_requests_in_flight") // the scrape itself
	for _, m := range fams["wsapi_http_requests_total"].Metric {
		for _, l := range m.Label {
			if strings.Contains(l.GetValue(), "ct_doesnotexist") || strings.Contains(l.GetValue(), "/no/such") {
				t.Errorf("a raw path leaked into a label: %v", m.Label)
			}
		}
	}
	// Go runtime, process and the store's pools are there too.
	for _, name := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "wsapi_sqlite_write_wait_seconds"} {
		if fams[name] == nil {
			t.Errorf("no %s", name)
		}
	}
	if metricValue(fams, "go_sql_max_open_connections", "db_name", "writer") != 1 {
		t.Errorf("writer pool max open: %v", metricValue(fams, "go_sql_max_open_connections", "db_name", "writer"))
	}
	if metricValue(fams, "go_sql_max_open_connections", "db_name", "reader") < 4 {
		t.Errorf("reader pool max open: %v", metricValue(fams, "go_sql_max_open_connections", "db_name", "reader"))
	}
	if metricValue(fams, "wsapi_sqlite_write_wait_seconds") < 1 {
		t.Errorf("no write was timed")
	}
}

// TestMetricsRateLimited: each 429 of the rate limit is counted.
func TestMetricsRateLimited(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, func(c *cli.Config) { c.HTTP.RateLimitPerMinute = 3 })
	codes := map[int]int{}
	for range 5 {
		codes[e.Do("GET", "/healthz", "", nil).Status]++
	}
	if codes[200] != 3 || codes[429] != 2 {
		t.Fatalf("statuses %v", codes)
	}
	// Scraped through the metrics handler itself: the API listener is rate limited.
	srv := httptest.NewServer(e.Runtime.Metrics.Handler())
	defer srv.Close()
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(res.Body)
	fams := parseMetrics(t, buf.Bytes())
	wantMetric(t, fams, 2, "wsapi_http_rate_limited_total")
	wantMetric(t, fams, 2, "wsapi_http_requests_total", "route", "(unmatched)", "method", "get", "code", "429")
	wantMetric(t, fams, 3, "wsapi_http_requests_total", "route", "/healthz", "method", "get", "code", "200")
}

// TestMetricsWorkers: webhook attempts by outcome with their latency and the queue by state,
// broadcast sends by outcome, knowledge contents by status.
func TestMetricsWorkers(t *testing.T) {
	t.Parallel()
	e := metricsEnv(t)
	ok, failing := apitest.NewReceiver(t), apitest.NewReceiver(t)
	failing.Status(500)
	e.Webhook(e.AdminKey, "c", ok.Server.URL, "contact.blocked")
	e.Webhook(e.AdminKey, "c", failing.Server.URL, "contact.blocked")

	var blocked, reached map[string]any
	e.Do("POST", "/orgs/c/contacts", e.AdminKey, map[string]any{"name": "Blocked",
		"channels": []map[string]string{{"type": "internal", "user_id": "u1"}}}).Expect(201).JSON(&blocked)
	e.Do("POST", "/orgs/c/contacts", e.AdminKey, map[string]any{"name": "Reached",
		"channels": []map[string]string{{"type": "internal", "user_id": "u2"}}}).Expect(201).JSON(&reached)
	e.Do("PATCH", "/orgs/c/contacts/"+blocked["id"].(string), e.AdminKey, map[string]any{"blocked": true}).Expect(200)
	ok.Wait(t, 1, 10*time.Second)
	failing.Wait(t, 1, 10*time.Second)

	e.Do("POST", "/orgs/c/broadcasts", e.AdminKey, map[string]any{"name": "B", "integration_id": "internal", "text": "hi",
		"contact_ids": []string{blocked["id"].(string), reached["id"].(string)}}).Expect(201)

	var asst map[string]any
	e.Do("POST", "/orgs/c/assistants", e.AdminKey, map[string]any{"name": "Helper"}).Expect(201).JSON(&asst)
	e.Do("POST", "/orgs/c/assistants/"+asst["id"].(string)+"/knowledge/contents", e.AdminKey, map[string]any{"title": "T",
		"content": map[string]any{"type": "TEXT", "text": "Opening hours are nine to five."}}).Expect(201)

	var fams map[string]*dto.MetricFamily
	e.Eventually(10*time.Second, "workers to finish", func() bool {
		fams = scrape(t, e)
		return metricValue(fams, "wsapi_webhook_attempts_total", "outcome", "retrying") == 1 &&
			metricValue(fams, "wsapi_webhook_attempts_total", "outcome", "succeeded") == 1 &&
			metricValue(fams, "wsapi_broadcast_sends_total", "integration", "internal", "outcome", "sent") == 1 &&
			metricValue(fams, "wsapi_broadcast_sends_total", "integration", "internal", "outcome", "skipped") == 1 &&
			metricValue(fams, "wsapi_knowledge_contents", "status", "PROCESSED") == 1
	})
	wantMetric(t, fams, 2, "wsapi_webhook_attempt_duration_seconds")
	wantMetric(t, fams, -1, "wsapi_webhook_attempts_total", "outcome", "failed")
	wantMetric(t, fams, -1, "wsapi_broadcast_sends_total", "integration", "internal", "outcome", "failed")
	// The failed delivery waits for its retry 5 s later on the manual clock: waiting, not due.
	wantMetric(t, fams, 1, "wsapi_webhook_deliveries_queued", "state", "waiting")
	wantMetric(t, fams, 0, "wsapi_webhook_deliveries_queued", "state", "due")
	wantMetric(t, fams, 0, "wsapi_webhook_deliveries_queued", "state", "paused")
	wantMetric(t, fams, 0, "wsapi_webhook_deliveries_queued", "state", "disabled")
	wantMetric(t, fams, 0, "wsapi_store_scrape_errors")
	// The assistant-run metrics exist, empty, before any run (app/assist's TestRunMetricsAfterARun fills them).
	for _, name := range []string{"wsapi_assistant_runs_total", "wsapi_assistant_tokens_total", "wsapi_assistant_first_token_seconds"} {
		if fams[name] != nil && len(fams[name].Metric) != 0 {
			t.Errorf("%s has series before any run", name)
		}
	}
	e.Runtime.Metrics.RunFinished("builtin:retrieval", "COMPLETED")
	e.Runtime.Metrics.RunTokens("builtin:retrieval", "output", 42)
	e.Runtime.Metrics.FirstToken("builtin:retrieval", 300*time.Millisecond)
	fams = scrape(t, e)
	wantMetric(t, fams, 1, "wsapi_assistant_runs_total", "model", "builtin:retrieval", "outcome", "COMPLETED")
	wantMetric(t, fams, 42, "wsapi_assistant_tokens_total", "model", "builtin:retrieval", "kind", "output")
	wantMetric(t, fams, 1, "wsapi_assistant_first_token_seconds", "model", "builtin:retrieval")
}
