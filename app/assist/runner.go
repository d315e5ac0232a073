package assist

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"wsapi/app"
	"wsapi/app/claim"
	"wsapi/app/voice"
)

// Config tunes the runner (assistants.* and models.fallback).
type Config struct {
	Workers int
	// PerOrg caps one organization's runs at once (0: three quarters of Workers), so one
	// organization's slow provider cannot hold every worker.
	PerOrg        int
	Tick          time.Duration
	FlushInterval time.Duration
	Retries       int
	// MaxSteps bounds the model calls of a run (assistants.max_steps); the last is offered
	// no tools.
	MaxSteps int
	// Fallback is the model tried once when the first fails before its first token.
	Fallback string
	// Secrets are strings (API keys) that must never reach an error a client can read.
	Secrets []string
	// Clock times retries and signs callbacks (nil: the system clock).
	Clock app.Clock
}

// Runs is what the runner needs of the domain (app.Service has it): the runs' life cycle,
// and what the built-in and callback tools read.
type Runs interface {
	ClaimRuns(ctx context.Context, owner string, room app.ClaimRoom) ([]app.RunJob, error)
	LoadRun(ctx context.Context, job app.RunJob) (app.RunInput, error)
	FlushRun(ctx context.Context, job app.RunJob, text string) (stop bool, err error)
	FinishRun(ctx context.Context, job app.RunJob, out app.RunOutcome) error
	RecordToolCall(ctx context.Context, job app.RunJob, call app.ToolCallPart) error
	RunMetrics() app.RunRecorder
	GetConnection(ctx context.Context, orgID, id string) (app.Connection, error)
	// GetFile and RecordHearing serve the transcription of a contact's audio (hear.go).
	GetFile(ctx context.Context, orgID, chatID, id string) (app.ChatFile, error)
	RecordHearing(ctx context.Context, job app.RunJob, messageID string, h app.Hearing) error
	SearchKnowledge(ctx context.Context, orgID, assistantID, query string, limit int) ([]app.Chunk, error)
}

// Runner claims due runs and runs each on its own goroutine, at most Workers at once. It
// implements app.RunAborter so the service can stop a run under way.
type Runner struct {
	Service   Runs
	Providers map[string]Provider
	// Live receives the text as it streams; nil: nobody listens.
	Live app.Live
	// HTTP is the SSRF-guarded client that calls chat tools' callbacks; nil: none work.
	HTTP *http.Client
	// Voices are the audio endpoints of the providers that have them, by provider name:
	// the assistants' stt and tts models (hear.go).
	Voices map[string]*voice.Client
	Log    *slog.Logger
	cfg    Config

	owner  string // this runner's id on the runs it owns; others' are orphans
	loop   claim.Loop
	mu     sync.Mutex
	active map[string]*activeRun // by message id
}

// activeRun is a run under way in this process.
type activeRun struct {
	cancel context.CancelFunc
	done   chan struct{}
	// aborted is set (under Runner.mu) when the service stopped the run, as opposed to a
	// shutdown of the process.
	aborted bool
}

// NewRunner prepares a runner; providers maps provider names to their Provider.
func NewRunner(svc Runs, providers map[string]Provider, cfg Config, log *slog.Logger) *Runner {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Clock == nil {
		cfg.Clock = app.SystemClock{}
	}
	return &Runner{Service: svc, Providers: providers, Log: log, cfg: cfg, owner: app.NewID("runner"),
		loop: claim.Loop{Slots: max(1, cfg.Workers), Tick: cfg.Tick, Log: log}, active: map[string]*activeRun{}}
}

// Nudge asks for a claim now (a run was scheduled, one finished).
func (r *Runner) Nudge() { r.loop.Nudge() }

// NudgeAfter asks for a claim once d has passed: a run scheduled now after its debounce
// starts when it is due, not at the next tick (claim.Loop.NudgeAfter).
func (r *Runner) NudgeAfter(d time.Duration) { r.loop.NudgeAfter(d) }

// WaitIdle waits until nothing is due, claimed or under way (claim.Loop.WaitIdle).
func (r *Runner) WaitIdle(ctx context.Context) error { return r.loop.WaitIdle(ctx) }

// Run claims and runs until ctx ends, then waits for the runs under way, which end FAILED
// "interrupted" with the text they had.
func (r *Runner) Run(ctx context.Context) {
	r.loop.Nudge() // runs left by a previous process are ended at once, not at the first tick
	r.loop.Run(ctx, r.claim)
}

