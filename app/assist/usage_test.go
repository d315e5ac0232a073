package assist_test

import (
	"math"
	"testing"

	"wsapi/app"
	"wsapi/cli"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// Each run's cost, at the configured prices, leaves the organization's balance in the
// transaction that completes it, and the usage report sums tokens and cost by day and model,
// filtered by dates and assistant, validating its parameters like the other lists.
func TestCostDeductedAndUsageReport(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *cli.Config) {
		c.Models.Prices = map[string]app.Price{"builtin:retrieval": {Input: 10000, Output: 20000}}
	})
	w := newWorld(t, e, e.AdminKey, "c", nil)
	w.learn(t, "Parking", "Free parking is available behind the building.")
	before := e.Do("GET", "/orgs/c", e.AdminKey, nil).Expect(200).Map()["balance"].(float64)
	w.say(t, "user", "Is there parking?")
	w.debounce()
	m := w.reply(t, 1)
	if m.Status != "COMPLETED" || m.Usage == nil {
		t.Fatalf("reply %s usage %+v", m.Status, m.Usage)
	}
	u := m.Usage
	cost := (u.InputTokens*10000 + u.OutputTokens*20000) / 1e6
	after := e.Do("GET", "/orgs/c", e.AdminKey, nil).Expect(200).Map()["balance"].(float64)
	if cost <= 0 || !near(before-after, cost) {
		t.Fatalf("balance %v -> %v, cost %v (usage %+v)", before, after, cost, u)
	}

	var rows []app.UsageRow
	res := e.Do("GET", "/orgs/c/usage", e.AdminKey, nil).Expect(200)
	res.JSON(&rows)
	if len(rows) != 1 || res.Header.Get("pagination-count") != "1" {
		t.Fatalf("usage rows %+v", rows)
	}
	r := rows[0]
	if r.Day != "2026-01-02" || r.Model != "builtin:retrieval" || r.Calls != 1 || !r.Estimated ||
		r.InputTokens != u.InputTokens || r.OutputTokens != u.OutputTokens || !near(r.Cost, cost) {
		t.Fatalf("usage row %+v, message usage %+v cost %v", r, u, cost)
	}
	for _, q := range []string{"?from=2026-01-02&to=2026-01-02", "?assistant_id=" + w.assistant, "?to=2026-01-05"} {
		e.Do("GET", "/orgs/c/usage"+q, e.AdminKey, nil).Expect(200).JSON(&rows)
		if len(rows) != 1 {
			t.Fatalf("%s: %d rows", q, len(rows))
		}
	}
	for _, q := range []string{"?from=2026-01-03&to=2026-01-04", "?assistant_id=asst_other", "?to=2026-01-01"} {
		e.Do("GET", "/orgs/c/usage"+q, e.AdminKey, nil).Expect(200).JSON(&rows)
		if len(rows) != 0 {
			t.Fatalf("%s: %d rows", q, len(rows))
		}
	}
	_, otherKey := e.OrgWithAdmin("Other")
	e.Do("GET", "/orgs/c/usage", otherKey, nil).Expect(200).JSON(&rows)
	if len(rows) != 0 {
		t.Fatalf("another organization sees %d rows", len(rows))
	}
	bad := map[string]string{"?from=2026-13-01": "from", "?to=yesterday": "to", "?from=2026-01-05&to=2026-01-04": "to",
		"?from=2024-01-01&to=2026-01-02": "from", "?take=101": "take", "?page=0": "page"}
	for q, field := range bad {
		e.DoInvalid("GET", "/orgs/c/usage"+q, e.AdminKey, nil).ExpectError(400, "invalid_argument", field)
	}
	noOrgRead := e.RoleKey(e.Org.ID, "inbox:read")
	e.Do("GET", "/orgs/c/usage", noOrgRead, nil).ExpectError(403, "permission_denied")
}
