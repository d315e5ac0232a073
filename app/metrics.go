package app

import "time"

// Recorder receives the counts that only the domain sees, for the operator's metrics
// (Prometheus, see app/api/metrics.go). A Service without one records nothing.
type Recorder interface {
	// BroadcastSend counts one recipient given its outcome: sent, failed or skipped.
	BroadcastSend(integration, outcome string)
	RunRecorder
}

// RunRecorder is what the assistant runs report: FinishRun counts runs and tokens, the run
// loop (app/assist) the time to the first token.
type RunRecorder interface {
	// RunFinished counts one run by model and outcome (COMPLETED, FAILED, CANCELED).
	RunFinished(model, outcome string)
	// RunTokens adds n tokens of a kind (input, output, cache_read, cache_write).
	RunTokens(model, kind string, n int)
	// FirstToken observes how long the provider took to stream its first token.
	FirstToken(model string, d time.Duration)
}

// OpsGauges are the counts read from the store when metrics are scraped.
type OpsGauges struct {
	// Webhook deliveries waiting: due now, waiting for a later retry, held because the
	// organization's balance is spent (paused) or because the endpoint is disabled.
	DeliveriesDue, DeliveriesWaiting, DeliveriesPaused, DeliveriesDisabled int
	// KnowledgeByStatus counts knowledge contents by status (PENDING, PROCESSING, ...).
	KnowledgeByStatus map[string]int
}

type noRecorder struct{}

func (noRecorder) BroadcastSend(string, string)     {}
func (noRecorder) RunFinished(string, string)       {}
func (noRecorder) RunTokens(string, string, int)    {}
func (noRecorder) FirstToken(string, time.Duration) {}

// recorder is s.d.Recorder, or one that drops everything.
func (s *Service) recorder() Recorder {
	if s.d.Recorder == nil {
		return noRecorder{}
	}
	return s.d.Recorder
}

// RunMetrics is where the run loop reports what only it sees (time to the first token).
func (s *Service) RunMetrics() RunRecorder { return s.recorder() }

// countSend records a recipient's outcome once its transaction committed.
func (s *Service) countSend(r Recipient, outcome string, err error) {
	if err == nil {
		s.recorder().BroadcastSend(r.IntegrationID, outcome)
	}
}
