package app

import (
	"context"
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// Price is what a model costs per million tokens, in balance units (models.prices).
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
	// Audio prices: per minute transcribed, per million characters spoken.
	AudioMinute        float64 `json:"audio_minute"`
	SpeechMillionChars float64 `json:"speech_million_characters"`
}

// AudioCost prices seconds transcribed and characters synthesized.
func (p Price) AudioCost(seconds, characters float64) float64 {
	return seconds/60*p.AudioMinute + characters*p.SpeechMillionChars/1e6
}

// Cost prices usage. Input tokens count every input token, cache reads and writes
// included, so the fresh input is what remains once those two are taken out.
func (p Price) Cost(u UsageCounter) float64 {
	fresh := max(0, u.InputTokens-u.InputTokensCacheRead-u.InputTokensCacheWrite)
	return (fresh*p.Input + u.InputTokensCacheRead*p.CacheRead + u.InputTokensCacheWrite*p.CacheWrite +
		u.OutputTokens*p.Output) / 1e6
}

// CharsPerToken is the rule of thumb behind estimated usage.
const CharsPerToken = 4

// EstimateTokens guesses the tokens of text: about one per 4 characters (runes, not bytes,
// so non-Latin text is not counted three times over).
func EstimateTokens(text string) float64 {
	return math.Ceil(float64(utf8.RuneCountInString(text)) / CharsPerToken)
}

// estimatedUsage is usage guessed from the input tokens and the output text, marked so.
func estimatedUsage(input float64, output string) *Usage {
	c := UsageCounter{InputTokens: input, OutputTokens: EstimateTokens(output)}
	c.TotalTokens = c.InputTokens + c.OutputTokens
	return &Usage{UsageCounter: c, Turns: []UsageCounter{c}, Estimated: true}
}

// UsageEntry is one model call in the usage ledger.
type UsageEntry struct {
	OrgID       string
	Day         string // YYYY-MM-DD, UTC
	Model       string
	AssistantID string
	ChatID      string
	MessageID   string
	UsageCounter
	// AudioSeconds and SpeechCharacters count a transcription and a spoken answer.
	AudioSeconds     float64
	SpeechCharacters float64
	Cost             float64
	Estimated        bool
	CreatedAt        Time
}

// UsageRow is one line of the usage report: a day and a model.
type UsageRow struct {
	Day   string `json:"day"`
	Model string `json:"model"`
	Calls int    `json:"calls"`
	UsageCounter
	AudioSeconds     float64 `json:"audio_seconds"`
	SpeechCharacters float64 `json:"speech_characters"`
	Cost             float64 `json:"cost"`
	// Estimated is true when some of the calls' counts were estimated from text.
	Estimated bool `json:"estimated"`
}

// UsageQuery filters the usage report: days from..to (inclusive, YYYY-MM-DD, UTC) and one
// assistant ("" for all).
type UsageQuery struct {
	From        string
	To          string
	AssistantID string
}

// UsageTx is the usage ledger part of a transaction.
type UsageTx interface {
	RecordUsage(entries []UsageEntry) error
	// ChargeOrg takes amount from the organization's balance.
	ChargeOrg(orgID string, amount float64) error
	// UsageReport sums the ledger by day and model, oldest day first, then model.
	UsageReport(orgID string, q UsageQuery, p Page) ([]UsageRow, int, error)
}

// price is the configured price of a model (ids are matched without case: the
// configuration lowercases them).
func (s *Service) price(model string) Price { return s.d.RunPolicy.Prices[strings.ToLower(model)] }

// chargeRun records a run's model calls in the ledger, takes their cost from the balance
// and answers the message's usage (nil when no call was made).
func (s *Service) chargeRun(tx Tx, job RunJob, turns []TurnUsage, now Time) (*Usage, error) {
	if len(turns) == 0 {
		return nil, nil
	}
	u := &Usage{Turns: []UsageCounter{}}
	entries := make([]UsageEntry, len(turns))
	total := 0.0
	for i, t := range turns {
		cost := s.price(t.Model).Cost(t.UsageCounter)
		entries[i] = UsageEntry{OrgID: job.OrgID, Day: now.Format(time.DateOnly), Model: t.Model, AssistantID: job.AssistantID,
			ChatID: job.ChatID, MessageID: job.MessageID, UsageCounter: t.UsageCounter, Cost: cost, Estimated: t.Estimated,
			CreatedAt: now}
		total += cost
		u.Turns = append(u.Turns, t.UsageCounter)
		u.add(t.UsageCounter)
		u.Estimated = u.Estimated || t.Estimated
	}
	if err := tx.RecordUsage(entries); err != nil {
		return nil, err
	}
	if total == 0 {
		return u, nil
	}
	return u, tx.ChargeOrg(job.OrgID, total)
}

func (u *Usage) add(c UsageCounter) {
	u.InputTokens += c.InputTokens
	u.OutputTokens += c.OutputTokens
	u.TotalTokens += c.TotalTokens
	u.ReasoningTokens += c.ReasoningTokens
	u.InputTokensCacheRead += c.InputTokensCacheRead
	u.InputTokensCacheWrite += c.InputTokensCacheWrite
}

// MaxUsageDays bounds the span of one usage report.
const MaxUsageDays = 366

// validateUsageQuery fills the default range (the last 30 days, today included) and checks
// the dates.
func (s *Service) validateUsageQuery(q *UsageQuery) error {
	p := Problems{}
	today := s.d.Clock.Now().UTC().Format(time.DateOnly)
	if q.To == "" {
		q.To = today
	}
	to, err := time.Parse(time.DateOnly, q.To)
	if err != nil {
		p.Add("to", "must be a date YYYY-MM-DD")
	}
	if q.From == "" && err == nil {
		q.From = to.AddDate(0, 0, -29).Format(time.DateOnly)
	}
	from, ferr := time.Parse(time.DateOnly, q.From)
	if ferr != nil && (q.From != "" || err == nil) { // an absent from is no fault of the client when to is bad
		p.Add("from", "must be a date YYYY-MM-DD")
	}
	if err == nil && ferr == nil {
		if to.Before(from) {
			p.Add("to", "must not be before from")
		} else if to.Sub(from) >= MaxUsageDays*24*time.Hour {
			p.Add("from", "the range must span at most 366 days")
		}
	}
	if CharCount(q.AssistantID) > 255 {
		p.Add("assistant_id", "must be at most 255 characters")
	}
	return p.Err()
}

// UsageReport answers tokens and cost by day and model.
func (s *Service) UsageReport(ctx context.Context, orgID string, q UsageQuery, pg Page) (l List[UsageRow], err error) {
	if err := s.validateUsageQuery(&q); err != nil {
		return l, err
	}
	return readPage(ctx, s.d.Store, func(tx Tx) ([]UsageRow, int, error) { return tx.UsageReport(orgID, q, pg) })
}
