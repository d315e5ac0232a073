package cli

import (
	"fmt"

	"wsapi/app/budget"
)

// validateStreams checks the streams' budget: every cap positive, and the server-wide one
// leaving at least a tenth of http.max_connections to plain requests, so that a server full
// of idle streams still answers /healthz and the API.
func (c EventsConfig) validateStreams(maxConnections int) error {
	if c.MaxStreams < 1 || c.MaxStreamsPerKey < 1 || c.MaxStreamsPerMember < 1 || c.MaxStreamsPerIP < 1 {
		return fmt.Errorf("config: events.max_streams, events.max_streams_per_key, events.max_streams_per_member and events.max_streams_per_ip must be positive")
	}
	if room := maxConnections - c.MaxStreams; room < maxConnections/10 || room < 1 {
		return fmt.Errorf("config: events.max_streams (%d) must leave at least a tenth of http.max_connections (%d) to plain requests: at most %d",
			c.MaxStreams, maxConnections, maxConnections-max(maxConnections/10, 1))
	}
	return nil
}

// streamBudget is the one budget of open event streams, shared by every route that streams
// (the API's SSE routes now; the public widget's streams acquire from the same one).
func streamBudget(c EventsConfig) *budget.Budget {
	return budget.New(c.MaxStreams, map[string]int{
		budget.KindKey:    c.MaxStreamsPerKey,
		budget.KindMember: c.MaxStreamsPerMember,
		budget.KindIP:     c.MaxStreamsPerIP,
	})
}
