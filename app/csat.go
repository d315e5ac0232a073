package app

import "wsapi/app/csat"

// CSATQuestion is the assistant's message that asks the contact of a chat just closed for a
// rating, when its assistant has enable_auto_csat (app/csat).
const CSATQuestion = csat.Question

// ParseRating reads a reply to the rating question (app/csat): a digit 1-5 or a rating word.
func ParseRating(text string) (int, bool) { return csat.ParseRating(text) }

// chatClosed runs when a chat becomes CLOSED, by a member or by the automation: the
// follow-up count starts again, and when the assistant has enable_auto_csat the contact is
// asked for a rating, whose answer the next contact message may be.
func (s *Service) chatClosed(tx Tx, c Chat, now Time) error {
	auto, err := tx.ChatAutomation(c.ID)
	if err != nil {
		return err
	}
	auto.FollowUps = 0
	ask := c.ContactID != "" && c.State.Assistant != nil && c.State.Assistant.Enabled && !c.State.Assistant.Deleted &&
		c.State.Assistant.Config.Conversation.EnableAutoCSAT
	auto.CSATPending = ask
	if err := tx.SetChatAutomation(c.ID, auto); err != nil {
		return err
	}
	if !ask {
		return nil
	}
	return s.sendAssistantMessage(tx, c, CSATQuestion, now)
}
