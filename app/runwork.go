package app

import (
	"context"
	"strings"
	"time"
)

// RunJob is a run a runner has claimed: its message exists, RUNNING.
type RunJob struct {
	Run
	AssistantID string
	// Model is the model id the run starts with (auto:auto already resolved).
	Model string
}

// RunInput is what a run's prompt is made of.
type RunInput struct {
	// Chat is the chat's row (GetChatRow): no members, no last message.
	Chat      Chat
	Assistant Assistant
	// Contact and Channel are zero in a chat without a contact (the playground).
	Contact Contact
	Channel Channel
	// History is the chat's messages before the run's, oldest first.
	History []Message
	// Memories are the contact's most important memories, when the assistant keeps them.
	Memories []Memory
	Now      time.Time
	// FollowUp asks for one follow-up message after the contact's silence.
	FollowUp bool
}

// RunOutcome is how a run ended, as the runner saw it.
type RunOutcome struct {
	Status string // COMPLETED, FAILED or CANCELED
	Text   string
	Error  string
	Model  string // the model that answered; "" keeps the message's
	Turns  []TurnUsage
	// ToolCalls and Citations are recorded on the message; Effects are the built-in tools'
	// changes, applied with a COMPLETED reply only (app/toolcommit.go).
	ToolCalls []ToolCallPart
	Citations []Citation
	Effects   []ToolEffect
	// Speech is the answer spoken, attached to a COMPLETED reply (app/hearing.go).
	Speech *Speech
}

// TurnUsage is the usage of one model call.
type TurnUsage struct {
	Model string
	UsageCounter
	Estimated bool
}

// ResolveModel picks a run's model: the assistant's config.model when it is not auto:auto,
// else the chat's model when it is not, else models.default.
func (s *Service) ResolveModel(c Chat, a Assistant) string {
	for _, m := range []string{a.Config.Model, c.Model} {
		if m != "" && m != AutoModel {
			return m
		}
	}
	return s.d.RunPolicy.DefaultModel
}

// ClaimRuns ends the runs of dead runners as interrupted, then starts the due runs the room
// allows (round-robin across organizations and their chats, within the per-organization
// cap, as the other workers claim), owned by owner: each gets its RUNNING assistant message
// at once. A run whose chat may no longer run is dropped; one whose organization has no
// balance fails at once.
func (s *Service) ClaimRuns(ctx context.Context, owner string, room ClaimRoom) (jobs []RunJob, err error) {
	now := s.now()
	if work, err := s.runWork(ctx, owner, now); err != nil || !work {
		return nil, err
	}
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		jobs = nil
		if err := s.interruptOrphans(tx, owner, now); err != nil {
			return err
		}
		due, err := tx.DueRuns(now, room)
		if err != nil {
			return err
		}
		for _, r := range due {
			job, ok, err := s.startRun(tx, r, owner, now)
			if err != nil {
				return err
			}
			if ok {
				jobs = append(jobs, job)
			}
		}
		return nil
	})
	return jobs, err
}

// runWork tells, from a snapshot, whether a claim has anything to do, so an idle worker's
// ticks do not take the one writer connection.
func (s *Service) runWork(ctx context.Context, owner string, now Time) (work bool, err error) {
	err = s.d.Store.Read(ctx, func(tx Tx) error {
		orphans, err := tx.OrphanRuns(owner, now)
		if err != nil || len(orphans) > 0 {
			work = err == nil
			return err
		}
		work, err = tx.AnyRunDue(now)
		return err
	})
	return work, err
}

// interruptOrphans fails, keeping their text, the runs under way that no live runner of
// this process owns: their process was killed (or stopped) mid-run.
func (s *Service) interruptOrphans(tx Tx, owner string, now Time) error {
	orphans, err := tx.OrphanRuns(owner, now)
	if err != nil {
		return err
	}
	for _, r := range orphans {
		if err := s.finishStored(tx, r, RunOutcome{Status: "FAILED", Error: ErrInterrupted}, now); err != nil {
			return err
		}
	}
	return nil
}

