package app

import (
	"context"
	"strings"
	"time"
	"unicode"
)

// AutomationPolicy configures what an assistant does by itself in a conversation
// (docs/assistants.md, "Automation").
type AutomationPolicy struct {
	// AutoResolveAfter is the contact's silence after the assistant's last message that
	// closes a chat whose assistant has enable_auto_resolve (assistants.auto_resolve_after).
	AutoResolveAfter time.Duration
	// FollowUpAfter is the contact's silence after an open question before the assistant
	// writes a follow-up (assistants.follow_up_after).
	FollowUpAfter time.Duration
	// MaxFollowUps bounds the follow-ups of one silence (assistants.max_follow_ups).
	MaxFollowUps int
}

// ChatAutomation is the automation's own bookkeeping on a chat, never shown by the API.
type ChatAutomation struct {
	// FollowUps counts the follow-ups written since the contact last spoke.
	FollowUps int
	// CSATPending is set while the contact's answer to the rating question is awaited.
	CSATPending bool
}

// ChatRef names a chat.
type ChatRef struct{ OrgID, ID string }

// AutomationTx is the automation part of a transaction.
type AutomationTx interface {
	ChatAutomation(chatID string) (ChatAutomation, error)
	SetChatAutomation(chatID string, a ChatAutomation) error
	// ScheduleFollowUp inserts a waiting run marked FollowUp, unless a run already waits.
	ScheduleFollowUp(r Run) error
	// AutoResolveCandidates answers OPEN chats of an assistant with enable_auto_resolve whose
	// last message is a COMPLETED assistant message created at or before cutoff.
	AutoResolveCandidates(cutoff Time, limit int) ([]ChatRef, error)
	// DueFollowUps answers OPEN chats whose follow_up_at is at or before now.
	DueFollowUps(now Time, limit int) ([]ChatRef, error)
}

// automationBatch bounds the chats one janitor pass handles per task; the next pass (a
// minute later) takes the rest.
const automationBatch = 200

// assistantAnswers tells whether the chat has a contact and an assistant that may answer.
func assistantAnswers(c Chat) bool {
	return c.ContactID != "" && mayRun(c) && c.State.AssistantConfig != nil
}

// contactTurn is what the automation decided about a contact's new message.
type contactTurn struct {
	intro string // the intro message to send after it ("" none)
	rated bool   // it answered the rating question: no run
}

// beforeContactMessage runs the automation's rules for a contact's new message, before it
// is counted on the chat: the first one gets the intro message, an answer to the rating
// question sets csat_score, and any contact message ends the silence (no follow-up due,
// the follow-up count back to 0).
func (s *Service) beforeContactMessage(tx Tx, c *Chat, m Message) (contactTurn, error) {
	var turn contactTurn
	if c.ContactID == "" || m.Role != "user" || m.IsBroadcastMessage || c.State == nil {
		return turn, nil
	}
	if c.State.LastContactMessageAt.IsZero() && assistantAnswers(*c) {
		turn.intro = strings.TrimSpace(c.State.AssistantConfig.Conversation.AutoIntroMessage)
	}
	auto, err := tx.ChatAutomation(c.ID)
	if err != nil {
		return turn, err
	}
	if auto.CSATPending && m.Status == "COMPLETED" {
		if score, ok := ParseRating(m.Text); ok {
			c.State.CSATScore, turn.rated = &score, true
		}
		auto.CSATPending = false // a reply that is not a rating is a new question
	}
	c.State.FollowUpAt, auto.FollowUps = Time{}, 0
	return turn, tx.SetChatAutomation(c.ID, auto)
}

// sendAssistantMessage adds a finished assistant message with text to the chat (the
// intro, a rating question), counted and streamed like any other message.
func (s *Service) sendAssistantMessage(tx Tx, c Chat, text string, now Time) error {
	m := Message{ID: NewID("msg"), ChatID: c.ID, Role: "assistant", Model: c.Model, Status: "COMPLETED",
		CreatedAt: now, UpdatedAt: now, Messages: replyTurns(text), Tools: []Tool{}}
	setReply(&m, text)
	if err := tx.CreateMessage(c.OrgID, m); err != nil {
		return err
	}
	if err := s.deliverMessage(tx, c.OrgID, c.ID, &m); err != nil {
		return err
	}
	if err := s.countAssistantMessage(tx, c, m, now); err != nil {
		return err
	}
	created, err := tx.GetMessage(c.OrgID, c.ID, m.ID)
	if err != nil {
		return err
	}
	return s.EmitStream(tx, c.OrgID, c.ID, StreamMessageCreated, created)
}

// countAssistantMessage bumps the chat's counters for m on the chat as stored now.
func (s *Service) countAssistantMessage(tx Tx, c Chat, m Message, now Time) error {
	fresh, err := tx.GetChat(c.OrgID, c.ID)
	if err != nil {
		return err
	}
	bumpCounters(&fresh, m, now)
	return tx.UpdateChat(fresh)
}

// afterReply runs when a run's reply m is COMPLETED: an open question to the contact, in a
// chat whose assistant has enable_auto_follow_ups and still has follow-ups left in this
// silence, sets follow_up_at. m is nil when the chat was deleted under the run.
func (s *Service) afterReply(tx Tx, job RunJob, m *Message, now Time) error {
	if m == nil || m.Status != "COMPLETED" || !IsOpenQuestion(replyText(*m)) {
		return nil
	}
	c, err := tx.GetChatRow(job.OrgID, job.ChatID)
	if err != nil {
		return err
	}
	if !assistantAnswers(c) || !c.State.AssistantConfig.Conversation.EnableAutoFollowUps || c.State.State != "OPEN" {
		return nil
	}
	auto, err := tx.ChatAutomation(c.ID)
	if err != nil || auto.FollowUps >= s.d.Automation.MaxFollowUps {
		return err
	}
	c.State.FollowUpAt = At(now.Add(s.d.Automation.FollowUpAfter))
	return tx.UpdateChat(c)
}

