package app

import (
	"context"
	"time"
)

// RunPolicy is the configuration of assistant runs that the domain rules need.
type RunPolicy struct {
	// Debounce is how long a chat waits after its last triggering message before a run
	// starts, so a burst of contact messages gives one run (assistants.debounce).
	Debounce time.Duration
	// HistoryMessages bounds the chat messages in the prompt (assistants.history_messages).
	HistoryMessages int
	// DefaultModel is the model behind auto:auto (models.default).
	DefaultModel string
	// Prices per model id, lowercase (viper lowercases keys), per million tokens.
	Prices map[string]Price
	// Lease is how long a runner owns a run between two writes of its text; past it a dead
	// process's run is ended as interrupted.
	Lease time.Duration
	// PromptMemories bounds a contact's memories in the prompt (assistants.prompt_memories).
	PromptMemories int
}

// Run is an assistant run of a chat: waiting (MessageID empty, until DueAt) or under way.
type Run struct {
	ID         string
	OrgID      string
	ChatID     string
	DueAt      Time
	MessageID  string
	Owner      string
	LeaseUntil Time
	Stop       string
	CreatedAt  Time
	// FollowUp marks a run the automation scheduled after the contact went silent: its
	// prompt asks for one follow-up message (app/automation.go).
	FollowUp bool
}

// Why a run under way ends early. Canceled keeps the partial reply; the others discard it.
const (
	StopCanceled   = "canceled"
	StopSuperseded = "superseded"
	StopTaken      = "taken"
	StopAIDisabled = "ai_disabled"
)

// stopErrors is the error text a discarded reply's message carries.
var stopErrors = map[string]string{
	StopSuperseded: "canceled: a newer contact message superseded this reply",
	StopTaken:      "canceled: a member took the chat",
	StopAIDisabled: "canceled: ai_enabled turned false",
}

// ErrInterrupted is the error of a run whose process stopped or died under it.
const ErrInterrupted = "interrupted"

// ErrBalanceExhausted is the error of a run that may not start for lack of balance.
const ErrBalanceExhausted = "balance exhausted"

// RunTx is the runs part of a transaction.
type RunTx interface {
	// ScheduleRun makes the chat's waiting run due at r.DueAt: r itself, or the waiting
	// run already there moved to r.DueAt.
	ScheduleRun(r Run) error
	// DropWaitingRun removes the chat's waiting run and tells whether there was one.
	DropWaitingRun(chatID string) (bool, error)
	// RunsUnderWay answers the chat's runs under way that no stop has ended yet.
	RunsUnderWay(chatID string) ([]Run, error)
	GetRun(id string) (Run, error)
	StopRun(id, why string) error
	// DueRuns answers the waiting runs due at now that the room picks (app.ClaimRoom.Pick:
	// round-robin across organizations, then chats), oldest first within each.
	DueRuns(now Time, room ClaimRoom) ([]Run, error)
	// AnyRunDue tells whether a run waits past its debounce.
	AnyRunDue(now Time) (bool, error)
	// StartRun marks a run under way with its message, owned by owner until leaseUntil.
	StartRun(id, messageID, owner string, leaseUntil Time) error
	RenewRun(id string, leaseUntil Time) error
	DeleteRun(id string) error
	// OrphanRuns answers runs under way owned by another runner or whose lease lapsed.
	OrphanRuns(owner string, now Time) ([]Run, error)
	// UpdateRunMessage writes a message like UpdateMessage, model included, only while it
	// is RUNNING; it tells whether it did.
	UpdateRunMessage(orgID string, m Message) (bool, error)
	// UpdateRunText writes a RUNNING message's turns and text only (a flush of a run's
	// text); it tells whether the message was still RUNNING.
	UpdateRunText(orgID, messageID string, turns []Turn, text string, at Time) (bool, error)
	UsageTx
}

// RunAborter stops runs under way in this process (the runner implements it).
type RunAborter interface {
	// Abort cancels the run of message id if it runs here and answers a channel closed
	// once its final state is written; nil when it does not run here.
	Abort(messageID string) <-chan struct{}
}

// mayRun tells whether a chat's assistant may answer now: it has an enabled, live
// assistant, AI is on, no member has taken it, and its integration (if any) is enabled.
func mayRun(c Chat) bool {
	st := c.State
	return st != nil && st.AssistantID != nil && st.Assistant != nil && st.Assistant.Enabled && !st.Assistant.Deleted &&
		st.AIEnabled && c.AssignedUserID == "" && (st.AssistantIntegration == nil || st.AssistantIntegration.Enabled)
}

// triggers tells whether a new message asks the assistant to answer: a contact's message,
// or in a chat without a contact (the playground) a member's.
func triggers(c Chat, m Message) bool {
	if m.Status != "COMPLETED" || m.IsBroadcastMessage || m.NoRun {
		return false
	}
	if c.ContactID == "" {
		return m.Role == "user" || m.Role == "admin"
	}
	return m.Role == "user"
}