// startRun puts a due run under way: its RUNNING message is created, counted on the chat and
// streamed in the claim's transaction. It reads the chat's row only (the assistant's config
// comes with it) and streams the message as written, not read back: the claim is one of the
// three write transactions of every run, all on the one writer.
func (s *Service) startRun(tx Tx, r Run, owner string, now Time) (RunJob, bool, error) {
	c, err := tx.GetChatRow(r.OrgID, r.ChatID)
	if err != nil || !mayRun(c) {
		return RunJob{}, false, firstErr(tx.DeleteRun(r.ID), ignoreNotFound(err))
	}
	org, err := tx.GetOrg(r.OrgID)
	if err != nil {
		return RunJob{}, false, err
	}
	a := Assistant{ID: *c.State.AssistantID, Config: *c.State.AssistantConfig}
	job := RunJob{Run: r, AssistantID: a.ID, Model: s.ResolveModel(c, a)}
	m := Message{ID: NewID("msg"), ChatID: c.ID, Role: "assistant", Model: job.Model, Status: "RUNNING", CreatedAt: now,
		UpdatedAt: now, Messages: replyTurns(""), Tools: []Tool{}, Reactions: []Reaction{}}
	if err := tx.CreateMessage(r.OrgID, m); err != nil {
		return RunJob{}, false, err
	}
	bumpCounters(&c, m, now)
	if err := tx.UpdateChat(c); err != nil {
		return RunJob{}, false, err
	}
	if err := s.EmitStream(tx, r.OrgID, c.ID, StreamMessageCreated, m); err != nil {
		return RunJob{}, false, err
	}
	if org.Balance <= 0 {
		msg := ErrBalanceExhausted
		m.Status, m.Error = "FAILED", &msg
		return RunJob{}, false, firstErr(s.writeRunMessage(tx, r.OrgID, m, now), tx.DeleteRun(r.ID))
	}
	job.MessageID, job.Owner = m.ID, owner
	return job, true, tx.StartRun(r.ID, m.ID, owner, At(now.Add(s.d.RunPolicy.Lease)))
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func ignoreNotFound(err error) error {
	if IsNotFound(err) {
		return nil
	}
	return err
}

// LoadRun reads what a run's prompt needs.
func (s *Service) LoadRun(ctx context.Context, job RunJob) (in RunInput, err error) {
	in.Now, in.FollowUp = s.d.Clock.Now(), job.FollowUp
	err = s.d.Store.Read(ctx, func(tx Tx) error {
		if in.Chat, err = tx.GetChatRow(job.OrgID, job.ChatID); err != nil {
			return err
		}
		if in.Assistant, err = tx.GetAssistant(job.OrgID, job.AssistantID); err != nil {
			return err
		}
		if err := loadRunContact(tx, &in); err != nil {
			return err
		}
		if in.History, err = s.history(tx, job); err != nil {
			return err
		}
		in.Memories, err = s.promptMemories(tx, in)
		return err
	})
	return in, err
}

func loadRunContact(tx Tx, in *RunInput) (err error) {
	if in.Chat.ContactID == "" {
		return nil
	}
	if in.Contact, err = tx.GetContact(in.Chat.OrgID, in.Chat.ContactID); err != nil {
		return err
	}
	if in.Chat.ContactChannelID != "" {
		in.Channel, err = tx.GetChannel(in.Chat.OrgID, in.Chat.ContactChannelID)
	}
	return ignoreNotFound(err)
}

// history answers the last HistoryMessages messages before the run's own.
func (s *Service) history(tx Tx, job RunJob) ([]Message, error) {
	n := max(1, s.d.RunPolicy.HistoryMessages)
	_, total, err := tx.ListMessages(job.OrgID, job.ChatID, nil, 0, 0)
	if err != nil {
		return nil, err
	}
	msgs, _, err := tx.ListMessages(job.OrgID, job.ChatID, nil, max(0, total-n-1), n+1)
	if err != nil {
		return nil, err
	}
	out := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		if m.ID == job.MessageID {
			break
		}
		out = append(out, m)
	}
	return out[max(0, len(out)-n):], nil
}

// FlushRun writes a run's text so far and renews its lease. It answers stop=true when the
// run must end: its message is no longer RUNNING, or a stop was recorded for it.
func (s *Service) FlushRun(ctx context.Context, job RunJob, text string) (stop bool, err error) {
	now := s.now()
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		r, err := tx.GetRun(job.ID)
		if IsNotFound(err) || (err == nil && r.Stop != "") {
			stop = true
			return nil
		}
		if err != nil {
			return err
		}
		turns := replyTurns(text)
		written, err := tx.UpdateRunText(job.OrgID, job.MessageID, turns, messageText(turns), now)
		if err != nil || !written {
			stop = err == nil
			return err
		}
		return tx.RenewRun(job.ID, At(now.Add(s.d.RunPolicy.Lease)))
	})
	return stop, err
}

