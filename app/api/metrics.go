package api

import (
	"context"
	"crypto/subtle"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"wsapi/app"
)

// Metrics are the Prometheus metrics of one Runtime, on a registry of their own (not the
// global default) so that tests build many side by side. docs/operations.md lists each one.
type Metrics struct {
	Registry *prometheus.Registry

	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec
	httpInFlight prometheus.Gauge
	rateLimited  prometheus.Counter
	replays      prometheus.Counter
	keptAnswers  prometheus.Counter
	// streamsRefused counts the streams the budget refused, by the cap reached (streambudget.go).
	streamsRefused *prometheus.CounterVec

	webhookAttempts *prometheus.CounterVec
	webhookLatency  prometheus.Histogram
	broadcastSends  *prometheus.CounterVec
	writeWait       prometheus.Histogram
	writeBatch      prometheus.Histogram

	// Assistant runs: reported through app.RunRecorder by the run loop (app/assist).
	runs       *prometheus.CounterVec
	runTokens  *prometheus.CounterVec
	firstToken *prometheus.HistogramVec
}

var _ app.Recorder = (*Metrics)(nil)

const namespace = "wsapi"

// NewMetrics makes the metrics and registers them with the Go runtime and process collectors.
func NewMetrics() *Metrics {
	m := &Metrics{Registry: prometheus.NewRegistry()}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: name, Help: help}, labels)
	}
	histogram := func(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: name, Help: help, Buckets: buckets}, labels)
	}
	m.httpRequests = counter("http_requests_total", "HTTP requests by route pattern, method and status code.", "route", "method", "code")
	m.httpDuration = histogram("http_request_duration_seconds", "HTTP request latency by route pattern and method.", prometheus.DefBuckets, "route", "method")
	m.httpInFlight = prometheus.NewGauge(prometheus.GaugeOpts{Namespace: namespace, Name: "http_requests_in_flight", Help: "HTTP requests being served."})
	m.rateLimited = counter("http_rate_limited_total", "Requests refused with 429 by the per-IP rate limit.").WithLabelValues()
	m.replays = counter("http_idempotent_replays_total", "POST requests answered from a stored response (Idempotency-Key).").WithLabelValues()
	m.keptAnswers = counter("http_kept_answers_total", "GET answers served from a body kept encoded, the data unchanged since it was read (GET contact, GET contacts).").WithLabelValues()
	m.streamsRefused = counter("http_streams_refused_total", "Event streams refused with 429 by the streams' budget, by the cap reached (key, member, ip, server).", "cap")
	m.webhookAttempts = counter("webhook_attempts_total", "Webhook delivery attempts by outcome: succeeded, retrying (failed, another attempt follows), failed (the last attempt failed).", "outcome")
	m.webhookLatency = histogram("webhook_attempt_duration_seconds", "Duration of webhook delivery requests.", prometheus.DefBuckets).WithLabelValues().(prometheus.Histogram)
	m.broadcastSends = counter("broadcast_sends_total", "Broadcast recipients given an outcome, by integration and outcome (sent, failed, skipped).", "integration", "outcome")
	m.writeWait = histogram("sqlite_write_wait_seconds", "Time a write transaction waited for the single writer connection.",
		[]float64{.0001, .0005, .001, .005, .01, .05, .1, .5, 1, 5}).WithLabelValues().(prometheus.Histogram)
	m.writeBatch = histogram("sqlite_write_batch_size", "Write transactions committed together in one SQLite transaction (group commit).",
		[]float64{1, 2, 4, 8, 16, 32, 64}).WithLabelValues().(prometheus.Histogram)
	m.runs = counter("assistant_runs_total", "Assistant runs by model and outcome (COMPLETED, FAILED, CANCELED).", "model", "outcome")
	m.runTokens = counter("assistant_tokens_total", "Model tokens by model and kind (input, output, cache_read, cache_write).", "model", "kind")
	m.firstToken = histogram("assistant_first_token_seconds", "Provider latency to the first streamed token, by model.", []float64{.1, .25, .5, 1, 2, 5, 10, 30, 60}, "model")
	m.Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.httpRequests, m.httpDuration, m.httpInFlight, m.rateLimited, m.replays, m.keptAnswers, m.streamsRefused, m.webhookAttempts, m.webhookLatency,
		m.broadcastSends, m.writeWait, m.writeBatch, m.runs, m.runTokens, m.firstToken)
	return m
}

// Handler serves the registry in the Prometheus text (or OpenMetrics) format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}

// WebhookAttempt counts one finished delivery attempt and its duration.
func (m *Metrics) WebhookAttempt(outcome string, d time.Duration) {
	m.webhookAttempts.WithLabelValues(outcome).Inc()
	m.webhookLatency.Observe(d.Seconds())
}

// WriteWait observes the wait for the SQLite writer connection.
func (m *Metrics) WriteWait(d time.Duration) { m.writeWait.Observe(d.Seconds()) }

// WriteBatch observes how many writes one commit of the SQLite writer carried.
func (m *Metrics) WriteBatch(n int) { m.writeBatch.Observe(float64(n)) }

