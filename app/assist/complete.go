package assist

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"wsapi/app"
)

// Backoff bounds: a retry waits the provider's Retry-After, else 1 s doubling per retry,
// never more than MaxBackoff.
const (
	FirstBackoff = time.Second
	MaxBackoff   = 30 * time.Second
)

// complete gets the answer: the run's model, retried on 429/5xx/overload/connection errors
// before the first token, then the fallback model once. A failure after text has streamed
// is final (the text is kept). It answers the model that answered and every call's usage.
func (r *Runner) complete(ctx context.Context, model string, req Request, rep *reply) (string, Result, []app.TurnUsage, error) {
	models := []string{model}
	if fb := r.cfg.Fallback; fb != "" && fb != model {
		models = append(models, fb)
	}
	var turns []app.TurnUsage
	var failures []string
	for i, m := range models {
		retries := r.cfg.Retries
		if i > 0 {
			retries = 0 // the fallback is tried once
		}
		res, calls, err := r.attempts(ctx, m, req, rep, retries)
		turns = append(turns, calls...)
		if err == nil {
			return m, res, turns, nil
		}
		if rep.started() || ctx.Err() != nil {
			return m, res, turns, err
		}
		label := ""
		if i > 0 {
			label = "fallback " + m + ": "
		}
		failures = append(failures, label+err.Error())
	}
	return model, Result{}, turns, errors.New(strings.Join(failures, "; then "))
}

// attempts calls one model, retrying what may pass on a second try while no text came.
func (r *Runner) attempts(ctx context.Context, model string, req Request, rep *reply, retries int) (Result, []app.TurnUsage, error) {
	p, id, err := r.provider(model)
	if err != nil {
		return Result{}, nil, err
	}
	req.Model = id
	var turns []app.TurnUsage
	for attempt := 0; ; attempt++ {
		before := rep.runes
		start, first := time.Now(), true
		res, err := p.Stream(ctx, req, func(piece string) {
			if first && piece != "" {
				first = false
				r.Service.RunMetrics().FirstToken(model, time.Since(start))
			}
			rep.onText(piece)
		})
		if err == nil || rep.runes > before || res.Reported {
			turns = append(turns, turnUsage(model, req, res, rep.String()[rep.byteAt(before):]))
		}
		if err == nil {
			return res, turns, nil
		}
		pe, ok := AsProviderError(err)
		if ctx.Err() == nil {
			r.logProviderError(model, attempt, pe, err)
		}
		if rep.started() || ctx.Err() != nil || !ok || !pe.Retryable || attempt >= retries {
			return res, turns, err
		}
		if err := app.Sleep(ctx, r.cfg.Clock, backoff(attempt, pe.RetryAfter)); err != nil {
			return res, turns, err
		}
	}
}

// logProviderError writes a WARN line for a failed model call (the run may still retry or
// fall back; its own end is logged by finish), its text redacted like the run's error.
func (r *Runner) logProviderError(model string, attempt int, pe *ProviderError, err error) {
	args := []any{"model", model, "attempt", attempt + 1, "err", r.redact(err.Error())}
	if pe != nil {
		args = append(args, "status", pe.Status, "retryable", pe.Retryable)
	}
	r.Log.Warn("assistants: provider call failed", args...)
}

func backoff(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, MaxBackoff)
	}
	return min(FirstBackoff<<attempt, MaxBackoff)
}

// turnUsage is a call's usage as reported, or estimated from the prompt and the text the
// call produced when the provider sent none (a stream cut short, the builtin model).
func turnUsage(model string, req Request, res Result, text string) app.TurnUsage {
	if res.Reported {
		u := res.Usage
		if u.TotalTokens == 0 {
			u.TotalTokens = u.InputTokens + u.OutputTokens
		}
		return app.TurnUsage{Model: model, UsageCounter: u}
	}
	u := app.UsageCounter{InputTokens: promptTokens(req), OutputTokens: app.EstimateTokens(text)}
	u.TotalTokens = u.InputTokens + u.OutputTokens
	return app.TurnUsage{Model: model, UsageCounter: u, Estimated: true}
}

