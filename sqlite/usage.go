package sqlite

import (
	"strings"

	"wsapi/app"
)

// RecordUsage appends model calls to the usage ledger.
func (t *Tx) RecordUsage(entries []app.UsageEntry) error {
	return t.insertBatches(`INSERT INTO usage_ledger (org_id, day, model, assistant_id, chat_id, message_id, input_tokens,
		output_tokens, total_tokens, reasoning_tokens, input_tokens_cache_read, input_tokens_cache_write, audio_seconds,
		speech_characters, cost, estimated, created_at)`, 17, len(entries), func(i int) []any {
		e := entries[i]
		return []any{e.OrgID, e.Day, e.Model, e.AssistantID, e.ChatID, e.MessageID, e.InputTokens, e.OutputTokens,
			e.TotalTokens, e.ReasoningTokens, e.InputTokensCacheRead, e.InputTokensCacheWrite, e.AudioSeconds,
			e.SpeechCharacters, e.Cost, e.Estimated, e.CreatedAt}
	})
}

// ChargeOrg takes amount from an organization's balance.
func (t *Tx) ChargeOrg(orgID string, amount float64) error {
	return t.execOne("organization", `UPDATE orgs SET balance = balance - ? WHERE id = ?`, amount, orgID)
}

// UsageReport sums the ledger by day and model within the query's days.
func (t *Tx) UsageReport(orgID string, q app.UsageQuery, p app.Page) ([]app.UsageRow, int, error) {
	conds := []string{"org_id = ?", "day >= ?", "day <= ?"}
	args := []any{orgID, q.From, q.To}
	if q.AssistantID != "" {
		conds, args = append(conds, "assistant_id = ?"), append(args, q.AssistantID)
	}
	where := strings.Join(conds, " AND ")
	total, err := t.count(`SELECT COUNT(*) FROM (SELECT 1 FROM usage_ledger WHERE `+where+` GROUP BY day, model)`, args...)
	if err != nil {
		return nil, 0, err
	}
	rows, err := t.query(`SELECT day, model, COUNT(*), SUM(input_tokens), SUM(output_tokens), SUM(total_tokens),
		SUM(reasoning_tokens), SUM(input_tokens_cache_read), SUM(input_tokens_cache_write), SUM(audio_seconds),
		SUM(speech_characters), SUM(cost), MAX(estimated)
		FROM usage_ledger WHERE `+where+` GROUP BY day, model ORDER BY day, model LIMIT ? OFFSET ?`,
		append(args, p.Take, p.Offset())...)
	if err != nil {
		return nil, 0, err
	}
	out, err := collect(rows, func(s rowScanner) (r app.UsageRow, err error) {
		return r, s.Scan(&r.Day, &r.Model, &r.Calls, &r.InputTokens, &r.OutputTokens, &r.TotalTokens, &r.ReasoningTokens,
			&r.InputTokensCacheRead, &r.InputTokensCacheWrite, &r.AudioSeconds, &r.SpeechCharacters, &r.Cost, &r.Estimated)
	})
	if out == nil && err == nil {
		out = []app.UsageRow{} // an empty report is [], not null
	}
	return out, total, err
}