// BroadcastSend implements app.Recorder.
func (m *Metrics) BroadcastSend(integration, outcome string) {
	m.broadcastSends.WithLabelValues(integration, outcome).Inc()
}

// RunFinished implements app.RunRecorder.
func (m *Metrics) RunFinished(model, outcome string) { m.runs.WithLabelValues(model, outcome).Inc() }

// RunTokens implements app.RunRecorder.
func (m *Metrics) RunTokens(model, kind string, n int) {
	m.runTokens.WithLabelValues(model, kind).Add(float64(n))
}

// FirstToken implements app.RunRecorder.
func (m *Metrics) FirstToken(model string, d time.Duration) {
	m.firstToken.WithLabelValues(model).Observe(d.Seconds())
}

// GaugeSource reads the counts that live in the database (sqlite.DB implements it).
type GaugeSource interface {
	OpsGauges(ctx context.Context, now time.Time) (app.OpsGauges, error)
}

// WatchStore registers the gauges read from the store at each scrape.
func (m *Metrics) WatchStore(src GaugeSource, clock app.Clock) {
	m.Registry.MustRegister(&storeCollector{src: src, clock: clock})
}

var (
	queueDesc = prometheus.NewDesc(namespace+"_webhook_deliveries_queued",
		"Pending webhook deliveries by state: due, waiting (for a later retry), paused (organization balance spent), disabled (endpoint disabled).", []string{"state"}, nil)
	knowledgeDesc = prometheus.NewDesc(namespace+"_knowledge_contents", "Knowledge contents by status.", []string{"status"}, nil)
	scrapeErrDesc = prometheus.NewDesc(namespace+"_store_scrape_errors", "1 when the store's counts could not be read at this scrape.", nil, nil)
)

// storeCollector reads queue depth and knowledge counts when Prometheus scrapes.
type storeCollector struct {
	src   GaugeSource
	clock app.Clock
}

func (c *storeCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- queueDesc
	ch <- knowledgeDesc
	ch <- scrapeErrDesc
}

func (c *storeCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	g, err := c.src.OpsGauges(ctx, c.clock.Now())
	if err != nil {
		ch <- prometheus.MustNewConstMetric(scrapeErrDesc, prometheus.GaugeValue, 1)
		return
	}
	ch <- prometheus.MustNewConstMetric(scrapeErrDesc, prometheus.GaugeValue, 0)
	for state, n := range map[string]int{"due": g.DeliveriesDue, "waiting": g.DeliveriesWaiting,
		"paused": g.DeliveriesPaused, "disabled": g.DeliveriesDisabled} {
		ch <- prometheus.MustNewConstMetric(queueDesc, prometheus.GaugeValue, float64(n), state)
	}
	for status, n := range g.KnowledgeByStatus {
		ch <- prometheus.MustNewConstMetric(knowledgeDesc, prometheus.GaugeValue, float64(n), status)
	}
}

// instrument counts and times every request by the route pattern the router matched (never
// the raw path, which carries ids and tokens). It runs inside logRequests, whose requestInfo
// the route label is read from once the request is done.
func (s *Server) instrument(next http.Handler) http.Handler {
	m := s.cfg.Ops.Metrics
	if m == nil {
		return next
	}
	route := promhttp.WithLabelFromCtx("route", func(ctx context.Context) string {
		ri, _ := ctx.Value(infoKey{}).(*requestInfo)
		return ri.routeName()
	})
	h := promhttp.InstrumentHandlerCounter(m.httpRequests, next, route)
	h = promhttp.InstrumentHandlerDuration(m.httpDuration, h, route)
	return promhttp.InstrumentHandlerInFlight(m.httpInFlight, h)
}

// metricsEndpoint answers GET /metrics on the public listener when metrics.token is set,
// to a bearer of that token only (compared in constant time); otherwise /metrics is not
// here at all (a 404 like any unknown path) and metrics.addr serves it on its own listener.
func (s *Server) metricsEndpoint(next http.Handler) http.Handler {
	m, token := s.cfg.Ops.Metrics, s.cfg.Ops.MetricsToken
	if m == nil || token == "" {
		return next
	}
	scrape := m.GuardedHandler(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" || r.Method != http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
		setRoute(r, "/metrics")
		scrape.ServeHTTP(w, r)
	})
}

// GuardedHandler is Handler for a bearer of token only (compared in constant time; anything
// else is 401); with no token, Handler itself. metrics.addr's own listener uses it too, so a
// token set for a listener off loopback guards that listener as well.
func (m *Metrics) GuardedHandler(token string) http.Handler {
	scrape := m.Handler()
	if token == "" {
		return scrape
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := bearerToken(r.Header.Get("Authorization"))
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			writeError(w, r, errUnauthorized)
			return
		}
		scrape.ServeHTTP(w, r)
	})
}

// countRateLimited counts one 429 of the rate limit.
func (s *Server) countRateLimited() {
	if m := s.cfg.Ops.Metrics; m != nil {
		m.rateLimited.Inc()
	}
}