// reply collects a run's streamed text: it tells the live listeners each piece and writes
// the text to the message at most every FlushInterval.
type reply struct {
	runner    *Runner
	ctx       context.Context
	job       app.RunJob
	cancel    context.CancelFunc
	text      strings.Builder
	runes     int // characters so far: offsets are counted in runes, not bytes
	lastFlush time.Time
	// mu guards text, lastFlush, trailing and closed against the trailing flush's goroutine;
	// flushing keeps flushes in order, so a slow one never writes after a newer one.
	mu       sync.Mutex
	flushing sync.Mutex
	// trailing writes the text that arrived too soon after a flush, once the interval has
	// passed: a provider that stalls after a piece must not leave that piece unwritten (a
	// crash would lose it, a reader of the message would not see it).
	trailing *time.Timer
	closed   bool
	// stepStart is where the current model call's text starts; separate asks for a blank
	// line before its first piece (the agent loop's later calls).
	stepStart int
	separate  bool
}

func (p *reply) String() string { return p.text.String() }

func (p *reply) started() bool { return p.runes > p.stepStart }

// byteAt is the byte index of the n-th character of the text.
func (p *reply) byteAt(n int) int {
	s := p.text.String()
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}

// onText takes one piece of the answer. The flush interval is measured on the wall clock:
// it paces database writes, it is not a time of the domain.
func (p *reply) onText(piece string) {
	if piece == "" {
		return
	}
	if p.separate {
		piece, p.separate = "\n\n"+piece, false
	}
	offset := p.runes
	p.mu.Lock()
	p.text.WriteString(piece)
	p.runes += utf8.RuneCountInString(piece)
	wait := p.runner.cfg.FlushInterval - time.Since(p.lastFlush)
	if wait > 0 && p.trailing == nil && !p.closed {
		p.trailing = time.AfterFunc(wait, p.flushTrailing)
	}
	p.mu.Unlock()
	if live := p.runner.Live; live != nil {
		live.Delta(p.job.OrgID, p.job.ChatID, p.job.MessageID, offset, piece)
	}
	if wait <= 0 {
		p.flush()
	}
}

func (p *reply) flushTrailing() {
	p.mu.Lock()
	p.trailing = nil
	p.mu.Unlock()
	p.flush()
}

// close ends the flushes: the run's own end writes the whole text. It waits for a flush
// under way, so none lands after the run's final write.
func (p *reply) close() {
	p.flushing.Lock()
	defer p.flushing.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.trailing != nil {
		p.trailing.Stop()
		p.trailing = nil
	}
}

// flush writes the text so far; a stop recorded for the run (a cancel, a member taking the
// chat) ends the run here even if the abort signal was missed.
func (p *reply) flush() {
	p.flushing.Lock()
	defer p.flushing.Unlock()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	if p.trailing != nil {
		p.trailing.Stop()
		p.trailing = nil
	}
	p.lastFlush = time.Now()
	text := p.text.String()
	p.mu.Unlock()
	stop, err := p.runner.Service.FlushRun(p.ctx, p.job, text)
	if err != nil && p.ctx.Err() == nil {
		p.runner.Log.Error("assistants: flush", "message", p.job.MessageID, "err", err)
	}
	if stop {
		p.runner.mu.Lock()
		if a, ok := p.runner.active[p.job.MessageID]; ok {
			a.aborted = true
		}
		p.runner.mu.Unlock()
		p.cancel()
	}
}

// redact removes configured secrets from an error text.
func (r *Runner) redact(s string) string {
	for _, k := range r.cfg.Secrets {
		if len(k) >= 4 {
			s = strings.ReplaceAll(s, k, "[redacted]")
		}
	}
	return s
}

func cut(model string) (provider, id string, ok bool) { return strings.Cut(model, ":") }
