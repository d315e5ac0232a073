package sqlite_test

import (
	"fmt"
	"testing"

	"wsapi/app"
)

// TestUsageReport: the ledger sums by day and model within the days asked (both ends
// included), optionally of one assistant; a day with an estimated call is estimated; pages
// split the rows; an empty report is [], not null.
func TestUsageReport(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org := newOrg(t, db, "org_u", "", 0).ID
	entry := func(day, model, asst string, in, out float64, cost float64, estimated bool) app.UsageEntry {
		return app.UsageEntry{OrgID: org, Day: day, Model: model, AssistantID: asst, ChatID: "chat_1", MessageID: "msg_1",
			UsageCounter: app.UsageCounter{InputTokens: in, OutputTokens: out, TotalTokens: in + out}, Cost: cost, Estimated: estimated,
			CreatedAt: at(0)}
	}
	write(t, db, func(tx app.Tx) error {
		return firstErr(tx.RecordUsage(nil), tx.RecordUsage([]app.UsageEntry{
			entry("2026-01-01", "m1", "asst_a", 10, 1, 0.5, false),
			entry("2026-01-01", "m1", "asst_b", 20, 2, 0.25, false),
			entry("2026-01-01", "m2", "asst_a", 5, 5, 1, false),
			entry("2026-01-02", "m1", "asst_a", 1, 1, 0.125, true),
			entry("2026-01-02", "m1", "asst_a", 1, 1, 0.125, false),
			entry("2025-12-31", "m1", "asst_a", 99, 99, 9, false),
			entry("2026-01-03", "m1", "asst_a", 99, 99, 9, false),
		}))
	})
	report := func(q app.UsageQuery, p app.Page) (string, int) {
		var out []string
		var total int
		read(t, db, func(tx app.Tx) error {
			rows, n, err := tx.UsageReport(org, q, p)
			if rows == nil {
				t.Errorf("a nil report for %+v", q)
			}
			for _, r := range rows {
				out = append(out, fmt.Sprintf("%s/%s calls=%d in=%g out=%g total=%g cost=%g est=%v", r.Day, r.Model, r.Calls,
					r.InputTokens, r.OutputTokens, r.TotalTokens, r.Cost, r.Estimated))
			}
			total = n
			return err
		})
		return fmt.Sprint(out), total
	}
	cases := []struct {
		name  string
		q     app.UsageQuery
		p     app.Page
		want  string
		total int
	}{
		{"two days", app.UsageQuery{From: "2026-01-01", To: "2026-01-02"}, app.Page{Page: 1, Take: 10},
			"[2026-01-01/m1 calls=2 in=30 out=3 total=33 cost=0.75 est=false 2026-01-01/m2 calls=1 in=5 out=5 total=10 cost=1 est=false " +
				"2026-01-02/m1 calls=2 in=2 out=2 total=4 cost=0.25 est=true]", 3},
		{"one assistant", app.UsageQuery{From: "2026-01-01", To: "2026-01-01", AssistantID: "asst_b"}, app.Page{Page: 1, Take: 10},
			"[2026-01-01/m1 calls=1 in=20 out=2 total=22 cost=0.25 est=false]", 1},
		{"second page", app.UsageQuery{From: "2026-01-01", To: "2026-01-02"}, app.Page{Page: 2, Take: 2},
			"[2026-01-02/m1 calls=2 in=2 out=2 total=4 cost=0.25 est=true]", 3},
		{"no usage", app.UsageQuery{From: "2027-01-01", To: "2027-12-31"}, app.Page{Page: 1, Take: 10}, "[]", 0},
	}
	for _, c := range cases {
		if got, total := report(c.q, c.p); got != c.want || total != c.total {
			t.Errorf("%s:\n got %s total %d\nwant %s total %d", c.name, got, total, c.want, c.total)
		}
	}
	write(t, db, func(tx app.Tx) error { return tx.ChargeOrg(org, 1.5) })
	read(t, db, func(tx app.Tx) error {
		if o, err := tx.GetOrg(org); err != nil || o.Balance != 3.5 {
			t.Errorf("balance %g after a charge of 1.5 from 5 (%v)", o.Balance, err)
		}
		return nil
	})
}