// triggerRun schedules the chat's run after m, debounced, superseding a run under way (its
// reply is discarded). It answers the messages of the runs it stopped, to abort after commit.
func (s *Service) triggerRun(tx Tx, c Chat, m Message, now Time) ([]string, error) {
	if !triggers(c, m) || !mayRun(c) {
		return nil, nil
	}
	stopped, err := s.stopUnderWay(tx, c, StopSuperseded, now)
	if err != nil {
		return nil, err
	}
	r := Run{ID: NewID("run"), OrgID: c.OrgID, ChatID: c.ID, DueAt: At(now.Add(s.d.RunPolicy.Debounce)), CreatedAt: now}
	return stopped, tx.ScheduleRun(r)
}

// stopRuns ends every run of a chat for why: the waiting one goes, those under way stop
// and their replies are discarded. It answers their messages, to abort after commit.
func (s *Service) stopRuns(tx Tx, c Chat, why string, now Time) ([]string, error) {
	if _, err := tx.DropWaitingRun(c.ID); err != nil {
		return nil, err
	}
	return s.stopUnderWay(tx, c, why, now)
}

// stopUnderWay stops the chat's runs under way for a reason that discards the reply: the
// message is CANCELED at once, empty, with the reason as its error; the runner's own final
// write then only adds the usage.
func (s *Service) stopUnderWay(tx Tx, c Chat, why string, now Time) ([]string, error) {
	runs, err := tx.RunsUnderWay(c.ID)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, r := range runs {
		if err := tx.StopRun(r.ID, why); err != nil {
			return nil, err
		}
		m, err := tx.GetMessage(c.OrgID, c.ID, r.MessageID)
		if IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		reason := stopErrors[why]
		m.Status, m.Error = "CANCELED", &reason
		setReply(&m, "")
		if err := s.writeRunMessage(tx, c.OrgID, m, now); err != nil {
			return nil, err
		}
		ids = append(ids, r.MessageID)
	}
	return ids, nil
}

// abortRuns tells the runner to stop the runs of these messages (after the commit that
// stopped them).
func (s *Service) abortRuns(messageIDs []string) {
	if s.d.Runner == nil {
		return
	}
	for _, id := range messageIDs {
		s.d.Runner.Abort(id)
	}
}

// replyTurns is an assistant message's turns holding text.
func replyTurns(text string) []Turn {
	parts := []Part{}
	if text != "" {
		parts = append(parts, Part{Type: "text", Text: text})
	}
	return []Turn{{Role: "assistant", Parts: parts}}
}

// setReply sets an assistant message's text (its turns and the searchable text).
func setReply(m *Message, text string) {
	m.Messages = replyTurns(text)
	m.Text = messageText(m.Messages)
}

// writeRunMessage writes a run's message while it is RUNNING, keeps the chat's status in
// step and, when the message reaches a final state, records the stream event. m must be the
// message as read (author and reactions included): the event carries it as written, not
// read back.
func (s *Service) writeRunMessage(tx Tx, orgID string, m Message, now Time) error {
	m.UpdatedAt = now
	ok, err := tx.UpdateRunMessage(orgID, m)
	if err != nil || !ok || m.Status == "RUNNING" {
		return err
	}
	if err := tx.FollowLastMessage(orgID, m.ChatID, m.ID, m.Status, m.UpdatedAt); err != nil {
		return err
	}
	if err := s.deliverMessage(tx, orgID, m.ChatID, &m); err != nil {
		return err
	}
	return s.EmitStream(tx, orgID, m.ChatID, StreamMessageUpdated, m)
}

// CancelRun stops the chat's run in flight, keeping its partial reply, and answers its
// final message; a run still waiting out its debounce is dropped too (then the answer is
// nil when nothing was in flight). Nothing to cancel at all is a conflict.
func (s *Service) CancelRun(ctx context.Context, orgID, chatID string) (*Message, error) {
	var run *Run
	err := s.d.Store.Write(ctx, func(tx Tx) error {
		if _, err := tx.GetChat(orgID, chatID); err != nil {
			return err
		}
		dropped, err := tx.DropWaitingRun(chatID)
		if err != nil {
			return err
		}
		runs, err := tx.RunsUnderWay(chatID)
		if err != nil {
			return err
		}
		if len(runs) == 0 {
			if !dropped {
				return Conflict("no assistant run in flight in this chat")
			}
			return nil
		}
		run = &runs[len(runs)-1]
		return tx.StopRun(run.ID, StopCanceled)
	})
	if err != nil || run == nil {
		return nil, err
	}
	return s.awaitCanceled(ctx, *run)
}

// cancelWait bounds how long CancelRun waits for the runner to write the final state
// before it writes it from what the database holds.
const cancelWait = 3 * time.Second

func (s *Service) awaitCanceled(ctx context.Context, r Run) (*Message, error) {
	var done <-chan struct{}
	if s.d.Runner != nil {
		done = s.d.Runner.Abort(r.MessageID)
	}
	if done != nil {
		select {
		case <-done:
		case <-time.After(cancelWait):
			done = nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if done == nil { // not running here (or stuck): end it from the stored text
		now := s.now()
		err := s.d.Store.Write(ctx, func(tx Tx) error { return s.finishStored(tx, r, RunOutcome{Status: "CANCELED"}, now) })
		if err != nil {
			return nil, err
		}
	}
	var m Message
	err := s.d.Store.Read(ctx, func(tx Tx) (err error) {
		m, err = tx.GetMessage(r.OrgID, r.ChatID, r.MessageID)
		return err
	})
	return &m, err
}
