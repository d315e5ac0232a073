package app

import "context"

// Broadcasts on messaging apps (telegram, whatsapp): each recipient's broadcast becomes an
// assistant message in the contact's chat on the broadcast's integration, which the delivery
// worker sends like any reply; its delivery then moves the recipient's flags.

// validateChannelBroadcast: a telegram or whatsapp broadcast names the integration that sends
// it; a WhatsApp one is an approved template, the only message WhatsApp delivers to a contact
// who has not written in 24 hours.
func validateChannelBroadcast(p Problems, in BroadcastInput) {
	onChannel := in.IntegrationID == "telegram" || in.IntegrationID == "whatsapp"
	switch {
	case onChannel && in.AssistantIntegrationID == "":
		p.Add("assistant_integration_id", "is required for a "+in.IntegrationID+" broadcast: the integration that sends it")
	case !onChannel && in.AssistantIntegrationID != "":
		p.Add("assistant_integration_id", "is only for telegram and whatsapp broadcasts")
	}
	switch {
	case in.IntegrationID == "whatsapp":
		validateTemplate(p, "template", in.Template)
	case in.Template != nil:
		p.Add("template", "is only for whatsapp broadcasts")
	}
}

// checkBroadcastDeployment: the integration is the organization's (another's is not found)
// and of the broadcast's type.
func checkBroadcastDeployment(tx Tx, b Broadcast) error {
	if b.AssistantIntegrationID == nil {
		return nil
	}
	d, err := tx.GetDeployment(b.OrgID, "", *b.AssistantIntegrationID)
	if err == nil && d.IntegrationID != b.IntegrationID {
		return Invalid("assistant_integration_id", "is a "+d.IntegrationID+" integration, not "+b.IntegrationID)
	}
	return err
}

// sendOnChannel queues the broadcast to the recipient's chat on the integration and settles
// the recipient with that message's id; sent, delivered, read (opened) or failed come with its
// delivery (channel.RecordDelivery).
func (s *Service) sendOnChannel(ctx context.Context, r Recipient, b Broadcast) (err error) {
	failure := ""
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		var m Message
		if m, failure, err = s.channelBroadcast(tx, r, b); err != nil || failure != "" {
			return err
		}
		return s.settle(tx, r, &m.ID, nil, s.now())
	})
	if err == nil && failure != "" {
		return s.recordSend(ctx, r, nil, failure)
	}
	s.countSend(r, "sent", err)
	return err
}

// channelBroadcast adds the broadcast's message to the chat of the recipient's channel on the
// integration (opened when there is none), or answers why it cannot.
func (s *Service) channelBroadcast(tx Tx, r Recipient, b Broadcast) (Message, string, error) {
	d, err := tx.GetDeployment(r.OrgID, "", *b.AssistantIntegrationID)
	if IsNotFound(err) {
		return Message{}, "the broadcast's assistant integration was deleted", nil
	}
	c, err2 := tx.GetContact(r.OrgID, r.ContactID)
	if err != nil || err2 != nil {
		return Message{}, "", firstErr(err, err2)
	}
	channelID := ""
	for _, ch := range c.Channels {
		if ch.Type == r.IntegrationID && channelID == "" {
			channelID = ch.ID
		}
	}
	if channelID == "" {
		return Message{}, "the contact has no " + r.IntegrationID + " channel", nil
	}
	chatID, err := s.deploymentChatID(tx, channelID, d, "")
	if err != nil {
		return Message{}, "", err
	}
	parts := []Part{}
	if !Blank(b.Text) {
		parts = append(parts, Part{Type: "text", Text: b.Text})
	}
	if b.Template != nil {
		parts = append(parts, Part{Type: "template", Template: b.Template})
	}
	m, _, err := s.addMessage(tx, r.OrgID, "", chatID, MessageInput{Role: "assistant", Status: "COMPLETED",
		Messages: []Turn{{Role: "assistant", Parts: parts}}, BroadcastID: &b.ID, IsBroadcastMessage: true})
	return m, "", err
}
