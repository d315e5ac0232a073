package app_test

import (
	"testing"

	"wsapi/app"
)

// TestUsageQueryRules: the report's range defaults to the last 30 days and is checked.
func TestUsageQueryRules(t *testing.T) {
	t.Parallel()
	e := newDomainEnv(t)
	for _, c := range []struct {
		q      app.UsageQuery
		fields []string
	}{
		{app.UsageQuery{To: "yesterday"}, []string{"to"}},
		{app.UsageQuery{From: "2026-13-01", To: "2026-03-01"}, []string{"from"}},
		{app.UsageQuery{From: "2026-03-02", To: "2026-03-01"}, []string{"to"}},
		{app.UsageQuery{From: "2025-03-01", To: "2026-03-02"}, []string{"from"}},
		{app.UsageQuery{AssistantID: string(make([]rune, 256))}, []string{"assistant_id"}},
	} {
		_, err := e.svc.UsageReport(e.ctx, e.org.ID, c.q, app.Page{Page: 1, Take: 10})
		wantCode(t, c.q.From+".."+c.q.To, err, app.CodeInvalidArgument, c.fields...)
	}
	if l, err := e.svc.UsageReport(e.ctx, e.org.ID, app.UsageQuery{From: "2025-03-02", To: "2026-03-02"}, app.Page{Page: 1, Take: 10}); err != nil || l.Total != 0 {
		t.Fatalf("a 366-day range: %v, %d rows", err, l.Total)
	}
}
