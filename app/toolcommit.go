package app

// commitReply writes a run's final message and applies its tool effects, inside the run's
// final transaction, and answers the message as written. A COMPLETED reply is committed
// only while the chat is still the assistant's (no member took it, AI on, assistant
// enabled); otherwise the reply and its effects are dropped and the message ends CANCELED
// with only its usage: the re-check at commit closes the race between a run's last model
// call and a member stepping in. The check needs the chat's row only; effects, which may
// stream the chat, get it whole.
func (s *Service) commitReply(tx Tx, job RunJob, m Message, out RunOutcome, now Time) (*Message, error) {
	c, err := tx.GetChatRow(job.OrgID, job.ChatID)
	if err != nil {
		return nil, err
	}
	if out.Status == "COMPLETED" && !mayRun(c) {
		reason := stopNotTheAIs
		m.Status, m.Error = "CANCELED", &reason
		setReply(&m, "")
		return &m, s.writeRunMessage(tx, job.OrgID, m, now)
	}
	apply := out.Status == "COMPLETED"
	text := out.Text
	if apply && text == "" && hasEffect(out.Effects, ToolTransferToHuman) {
		text = DefaultHandoffMessage
	}
	setReply(&m, text)
	m.Messages[0].Parts = append(m.Messages[0].Parts, toolParts(out.ToolCalls, out.Citations)...)
	if err := s.attachSpeech(tx, job, &m, out.Speech, now); err != nil {
		return nil, err
	}
	if err := s.writeRunMessage(tx, job.OrgID, m, now); err != nil || !apply || len(out.Effects) == 0 {
		return &m, err
	}
	if c, err = tx.GetChat(job.OrgID, job.ChatID); err != nil {
		return nil, err
	}
	return &m, s.applyEffects(tx, c, out.Effects, now)
}

func hasEffect(es []ToolEffect, tool string) bool {
	for _, e := range es {
		if e.Tool == tool {
			return true
		}
	}
	return false
}

// applyEffects carries out the built-in tools' changes in the order the model asked.
func (s *Service) applyEffects(tx Tx, c Chat, effects []ToolEffect, now Time) error {
	for _, e := range effects {
		var err error
		switch e.Tool {
		case ToolTransferToHuman:
			err = s.handOff(tx, &c, e, now)
		case ToolEndConversation:
			err = s.endConversation(tx, &c, now)
		case ToolBlockContact:
			err = s.blockContact(tx, c)
		case ToolSaveMemory:
			err = s.saveMemory(tx, c, e, now)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// handOff turns the AI off on the chat (it stays open and unassigned, for a member to take),
// leaves a private note on the contact with the reason and summary, and fires chat.assigned
// once: the AI handed the conversation off. A second transfer in one run changes nothing.
func (s *Service) handOff(tx Tx, c *Chat, e ToolEffect, now Time) error {
	if c.State == nil || !c.State.AIEnabled {
		return nil
	}
	c.State.AIEnabled = false
	c.UpdatedAt = now
	if err := s.saveChat(tx, c); err != nil {
		return err
	}
	if c.ContactID != "" && c.State.Assistant != nil {
		n := Note{ID: NewID("note"), OrgID: c.OrgID, ContactID: c.ContactID, CreatedAt: now, UpdatedAt: now,
			Content: handoffNote(c.State.Assistant.Name, e),
			User:    User{ID: c.State.Assistant.ID, Name: c.State.Assistant.Name}}
		if err := tx.CreateNote(n); err != nil {
			return err
		}
	}
	if !c.Internal() {
		if _, err := s.Emit(tx, c.OrgID, EventChatAssigned, *c); err != nil {
			return err
		}
	}
	return s.EmitStream(tx, c.OrgID, c.ID, StreamChatUpdated, *c)
}

// endConversation closes the chat after the final answer.
func (s *Service) endConversation(tx Tx, c *Chat, now Time) error {
	if c.State == nil || c.State.State == "CLOSED" {
		return nil
	}
	// The same close as a member's PATCH: the chat.updated event, and the CSAT question when
	// the assistant asks for ratings.
	closed := "CLOSED"
	_, err := s.patchChat(tx, c, ChatPatch{State: &closed}, now)
	return err
}

// saveChat writes the chat and reads it back as the API shows it.
func (s *Service) saveChat(tx Tx, c *Chat) error {
	if err := tx.UpdateChat(*c); err != nil {
		return err
	}
	saved, err := tx.GetChat(c.OrgID, c.ID)
	if err == nil {
		*c = saved
	}
	return err
}

// blockContact blocks the chat's contact through the opt-out path (contact.blocked fires).
func (s *Service) blockContact(tx Tx, c Chat) error {
	if c.ContactID == "" {
		return nil
	}
	ct, err := tx.GetContact(c.OrgID, c.ContactID)
	if err != nil || ct.Blocked {
		return ignoreNotFound(err)
	}
	yes := true
	_, err = s.applyOptOuts(tx, ct, ContactPatch{Blocked: &yes})
	return err
}

// saveMemory records what the model learned about the chat's contact.
func (s *Service) saveMemory(tx Tx, c Chat, e ToolEffect, now Time) error {
	if c.ContactID == "" || e.Memory == nil || e.Memory.Importance == nil {
		return nil
	}
	m := Memory{ID: NewID("cmem"), OrgID: c.OrgID, ContactID: c.ContactID, Type: e.Memory.Type,
		Importance: *e.Memory.Importance, Content: truncateChars(e.Memory.Content, 1000), CreatedAt: now, UpdatedAt: now}
	return tx.CreateMemory(m)
}
