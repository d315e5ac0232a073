package assist

import (
	"context"

	"wsapi/app"
)

// newToolRun gathers the tools a run offers: the built-in ones its assistant allows, then
// the chat's callback tools.
func (r *Runner) newToolRun(job app.RunJob, in app.RunInput) *toolRun {
	tr := &toolRun{runner: r, job: job, in: in, tools: map[string]tool{}}
	for _, t := range builtinTools(in.Assistant.Config) {
		tr.tools[t.spec.Name] = t
	}
	for _, t := range callbackTools(in.Chat, tr.tools, r.Log.Warn) {
		tr.tools[t.spec.Name] = t
	}
	return tr
}

// agentLoop is the agent loop: call the model, run the tools it asks for, give it their results
// and call again, up to MaxSteps calls. The last call is offered no tools, so a run always
// ends with an answer rather than a dangling call. It answers the model that answered last,
// every call's usage, and the first error.
func (r *Runner) agentLoop(ctx context.Context, model string, req Request, rep *reply, tr *toolRun) (string, []app.TurnUsage, error) {
	steps := max(1, r.cfg.MaxSteps)
	specs := tr.specs()
	var turns []app.TurnUsage
	for step := 1; ; step++ {
		req.Tools = specs
		if step >= steps {
			req.Tools = nil
		}
		answered, res, calls, err := r.complete(ctx, model, req, rep)
		turns = append(turns, calls...)
		if err != nil {
			return answered, turns, err
		}
		if res.Text != "" && !rep.started() {
			rep.onText(res.Text) // a provider that answered without streaming
		}
		model = answered // later steps stay with the model that answered (the fallback, maybe)
		for _, c := range res.Citations {
			tr.cite(c)
		}
		if len(res.ToolCalls) == 0 || len(req.Tools) == 0 {
			return model, turns, nil
		}
		req.Messages = append(req.Messages, Message{Role: RoleAssistant, Text: res.Text, ToolCalls: res.ToolCalls})
		for _, tc := range res.ToolCalls {
			req.Messages = append(req.Messages, tr.execute(ctx, tc))
		}
		if err := ctx.Err(); err != nil {
			return model, turns, err
		}
		rep.step()
	}
}

// step starts the text of the next model call: its retries are judged on its own text, and
// its first piece is set apart from the text of the calls before it.
func (p *reply) step() {
	p.stepStart = p.runes
	p.separate = p.runes > 0
}