// Abort cancels the run of a message if it runs here; the channel closes once its final
// state is written.
func (r *Runner) Abort(messageID string) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.active[messageID]
	if !ok {
		return nil
	}
	a.aborted = true
	a.cancel()
	return a.done
}

func (r *Runner) claim(ctx context.Context, round claim.Round) []claim.Piece {
	room := app.ClaimRoom{Limit: round.Free, PerOrg: app.OrgShare(r.cfg.PerOrg, max(1, r.cfg.Workers)),
		Org: round.Org, Queue: round.Queue}
	jobs, err := r.Service.ClaimRuns(ctx, r.owner, room)
	if claim.Failed(ctx, r.Log, "assistants: claim", err) {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return claim.Each(jobs, func(job app.RunJob) claim.Piece {
		runCtx, cancel := context.WithCancel(ctx)
		a := &activeRun{cancel: cancel, done: make(chan struct{})}
		r.active[job.MessageID] = a
		return claim.Piece{Org: job.OrgID, Queue: job.ChatID, Run: func() { r.runOne(runCtx, job, a) }}
	})
}

// runOne runs a job and writes its end; a panic fails that run only.
func (r *Runner) runOne(ctx context.Context, job app.RunJob, a *activeRun) {
	var out app.RunOutcome
	if err := app.Safely(func() error { out = r.execute(ctx, job, a); return nil }); err != nil {
		app.LogFailure(r.Log, "assistants: run panicked", err, "message", job.MessageID)
		out = app.RunOutcome{Status: "FAILED", Error: "internal error: the run stopped unexpectedly", Turns: out.Turns}
	}
	r.finish(ctx, job, a, out)
}

// finish writes the outcome even when ctx has ended, then forgets the run.
func (r *Runner) finish(ctx context.Context, job app.RunJob, a *activeRun, out app.RunOutcome) {
	defer func() {
		r.mu.Lock()
		delete(r.active, job.MessageID)
		r.mu.Unlock()
		a.cancel()
		close(a.done)
		if r.Live != nil {
			r.Live.Done(job.OrgID, job.ChatID, job.MessageID)
		}
	}()
	if out.Status == "FAILED" {
		r.Log.Warn("assistants: run failed", "org", job.OrgID, "chat", job.ChatID, "message", job.MessageID,
			"model", job.Model, "err", out.Error)
	}
	if err := r.Service.FinishRun(context.WithoutCancel(ctx), job, out); err != nil {
		r.Log.Error("assistants: finish run", "message", job.MessageID, "err", err)
	}
}

// execute runs the model calls of a job and says how it ended.
func (r *Runner) execute(ctx context.Context, job app.RunJob, a *activeRun) app.RunOutcome {
	if r.Live != nil {
		r.Live.Begin(job.OrgID, job.ChatID, job.MessageID)
	}
	in, err := r.Service.LoadRun(ctx, job)
	if err != nil {
		return r.ended(ctx, a, app.RunOutcome{}, err)
	}
	if r.hear(ctx, job, &in) {
		return app.RunOutcome{Status: "COMPLETED", Text: CouldNotHear}
	}
	req := BuildRequest(in)
	rep := &reply{runner: r, ctx: ctx, job: job, cancel: a.cancel, lastFlush: time.Now()}
	tr := r.newToolRun(job, in)
	model, turns, err := r.agentLoop(ctx, job.Model, req, rep, tr)
	rep.close()
	out := app.RunOutcome{Status: "COMPLETED", Text: rep.String(), Model: model, Turns: turns,
		ToolCalls: tr.calls, Citations: tr.cites, Effects: tr.effects}
	if err == nil {
		r.speak(ctx, job, in, &out)
	}
	return r.ended(ctx, a, out, err)
}

// ended turns an error into the outcome: a stop from the service, a shutdown
// (interrupted), or a failure with its text.
func (r *Runner) ended(ctx context.Context, a *activeRun, out app.RunOutcome, err error) app.RunOutcome {
	if err == nil {
		return out
	}
	r.mu.Lock()
	aborted := a.aborted
	r.mu.Unlock()
	switch {
	case aborted:
		out.Status = "CANCELED"
	case ctx.Err() != nil:
		out.Status, out.Error = "FAILED", app.ErrInterrupted
	default:
		out.Status, out.Error = "FAILED", r.redact(err.Error())
	}
	return out
}

// provider finds the provider of a model id <provider>:<model>.
func (r *Runner) provider(model string) (Provider, string, error) {
	name, id, _ := cut(model)
	p, ok := r.Providers[name]
	if !ok {
		return nil, "", fmt.Errorf("unknown model provider %q in model %q: no models.providers.%s is configured", name, model, name)
	}
	return p, id, nil
}