// FinishRun writes a run's final state in one transaction: the message (unless a stop
// already ended it), the usage ledger, and the cost taken from the organization's balance.
// A recorded cancel makes the run CANCELED whatever the runner saw.
func (s *Service) FinishRun(ctx context.Context, job RunJob, out RunOutcome) error {
	now := s.now()
	err := s.d.Store.Write(ctx, func(tx Tx) error { return s.finish(tx, job, out, now) })
	if err == nil {
		s.countRun(job, out)
	}
	return err
}

// countRun reports a finished run and its tokens to the operator's metrics.
func (s *Service) countRun(job RunJob, out RunOutcome) {
	rec := s.recorder()
	model := out.Model
	if model == "" {
		model = job.Model
	}
	rec.RunFinished(model, out.Status)
	for _, t := range out.Turns {
		for kind, n := range map[string]float64{"input": t.InputTokens, "output": t.OutputTokens,
			"cache_read": t.InputTokensCacheRead, "cache_write": t.InputTokensCacheWrite} {
			if n > 0 {
				rec.RunTokens(t.Model, kind, int(n))
			}
		}
	}
}

func (s *Service) finish(tx Tx, job RunJob, out RunOutcome, now Time) error {
	r, err := tx.GetRun(job.ID)
	if err != nil && !IsNotFound(err) {
		return err
	}
	if r.Stop == StopCanceled {
		out.Status, out.Error = "CANCELED", ""
	}
	usage, err := s.chargeRun(tx, job, out.Turns, now)
	if err != nil {
		return err
	}
	final, err := s.finalMessage(tx, job, out, usage, now)
	if err != nil {
		return err
	}
	if err := s.afterReply(tx, job, final, now); err != nil {
		return err
	}
	return ignoreNotFound(tx.DeleteRun(job.ID))
}

// finalMessage writes the run's message in its final state and answers it (nil when the
// chat was deleted under the run).
func (s *Service) finalMessage(tx Tx, job RunJob, out RunOutcome, usage *Usage, now Time) (*Message, error) {
	m, err := tx.GetMessage(job.OrgID, job.ChatID, job.MessageID)
	if IsNotFound(err) {
		return nil, nil // the chat was deleted under the run
	}
	if err != nil {
		return nil, err
	}
	if m.Status != "RUNNING" { // a stop discarded the reply: only the usage is added
		if usage == nil {
			return &m, nil
		}
		m.Usage, m.UpdatedAt = usage, now
		return &m, tx.UpdateMessage(job.OrgID, m)
	}
	m.Status, m.Usage = out.Status, usage
	if out.Model != "" {
		m.Model = out.Model
	}
	m.Error = nil
	if out.Error != "" {
		m.Error = &out.Error
	}
	return s.commitReply(tx, job, m, out, now)
}

// finishStored ends, inside tx, a run whose runner is gone: from the text the message
// holds, with usage estimated from it (charged like any other).
func (s *Service) finishStored(tx Tx, r Run, out RunOutcome, now Time) error {
	m, err := tx.GetMessage(r.OrgID, r.ChatID, r.MessageID)
	if IsNotFound(err) {
		return ignoreNotFound(tx.DeleteRun(r.ID))
	}
	if err != nil {
		return err
	}
	job := RunJob{Run: r, Model: m.Model}
	if c, err := tx.GetChatRow(r.OrgID, r.ChatID); err == nil && c.State != nil && c.State.AssistantID != nil {
		job.AssistantID = *c.State.AssistantID
	}
	if m.Status == "RUNNING" {
		out.Text, out.Model = replyText(m), m.Model
		u := estimatedUsage(0, out.Text)
		out.Turns = []TurnUsage{{Model: m.Model, UsageCounter: u.UsageCounter, Estimated: true}}
	}
	return s.finish(tx, job, out, now)
}

// replyText is the text of an assistant message's parts.
func replyText(m Message) string {
	var b strings.Builder
	for _, t := range m.Messages {
		for _, p := range t.Parts {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}
