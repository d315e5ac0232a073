package app

import (
	"context"
	"strings"
	"unicode/utf8"
)

// LiveTexts answers what the stream hub holds of a message in flight: the text streamed so
// far (built from Live.Delta calls), which may be ahead of what the run has written.
type LiveTexts interface {
	LiveText(orgID, chatID, messageID string) (string, bool)
}

// StreamText is a message's text as stream offsets count it: its text parts, in order, with
// no separator. A delta's offset is a rune offset into this text.
func StreamText(m Message) string {
	var b strings.Builder
	for _, t := range m.Messages {
		for _, p := range t.Parts {
			if p.Type == "text" {
				b.WriteString(p.Text)
			}
		}
	}
	return b.String()
}

// RunesFrom is s from rune offset n on ("" when s is shorter).
func RunesFrom(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[i:]
		}
		n--
	}
	return ""
}

// withLiveText puts the hub's text into a message in flight when it is ahead of the stored
// one: the missing tail goes onto the last text part (or a new one on the last turn).
func withLiveText(m *Message, live string) {
	stored := StreamText(*m)
	n := utf8.RuneCountInString(stored)
	if utf8.RuneCountInString(live) <= n {
		return
	}
	tail := RunesFrom(live, n)
	if len(m.Messages) == 0 {
		m.Messages = []Turn{{Role: m.Role, Parts: []Part{}}}
	}
	for i := len(m.Messages) - 1; i >= 0; i-- {
		parts := m.Messages[i].Parts
		for j := len(parts) - 1; j >= 0; j-- {
			if parts[j].Type == "text" {
				parts[j].Text += tail
				return
			}
		}
	}
	last := &m.Messages[len(m.Messages)-1]
	last.Parts = append(last.Parts, Part{Type: "text", Text: tail})
}

// SyncMessage is the chat's message in flight as it stands (the stored message with the
// hub's live text), or nil: the answer of the sync event and the chat stream's sync.
func (s *Service) SyncMessage(ctx context.Context, orgID, chatID string) (*Message, error) {
	m, err := s.inFlight(ctx, orgID, chatID)
	if m != nil && s.d.LiveTexts != nil {
		if live, ok := s.d.LiveTexts.LiveText(orgID, chatID, m.ID); ok {
			withLiveText(m, live)
		}
	}
	return m, err
}

// ResumeText is the stored text of the message whose message.created event has seq, for a
// stream resumed in the middle of it after the hub forgot it (the run ended, or a restart).
func (s *Service) ResumeText(ctx context.Context, orgID, chatID string, seq int64) (messageID, text string, err error) {
	err = s.d.Store.Read(ctx, func(tx Tx) error {
		e, err := tx.GetStreamEvent(orgID, seq)
		if err != nil {
			return err
		}
		if e.Type != StreamMessageCreated || e.ChatID != chatID || e.MessageID == "" {
			return NotFound("stream event")
		}
		m, err := tx.GetMessage(orgID, chatID, e.MessageID)
		messageID, text = m.ID, StreamText(m)
		return err
	})
	return messageID, text, err
}

// MessageCreatedSeq is the seq of a message's message.created event (0 when there is none).
func (s *Service) MessageCreatedSeq(ctx context.Context, orgID, messageID string) (seq int64, err error) {
	err = s.d.Store.Read(ctx, func(tx Tx) error {
		seq, err = tx.MessageCreatedSeq(orgID, messageID)
		if IsNotFound(err) {
			seq, err = 0, nil
		}
		return err
	})
	return seq, err
}