// IsOpenQuestion tells whether an assistant's message leaves the contact a question to
// answer: its text, without trailing spaces, closing quotes and brackets, ends with a
// question mark ("?", or the full-width "？" of Chinese and Japanese).
func IsOpenQuestion(text string) bool {
	t := strings.TrimRightFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(`"')]»”’`, r)
	})
	return strings.HasSuffix(t, "?") || strings.HasSuffix(t, "？")
}

// AutoResolveChats closes the OPEN chats of assistants with enable_auto_resolve whose last
// message is the assistant's and whose contact has been silent AutoResolveAfter since: the
// same close as a member's PATCH (chat.updated, and the rating question when
// enable_auto_csat is on). A janitor task; it answers how many chats it closed.
func (s *Service) AutoResolveChats(ctx context.Context) (int, error) {
	now := s.now()
	cutoff := At(now.Add(-s.d.Automation.AutoResolveAfter))
	var refs []ChatRef
	err := s.d.Store.Read(ctx, func(tx Tx) (err error) {
		refs, err = tx.AutoResolveCandidates(cutoff, automationBatch)
		return err
	})
	n := 0
	for _, r := range refs {
		if err != nil {
			break
		}
		var closed bool
		err = s.d.Store.Write(ctx, func(tx Tx) error {
			closed = false
			c, err := tx.GetChat(r.OrgID, r.ID)
			if err != nil || !stillSilent(c, cutoff) {
				return ignoreNotFound(err)
			}
			closedState := "CLOSED"
			_, err = s.patchChat(tx, &c, ChatPatch{State: &closedState}, now)
			closed = err == nil
			return err
		})
		if closed {
			n++
		}
	}
	return n, err
}

// stillSilent re-checks, inside the write, that nothing changed since the candidates were
// read: the chat is OPEN, still the assistant's (AI on, no member took it), and its last
// message is the assistant's, old enough.
func stillSilent(c Chat, cutoff Time) bool {
	last := c.LastMessage
	return assistantAnswers(c) && c.State.State == "OPEN" && last != nil && last.Role == "assistant" &&
		last.Status == "COMPLETED" && !last.CreatedAt.After(cutoff.Time)
}

// SendFollowUps schedules the follow-up run of each OPEN chat whose follow_up_at has come,
// when its assistant may still answer with enable_auto_follow_ups and the silence has
// follow-ups left; follow_up_at is cleared either way. A janitor task; it answers how many
// follow-ups it scheduled.
func (s *Service) SendFollowUps(ctx context.Context) (int, error) {
	now := s.now()
	var refs []ChatRef
	err := s.d.Store.Read(ctx, func(tx Tx) (err error) {
		refs, err = tx.DueFollowUps(now, automationBatch)
		return err
	})
	n := 0
	for _, r := range refs {
		if err != nil {
			break
		}
		var sent bool
		err = s.d.Store.Write(ctx, func(tx Tx) (err error) {
			sent, err = s.followUp(tx, r, now)
			return err
		})
		if sent {
			n++
		}
	}
	return n, err
}

func (s *Service) followUp(tx Tx, r ChatRef, now Time) (bool, error) {
	c, err := tx.GetChat(r.OrgID, r.ID)
	if err != nil || c.State.FollowUpAt.IsZero() || c.State.FollowUpAt.After(now.Time) {
		return false, ignoreNotFound(err)
	}
	c.State.FollowUpAt = Time{}
	if err := tx.UpdateChat(c); err != nil {
		return false, err
	}
	auto, err := tx.ChatAutomation(c.ID)
	if err != nil {
		return false, err
	}
	if !assistantAnswers(c) || !c.State.AssistantConfig.Conversation.EnableAutoFollowUps ||
		c.State.State != "OPEN" || auto.FollowUps >= s.d.Automation.MaxFollowUps {
		return false, nil
	}
	auto.FollowUps++
	if err := tx.SetChatAutomation(c.ID, auto); err != nil {
		return false, err
	}
	run := Run{ID: NewID("run"), OrgID: c.OrgID, ChatID: c.ID, DueAt: now, CreatedAt: now, FollowUp: true}
	return true, tx.ScheduleFollowUp(run)
}

// afterContactMessage sends the intro the contact's first message earned, then schedules
// the run unless the message was a rating (which is answered by nothing).
func (s *Service) afterContactMessage(tx Tx, c Chat, m Message, turn contactTurn, now Time) ([]string, error) {
	if turn.rated { // the rating changed the chat; it asks for no answer
		fresh, err := tx.GetChat(c.OrgID, c.ID)
		if err != nil {
			return nil, err
		}
		return nil, s.EmitStream(tx, c.OrgID, c.ID, StreamChatUpdated, fresh)
	}
	if turn.intro != "" {
		if err := s.sendAssistantMessage(tx, c, turn.intro, now); err != nil {
			return nil, err
		}
		fresh, err := tx.GetChat(c.OrgID, c.ID)
		if err != nil {
			return nil, err
		}
		c = fresh
	}
	return s.triggerRun(tx, c, m, now)
}
